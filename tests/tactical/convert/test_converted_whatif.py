"""What-if from a campaign's fleets on the rule book its moderator chose (issue 31 item 3;
tactical/whatif/converted.py): a CAM scenario's forces on Star Trek Print&Play and an Event
Horizon battle's sides on My Trek V, each converted as the online battle between them is and
fought K times on that book (the page, the API, the run page with win rates); fog of war and
permissions as for the battle and the scenario (an outsider 404, a CAM player 403 while the
other force is hidden); a campaign on its own book is sent to its own what-if (400)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign import actions as platform
from campaign.cam import actions as cam_actions
from campaign.cam import online
from tactical.models import Battle, WhatIfRun
from tactical.whatif import pool
from tests.cam.conftest import make_cam, ship_numbers
from tests.tactical.battle_support import contact_turn

pytestmark = pytest.mark.django_db
API = "/api/what-if/converted/"
NEW = "/what-if/converted/new/"


@pytest.fixture
def in_process(settings, eager_tasks):
    """Runs played when their transaction commits, in this thread (no worker, no thread)."""
    settings.WHATIF_IN_BACKGROUND = False
    settings.WHATIF_PROCESSES = 1


def _post(client, data):
    return client.post(API, data, content_type="application/json")


def test_a_cam_scenario_is_fought_k_times_on_print_and_play(
        client, alice, bob, carol, mallory, in_process, django_capture_on_commit_callbacks):
    c = make_cam(alice, bob, carol)
    platform.set_campaign_option(campaign_id=c.pk, user=alice, key="battle_book", value="printplay")
    cam_actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    online.set_mode(campaign_id=c.pk, user=alice, number=1, mode="online")
    cam_actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:2])
    cam_actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    ask = {"campaign": c.pk, "scenario": 1, "trials": 6, "seed": "xc-what-if"}
    client.force_login(bob)  # forces are chosen blind (CAM 2.2): carol's is hidden from bob until the table
    r = _post(client, ask)
    assert r.status_code == 403 and "hidden" in r.json()["detail"]
    cam_actions.roll_table(campaign_id=c.pk, user=bob)
    battle = Battle.objects.get(campaign=c)
    assert battle.ruleset == "printplay" and battle.converted
    # The scenario page and the battle page link to it.
    page = client.get(reverse("cam-scenario", args=[c.pk, 1])).content.decode()
    assert 'id="converted-whatif-link"' in page and "What-if on Star Trek Print&amp;Play" in page
    assert '<strong id="scenario-mode">Fought online on Star Trek Print&amp;Play</strong>' in page  # not "Buoyz"
    # An outsider: 404 everywhere, the same as for a scenario or battle that does not exist.
    client.force_login(mallory)
    for data in (ask, {"battle": battle.pk, "trials": 6}, {**ask, "scenario": 9}):
        assert _post(client, data).status_code == 404
    assert client.get(f"{NEW}?campaign={c.pk}&scenario=1").status_code == 404
    assert client.get(f"{NEW}?battle={battle.pk}").status_code == 404
    assert not WhatIfRun.objects.exists()
    # Bob opens the page: both forces as they stand, the book named; runs it from the page.
    client.force_login(bob)
    form = client.get(f"{NEW}?campaign={c.pk}&scenario=1")
    text = form.content.decode()
    assert form.status_code == 200 and "Bob&#x27;s Squadron" in text and "Carol&#x27;s Raiders" in text
    assert 'id="whatif-book">Star Trek Print&amp;Play' in text
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(NEW, {"campaign": c.pk, "scenario": 1, "trials": 6, "seed": "xc-what-if"})
    assert r.status_code == 302
    run = WhatIfRun.objects.get()
    assert run.status == WhatIfRun.Status.DONE, run.error
    assert run.campaign_id == c.pk and run.params["book"] == "printplay" and run.params["layer"] == "cam"
    wins = run.result["wins"]
    assert set(wins) == {"1", "2", "draw"} and sum(wins.values()) == 6
    assert set(run.result["mean_lost"]) == {"1", "2"}
    # The job is the setup an online battle between them starts from (the converter's own).
    assert run.params["job"]["setup"]["converted"]["layer"] == "cam"
    assert {u["uid"] for u in run.params["job"]["layer_setup"]["sides"]["1"]["units"]} == \
        {u["uid"] for u in battle.layer_setup["sides"]["1"]["units"]}
    # Its page: each side's win rate with its Wilson interval; the API: the same.
    detail = client.get(reverse("whatif-detail", args=[run.pk])).content.decode()
    assert 'id="whatif-converted-results"' in detail and "Bob&#x27;s Squadron" in detail and "Wilson" in detail
    assert f'href="{reverse("cam-scenario", args=[c.pk, 1])}" id="whatif-source"' in detail  # back to it
    data = client.get(f"/api/what-if/{run.pk}/").json()
    assert data["kind"] == "converted" and data["book"] == "printplay" and data["source"]["scenario"] == 1
    assert sum(r["wins"] for r in data["win_rates"]) == 6
    assert {r["label"] for r in data["win_rates"]} == {"Bob's Squadron", "Carol's Raiders", "Nobody"}
    assert "Star Trek Print&amp;Play" in client.get(reverse("whatif-list")).content.decode()
    # Reproducible: the same seed through the API (from the battle this time) gives the same tally.
    with django_capture_on_commit_callbacks(execute=True):
        r = _post(client, {"battle": battle.pk, "trials": 6, "seed": "xc-what-if"})
    assert r.status_code == 201, r.content
    again = WhatIfRun.objects.get(pk=r.json()["id"])
    assert again.result["wins"] == wins and again.params["job"] == run.params["job"]
    # Mallory cannot read bob's runs.
    client.force_login(mallory)
    assert client.get(f"/api/what-if/{run.pk}/").status_code == 404


def test_an_event_horizon_battle_is_fought_k_times_on_my_trek(
        small_campaign, client, alice, bob, mallory, in_process, django_capture_on_commit_callbacks):
    platform.set_campaign_option(campaign_id=small_campaign.pk, user=alice, key="battle_book", value="mytrek")
    contact_turn(small_campaign, "tactical", ships_per_side=2)
    battle = Battle.objects.get()
    assert battle.ruleset == "mytrek" and battle.converted
    client.force_login(bob)
    page = client.get(reverse("battle-detail", args=[battle.pk])).content.decode()
    assert 'id="converted-whatif-link"' in page and "What-if on My Trek V" in page
    form = client.get(f"{NEW}?battle={battle.pk}").content.decode()
    assert "Bob&#x27;s Realm" in form and "Carol&#x27;s Combine" in form and "BP" in form
    with django_capture_on_commit_callbacks(execute=True):
        r = _post(client, {"battle": battle.pk, "trials": 4, "seed": "eh-on-mt"})
    assert r.status_code == 201, r.content
    run = WhatIfRun.objects.get()
    assert run.status == WhatIfRun.Status.DONE, run.error
    assert run.params["layer"] == "eventhorizon" and run.params["book"] == "mytrek"
    assert run.params["job"]["seats"] == [battle.attacker, battle.defender]
    assert sum(run.result["wins"].values()) == 4
    # The tally is the pure trial's, battle by battle (the result converted back to Event Horizon's).
    job = run.params["job"]
    tally = pool.play_run("converted", job, "eh-on-mt", 4)
    assert tally.result() == {k: v for k, v in run.result.items() if k != "seconds"}
    ships = {s["id"] for side in job["layer_setup"]["sides"].values() for s in side["ships"]}
    assert len(ships) == 4
    # Nobody else: 404; bad requests: 400 naming the problem, nothing created.
    client.force_login(mallory)
    assert _post(client, {"battle": battle.pk}).status_code == 404
    client.force_login(bob)
    for bad, words in (({"battle": battle.pk, "colour": "red"}, "unknown field"),
                       ({"battle": "x"}, "whole number"), ({}, "name a battle"),
                       ({"battle": battle.pk, "trials": 0}, "trials must be")):
        r = _post(client, bad)
        assert r.status_code == 400 and words in r.json()["detail"], (bad, r.content)
    assert WhatIfRun.objects.count() == 1
    # Both pages lead back to the battle they came from (they led only to "All your what-if runs").
    back = f'href="{reverse("battle-detail", args=[battle.pk])}" id="whatif-source"'
    assert back in client.get(f"{NEW}?battle={battle.pk}").content.decode()
    detail = client.get(reverse("whatif-detail", args=[run.pk])).content.decode()
    assert back in detail and "of this Event Horizon battle on" in detail  # not "of a Event Horizon campaign's"


def test_a_campaign_on_its_own_book_is_sent_to_its_own_what_if(client, alice, bob, carol):
    c = make_cam(alice, bob, carol)
    cam_actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    cam_actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:1])
    cam_actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:1])
    cam_actions.roll_table(campaign_id=c.pk, user=bob)  # a tabletop scenario, on Buoyz (CAM's own)
    client.force_login(bob)
    r = _post(client, {"campaign": c.pk, "scenario": 1})
    assert r.status_code == 400 and "own rule book" in r.json()["detail"]
    assert 'id="converted-whatif-link"' not in client.get(reverse("cam-scenario", args=[c.pk, 1])).content.decode()
    assert not WhatIfRun.objects.exists()


def test_a_ship_named_after_its_design_is_listed_once():
    """The converted what-if's forces read "Cyber-Corsair Galiot Class Corvette (Cyber-Corsair Galiot
    Class Corvette)" for a ship that carries its design's name (found on a newcomer's walk)."""
    from campaign.rules.eventhorizon.designs import GALIOT, SULTAN
    from tactical.whatif.converted import forces_of

    setup = {"sides": {"1": {"name": "Empire", "ships": [{"name": "", "design": GALIOT.to_dict()},
                                                         {"name": GALIOT.name, "design": GALIOT.to_dict()},
                                                         {"name": "Saladin", "design": SULTAN.to_dict()}]}}}
    [side] = forces_of("eventhorizon", setup, [1])
    assert [r["name"] for r in side["ships"]] == [GALIOT.name, GALIOT.name, f"Saladin ({SULTAN.name})"]
    assert side["points"] == 2 * GALIOT.bp + SULTAN.bp
