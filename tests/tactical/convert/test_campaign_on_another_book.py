"""Issue 31: an Event Horizon campaign whose battles are fought online on Buoyz. The campaign
option (lobby, moderation panel until the first battle, audited), the battle set up from the
converted fleets (rulings XC1-XC9), played to its end and its result taken up by the turn."""

from __future__ import annotations

from datetime import timedelta

import pytest

from campaign import actions as campaign_actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.models import Ship
from campaign.models import AuditEntry, Turn
from tactical.battles import actions
from tactical.models import Battle
from tactical.play import embedded
from tests.tactical.battle_support import contact_turn

pytestmark = pytest.mark.django_db


def _choose_buoyz(campaign, alice):
    campaign_actions.set_campaign_option(campaign_id=campaign.pk, user=alice, key="battle_book", value="buoyz")
    campaign.refresh_from_db()


def test_the_option_offers_every_book_with_a_converter_and_is_audited(small_campaign, alice):
    from campaign import battles

    assert [k for k, _ in battles.handler().book_choices("eventhorizon")][:2] == ["eventhorizon", "buoyz"]
    assert [k for k, _ in battles.handler().book_choices("cam")][:2] == ["buoyz", "eventhorizon"]
    _choose_buoyz(small_campaign, alice)
    assert small_campaign.options["battle_book"] == "buoyz"
    entry = AuditEntry.objects.filter(campaign=small_campaign, action="set_option").latest("pk")
    assert entry.after == {"battle_book": "buoyz"} and entry.before == {"battle_book": ""}
    with pytest.raises(campaign_actions.ActionError, match="cannot be fought on the rule book 'chess'"):
        campaign_actions.set_campaign_option(campaign_id=small_campaign.pk, user=alice, key="battle_book",
                                             value="chess")
    small_campaign.refresh_from_db()
    assert small_campaign.options["battle_book"] == "buoyz"  # the refusal changed nothing


def test_an_embedded_battle_is_fought_on_buoyz_and_its_result_goes_back_to_the_turn(small_campaign, alice):
    _choose_buoyz(small_campaign, alice)
    turn = contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    assert battle.ruleset == "buoyz" and battle.converted
    layer = battle.layer_setup
    assert layer["hex"] and layer["sides"]["1"]["ships"][0]["design"]["hull"] > 0
    # XC1: the Event Horizon ships are Buoyz SDs, one per ship, mapped back by id
    sds = [e["sd"] for side in ("1", "2") for e in battle.setup["sides"][side]["ships"]]
    assert all(isinstance(sd, dict) and sd["key"].startswith("eh-") for sd in sds)
    assert battle.log.filter(kind="converted").exists()
    state = embedded.current_state(battle)
    assert state.battle.ships and battle.status == "playing"  # a Buoyz state, fought online
    # Once the option has a battle behind it, it can no longer change.
    with pytest.raises(campaign_actions.ActionError, match="first battle"):
        campaign_actions.set_campaign_option(campaign_id=small_campaign.pk, user=alice, key="battle_book",
                                             value="eventhorizon")
    # The deadline hands both sides to the computer, which plays it out on Buoyz.
    assert actions.settle_due_battles(now=battle.deadline + timedelta(minutes=1)) == 1
    battle.refresh_from_db()
    turn.refresh_from_db()
    assert battle.status == "resolved" and battle.resolved_how == "tactical"
    over = battle.log.get(kind="tactical_over")
    assert "turn(s)" in over.text  # the Buoyz summary
    # The result is Event Horizon's: every ship of the hex, fates of docs/battles.md "Result"
    ids = {s["id"] for side in ("1", "2") for s in layer["sides"][side]["ships"]}
    assert {s["ship"] for s in battle.result["ships"]} == ids
    assert {s["fate"] for s in battle.result["ships"]} <= {"survived", "destroyed", "captured", "warped_out"}
    assert turn.status == Turn.Status.DONE  # the campaign took it up
    numbers = set(Ship.objects.filter(campaign=small_campaign).values_list("number", flat=True))
    destroyed = {s["ship"] for s in battle.result["ships"] if s["fate"] == "destroyed"}
    kept = {s["ship"] for s in battle.result["ships"] if s["fate"] in ("survived", "warped_out")}
    assert destroyed or kept
    assert not destroyed & numbers and kept <= numbers  # destroyed ships are gone, the rest fight on


def test_the_moderation_panel_offers_the_books_until_the_first_battle(client, small_campaign, alice):
    client.force_login(alice)
    page = client.get(f"/campaigns/{small_campaign.pk}/moderate/").content.decode()
    assert "Battles fought online use" in page and 'value="buoyz"' in page
    response = client.post(f"/campaigns/{small_campaign.pk}/moderate/options/", {"battle_book": "buoyz"})
    assert response.status_code == 302
    small_campaign.refresh_from_db()
    assert small_campaign.options["battle_book"] == "buoyz"
    assert AuditEntry.objects.filter(campaign=small_campaign, action="set_option", after={"battle_book": "buoyz"})
    response = client.post(f"/campaigns/{small_campaign.pk}/moderate/options/", {"battle_book": "go"})
    assert response.status_code == 400 and b"cannot be fought on the rule book" in response.content
    small_campaign.refresh_from_db()
    assert small_campaign.options["battle_book"] == "buoyz"


def test_export_and_import_carry_the_rule_book(small_campaign, alice):
    from campaign.eventhorizon.exchange import export_campaign

    _choose_buoyz(small_campaign, alice)
    doc = export_campaign(small_campaign)
    assert doc["campaign"]["options"]["battle_book"] == "buoyz"
    copy = eh_actions.import_campaign(doc)
    assert copy.options["battle_book"] == "buoyz"
    doc["campaign"]["options"]["battle_book"] = "nosuchbook"
    count = type(small_campaign).objects.count()
    with pytest.raises(campaign_actions.ActionError, match="cannot be fought on the rule book 'nosuchbook'"):
        eh_actions.import_campaign(doc)
    assert type(small_campaign).objects.count() == count


def test_a_tabletop_battle_prints_the_ships_on_the_chosen_book(client, small_campaign, alice, bob, mallory):
    _choose_buoyz(small_campaign, alice)
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    assert not battle.converted and battle.ruleset == "eventhorizon"  # the table enters the result as today
    client.force_login(bob)
    page = client.get(f"/battles/{battle.pk}/").content.decode()
    assert 'id="record-sheets"' in page and "Buoyz" in page
    sheets = client.get(f"/battles/{battle.pk}/sheets/").content.decode()
    ships = sum(len(s["ships"]) for s in battle.setup["sides"].values())
    assert sheets.count('<section class="sheet">') == ships and "Buoyz 'N Da 'Hood SD (000 1.5)" in sheets
    client.force_login(mallory)  # an outsider: 404, as for the battle page
    assert client.get(f"/battles/{battle.pk}/sheets/").status_code == 404


def test_the_lobby_offers_the_books_and_records_the_choice(client, alice):
    client.force_login(alice)
    page = client.get("/lobby/new/").content.decode()
    assert "Battles fought online use" in page and 'value="buoyz"' in page
    campaign = eh_actions.create_lobby(moderator=alice, name="Mixed", width=10, height=10, seats=2,
                                             options={"battle_book": "buoyz"})
    assert campaign.options["battle_book"] == "buoyz"
    own = eh_actions.create_lobby(moderator=alice, name="Own", width=10, height=10, seats=2,
                                        options={"battle_book": "eventhorizon"})
    assert "battle_book" not in own.options  # its own book: nothing recorded
    with pytest.raises(campaign_actions.ActionError, match="cannot be fought on the rule book 'chess'"):
        eh_actions.create_lobby(moderator=alice, name="Bad", width=10, height=10, seats=2,
                                      options={"battle_book": "chess"})


def test_the_lobby_settings_name_the_book_battles_are_fought_on(client, alice):
    """The lobby's settings said "Battles fought online use: on" (a switch's yes/no) for a chosen
    book, and "off" for the campaign's own: a newcomer could not tell which book was chosen."""
    client.force_login(alice)
    mixed = eh_actions.create_lobby(moderator=alice, name="Mixed", width=10, height=10, seats=2,
                                    options={"battle_book": "printplay"})
    own = eh_actions.create_lobby(moderator=alice, name="Own", width=10, height=10, seats=2)
    rows = {}
    for campaign in (mixed, own):
        page = client.get(f"/lobby/{campaign.pk}/").content.decode()
        row = page.split("<td>Battles fought online use</td>")[1].split("</tr>")[0]
        rows[campaign.name] = row
    assert "Star Trek Print&amp;Play" in rows["Mixed"] and ">on<" not in rows["Mixed"]
    assert "Event Horizon" in rows["Own"] and ">off<" not in rows["Own"]
    page = client.get(f"/lobby/{own.pk}/").content.decode()
    assert "<td>Planetary economy types</td><td>on</td>" in page  # the switches still say on or off


def test_the_api_sets_the_rule_book_and_refuses_a_book_it_cannot_fight_on(client, small_campaign, alice, bob):
    url = f"/api/campaigns/{small_campaign.pk}/options/"
    client.force_login(bob)  # a player, not a moderator
    assert client.patch(url, {"battle_book": "buoyz"}, content_type="application/json").status_code in (403, 404)
    client.force_login(alice)
    response = client.patch(url, {"battle_book": "buoyz"}, content_type="application/json")
    assert response.status_code == 200 and response.json()["options"]["battle_book"] == "buoyz"
    response = client.patch(url, {"battle_book": 7}, content_type="application/json")
    assert response.status_code == 400
    small_campaign.refresh_from_db()
    assert small_campaign.options["battle_book"] == "buoyz"


def test_a_tabletop_battle_switched_online_is_fought_on_the_chosen_book(small_campaign, alice):
    _choose_buoyz(small_campaign, alice)
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    actions.change_mode(battle_id=battle.pk, user=alice, mode="tactical")
    battle.refresh_from_db()
    assert battle.converted and battle.ruleset == "buoyz" and battle.status == "playing"
    assert embedded.current_state(battle).battle.ships  # a Buoyz state


def test_the_create_forms_put_the_book_beside_the_battle_mode_and_explain_it(client, alice):
    """The option sat at the end of both create forms, far from the battle mode it goes with, and
    its help read "printed in for the tabletop" and "house rulings XC…"; the battle mode's help did
    not say that the embedded resolver plays on the book chosen."""
    client.force_login(alice)
    for url, before in (("/lobby/new/", 'name="battle_mode"'), ("/lobby/new/?layer=cam", 'name="scenario_mode"')):
        page = client.get(url).content.decode()
        mode, book = page.index(before), page.index('name="option_battle_book"' if "cam" not in url else
                                                    'name="battle_book"')
        fields = [page.index(f'name="{n}"', mode + 1) for n in ("seed",) if f'name="{n}"' in page[mode + 1:]]
        assert mode < book and all(book < f for f in fields), url  # next to the mode, before what follows
        assert "printed in for" not in page and "XC…" not in page
        assert "house rulings XC1–XC51, each battle page names the ones it uses" in page
        assert "docs/" not in page  # no repository file names on pages (tests/campaign/test_page_words.py)
    page = client.get("/lobby/new/").content.decode()
    assert "on the rule book chosen under \"Battles fought online use\"" in page
