"""000 11.3 multi-tables in a CAM scenario fought online (ruling BZ94): while the forces are being
chosen each player says which gaming table each ship of his force starts on; a ship he leaves
alone is dealt in force order. The choice reaches the engine's initial state; every refusal names
the rule and changes nothing."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.cam import actions, adapters, online
from campaign.cam.models import CamScenario
from campaign.models import AuditEntry
from tactical.hosts.cam import scenarios as tcam
from tactical.models import Battle
from tactical.rules.buoyz.cam import deal_tables

from .conftest import make_cam, ship_numbers
from .test_actions import refused, snapshot


def _forces(c, alice, bob, carol, *, mode="online", bob_ships=3, carol_ships=2):
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    if mode != "tabletop":
        online.set_mode(campaign_id=c.pk, user=alice, number=1, mode=mode)
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:bob_ships])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:carol_ships])


def _uids(c, seat, count):
    return [f"ship:{n}" for n in ship_numbers(c, seat)[:count]]


def _start(c, bob):
    row = actions.roll_table(campaign_id=c.pk, user=bob)
    battle = Battle.objects.get(campaign=c)
    tcam._CACHE.clear()
    return row, battle, tcam.current_state(battle, row)


def _table_of_ship(state, uid):
    ship_id = next(sid for sid, _seat, u in state.cam.units if u == uid)
    return state.table_of(state.ship(ship_id).pos) + 1


def _url(c, number=1):
    return f"/api/cam/campaigns/{c.pk}/scenarios/{number}/tables/"


@pytest.fixture
def api():
    return APIClient()


def test_a_chosen_table_is_where_the_ship_starts_on_the_engine(db, alice, bob, carol):
    c = make_cam(alice, bob, carol, tables=2)
    _forces(c, alice, bob, carol)
    first, second, third = _uids(c, 1, 3)
    carol_first, _ = _uids(c, 2, 2)
    online.choose_tables(campaign_id=c.pk, user=bob, number=1, tables={first: 2, third: None})
    online.choose_tables(campaign_id=c.pk, user=carol, number=1, tables={carol_first: 2})
    entry = AuditEntry.objects.get(campaign=c, action="cam_ship_tables", target__endswith="seat 1")
    assert entry.after == {first: 2} and entry.user == bob

    row, battle, state = _start(c, bob)
    table_of = battle.setup["cam"]["table_of"]
    # Bob's first ship on table 2 as he chose; the others dealt as ever (second: 2, third: 1).
    assert (table_of[first], table_of[second], table_of[third]) == (2, 2, 1)
    assert table_of[carol_first] == 2
    assert _table_of_ship(state, first) == 2 and _table_of_ship(state, carol_first) == 2
    assert _table_of_ship(state, third) == 1
    assert "2 of its ships on the tables their players chose" in battle.log.get(kind="tactical_start").text
    assert online.settle(campaign_id=c.pk, user=alice, number=1).stage == CamScenario.Stage.SCORED


def test_nothing_chosen_is_the_dealing_in_force_order(db, alice, bob, carol):
    c = make_cam(alice, bob, carol, tables=3)
    _forces(c, alice, bob, carol)
    row, battle, state = _start(c, bob)
    record = adapters.battle_state(row, adapters.campaign_state(c.cam))
    assert battle.setup["cam"]["table_of"] == deal_tables(record)
    assert [battle.setup["cam"]["table_of"][u] for u in _uids(c, 1, 3)] == [1, 2, 3]
    assert "its ships dealt over them" in battle.log.get(kind="tactical_start").text


def test_the_choice_is_replaced_kept_through_a_new_force_and_a_double_submit_is_harmless(db, alice, bob, carol):
    c = make_cam(alice, bob, carol, tables=2)
    _forces(c, alice, bob, carol)
    first, second, third = _uids(c, 1, 3)
    online.choose_tables(campaign_id=c.pk, user=bob, number=1, tables={first: 2, second: 1})
    before = snapshot(c)
    online.choose_tables(campaign_id=c.pk, user=bob, number=1, tables={second: 1, first: 2})  # the same again
    assert snapshot(c) == before
    assert AuditEntry.objects.filter(campaign=c, action="cam_ship_tables").count() == 1
    # Bob re-chooses his force without his second ship: the first keeps its table.
    actions.select_forces(campaign_id=c.pk, user=bob, ships=[int(first[5:]), int(third[5:])])
    assert online.table_choices(CamScenario.objects.get(cam=c.cam), 1) == {first: 2}
    online.choose_tables(campaign_id=c.pk, user=bob, number=1, tables={})
    assert online.table_choices(CamScenario.objects.get(cam=c.cam), 1) == {}


def test_every_refusal_names_the_rule_and_changes_nothing(db, alice, bob, carol, mallory):
    c = make_cam(alice, bob, carol, tables=2)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    online.set_mode(campaign_id=c.pk, user=alice, number=1, mode="online")
    mine = _uids(c, 1, 4)
    refused(c, "has not chosen a force", online.choose_tables, user=bob, number=1, tables={mine[0]: 2})
    _forces_done = actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    assert _forces_done.stage == "forces"
    audits = AuditEntry.objects.filter(campaign=c).count()
    for tables in ({mine[0]: 3}, {mine[0]: 0}, {mine[0]: "2"}, {mine[0]: True}, {mine[0]: 1.5}):
        error = refused(c, "000 11.3", online.choose_tables, user=bob, number=1, tables=tables)
        assert error.reason == "no_such_table"
    error = refused(c, "there is no table 3: this campaign plays on 2 gaming tables", online.choose_tables,
                    user=bob, number=1, tables={mine[1]: 1, mine[0]: 3})
    for stray in (_uids(c, 2, 1)[0], mine[3], "ship:9999", "base:1"):  # carol's ship, one not chosen, none, a base
        error = refused(c, "is not a ship of Bob's Squadron's force", online.choose_tables, user=bob, number=1,
                        tables={stray: 2})
        assert error.reason == "not_in_force"
    refused(c, "tables maps a ship", online.choose_tables, user=bob, number=1, tables=[[mine[0], 2]])
    refused(c, "seat is a seat number", online.choose_tables, user=bob, number=1, tables={}, seat="1")
    error = refused(c, "only for your own fleet", online.choose_tables, user=carol, number=1, seat=1,
                    tables={mine[0]: 2})
    assert isinstance(error, actions.NotAllowed)
    assert isinstance(refused(c, "no such CAM campaign", online.choose_tables, user=mallory, number=1,
                              tables={mine[0]: 2}), actions.NotFound)
    assert isinstance(refused(c, "no scenario 2", online.choose_tables, user=bob, number=2, tables={}),
                      actions.NotFound)
    online.set_mode(campaign_id=c.pk, user=alice, number=1, mode="tabletop")
    assert refused(c, "is not fought online", online.choose_tables, user=bob, number=1,
                   tables={mine[0]: 2}).reason == "not_online"
    online.set_mode(campaign_id=c.pk, user=alice, number=1, mode="online")
    actions.roll_table(campaign_id=c.pk, user=bob)
    error = refused(c, "its ships are deployed", online.choose_tables, user=bob, number=1, tables={mine[0]: 2})
    assert isinstance(error, online.Conflict) and error.reason == "started"
    assert AuditEntry.objects.filter(campaign=c, action="cam_ship_tables").count() == 0
    assert AuditEntry.objects.filter(campaign=c).count() == audits + 2  # the two mode switches


def test_one_gaming_table_has_nothing_to_choose(db, alice, bob, carol):
    c = make_cam(alice, bob, carol)
    _forces(c, alice, bob, carol)
    assert refused(c, "one gaming table", online.choose_tables, user=bob, number=1,
                   tables={_uids(c, 1, 1)[0]: 1}).reason == "one_table"


def test_the_api_chooses_hides_it_from_the_opponent_and_refuses_as_its_siblings(db, api, alice, bob, carol, mallory):
    c = make_cam(alice, bob, carol, tables=2)
    _forces(c, alice, bob, carol)
    first = _uids(c, 1, 1)[0]
    api.force_login(mallory)
    before = snapshot(c)
    assert api.put(_url(c), {"tables": {first: 2}}, format="json").status_code == 404
    api.force_login(carol)
    r = api.put(_url(c), {"tables": {first: 2}, "seat": 1}, format="json")
    assert r.status_code == 403 and snapshot(c) == before
    api.force_login(bob)
    r = api.put(_url(c), {"tables": {first: 5}}, format="json")
    assert r.status_code == 400 and r.json()["reason"] == "no_such_table" and "000 11.3" in r.json()["detail"]
    assert snapshot(c) == before
    r = api.put(_url(c), {"tables": {first: 2}}, format="json")
    assert r.status_code == 200 and r.json()["ship_tables"]["1"] == {first: 2}
    assert api.put(_url(c), {"tables": {first: 2}}, format="json").status_code == 200  # again: harmless
    api.force_login(carol)  # hidden from the opponent until the table is rolled, as his force is
    assert "1" not in api.get(f"/api/cam/campaigns/{c.pk}/scenarios/1/").json()["ship_tables"]
    api.force_login(alice)
    assert api.get(f"/api/cam/campaigns/{c.pk}/scenarios/1/").json()["ship_tables"]["1"] == {first: 2}
    api.force_login(bob)
    actions.roll_table(campaign_id=c.pk, user=bob)
    before = snapshot(c)
    r = api.put(_url(c), {"tables": {first: 1}}, format="json")
    assert r.status_code == 409 and r.json()["reason"] == "started" and snapshot(c) == before
    assert Battle.objects.get(campaign=c).setup["cam"]["table_of"][first] == 2


def test_the_scenario_page_has_a_select_per_ship(db, client, alice, bob, carol, mallory):
    c = make_cam(alice, bob, carol, tables=3)
    _forces(c, alice, bob, carol)
    first, second, _third = _uids(c, 1, 3)
    page = reverse("cam-scenario", args=[c.pk, 1])
    post = reverse("cam-tables", args=[c.pk, 1])
    client.force_login(bob)
    html = client.get(page).content.decode()
    assert 'id="tables-form"' in html and f'name="table-{first}"' in html and "dealt: table 2" in html
    r = client.post(post, {f"table-{first}": "3", f"table-{second}": ""})
    assert r.status_code == 302
    assert online.table_choices(CamScenario.objects.get(cam=c.cam), 1) == {first: 3}
    before = snapshot(c)
    r = client.post(post, {f"table-{first}": "4"})
    assert r.status_code == 400 and "there is no table 4" in r.content.decode() and snapshot(c) == before
    client.force_login(carol)  # carol's own form, not bob's ships
    html = client.get(page).content.decode()
    assert f'name="table-{first}"' not in html and f'name="table-{_uids(c, 2, 1)[0]}"' in html
    client.force_login(mallory)
    assert client.post(post, {f"table-{first}": "1"}).status_code == 404 and snapshot(c) == before
