"""Print&Play pickup battles (issue 30): /battles/new/ offers the book; a four-sided battle (two
people, two computer seats: the dice bag, 001 Initiative) is built, started and fought to its end
through the pickup and play APIs, every page and the replay answering; the hidden-ship fog of war
(ruling PP7) holds on the page."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tactical.hosts.pickup.books import available, book
from tactical.models import Battle, BattleStep, PickupBattle
from tactical.play import embedded
from tests.tactical.pickup.test_pickup_sides import _play_to_the_end

pytestmark = pytest.mark.django_db
PP = "printplay"


def api(user=None) -> APIClient:
    c = APIClient()
    if user is not None:
        c.force_login(user)
    return c


def test_the_new_battle_page_offers_print_and_play(client, bob):
    assert PP in [name for name, _, _ in available()]
    assert book(PP).max_sides == 6
    client.force_login(bob)
    page = client.get(reverse("pickup-new")).content.decode()
    assert 'value="printplay"' in page and "Star Trek Print&amp;Play" in page


def test_the_offers_are_the_house_roster_by_points():
    offers = book(PP).offers(None)
    assert {o.key for o in offers} >= {"constitution", "b_rel", "talon", "jem_hadar_fighter", "borg_cube"}
    assert [o.points for o in offers] == sorted(o.points for o in offers)
    assert any("the book's dashboard" in o.detail for o in offers if o.key == "constitution")


def test_a_four_sided_battle_two_people_two_computers_is_fought_to_its_end(bob, carol, mallory):
    res = api(bob).post("/api/pickup/", {"ruleset": PP, "points": 120, "opponent": "link", "sides": 4,
                                         "others": ["computer", "computer"], "activation_hours": 24}, format="json")
    assert res.status_code == 201, res.content
    pickup = PickupBattle.objects.get(pk=res.json()["id"])
    assert api(carol).post("/api/pickup/accept/", {"token": pickup.invite_token}, format="json").status_code == 200
    assert (
        api(bob)
        .post(f"/api/pickup/{pickup.pk}/fleet/", {"ships": ["b_rel", "saber"]}, format="json")
        .status_code
        == 200
    )
    done = api(carol).post(f"/api/pickup/{pickup.pk}/fleet/", {"ships": ["talon", "borg_probe"]}, format="json")
    assert done.status_code == 200 and done.json()["status"] == "playing", done.content
    battle = Battle.objects.get(pk=done.json()["battle"])
    assert battle.ruleset == PP and battle.seats == (1, 2, 3, 4) and sorted(battle.doctrine_sides) == [3, 4]
    state = embedded.current_state(battle)
    assert state.mode == "bag" and state.sides == (1, 2, 3, 4) and state.mat == (72.0, 48.0)
    assert [t.kind for t in state.terrain] == ["asteroids", "nebula"] and 1 <= state.terrain[1].nebula <= 6  # PP21
    page = api(bob).get(reverse("battle-play", args=[battle.pk])).content.decode()
    assert "pp-shield" in page and 'id="pp-ships"' in page
    assert api(mallory).get(reverse("battle-play", args=[battle.pk])).status_code == 404

    final = _play_to_the_end({1: bob, 2: carol}, battle.pk, hand_over_after=6)
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and final["over"]
    assert {s["side"] for s in battle.result["ships"]} == {1, 2, 3, 4}
    assert BattleStep.objects.filter(battle=battle, side=3, by_doctrine=True).exists()
    assert BattleStep.objects.filter(battle=battle, side=1, by_doctrine=False).exists()
    for user in (bob, carol):
        replay = api(user).get(reverse("battle-replay", args=[battle.pk]))
        assert replay.status_code == 200 and b"Ships after this step" in replay.content
        assert api(user).get(reverse("battle-detail", args=[battle.pk])).status_code == 200
        assert b'id="battle-over"' in api(user).get(reverse("battle-play", args=[battle.pk])).content


def test_the_sites_what_if_runner_fights_a_print_and_play_run(bob):
    """The registered Trial's runner (``Trial.run``): a stored run of four random 120-point fleets is
    fought by ``tactical.whatif.runs.run_what_if`` and its tally stored; the same as the pool's."""
    from tactical.models import WhatIfRun
    from tactical.whatif import pool
    from tactical.whatif.runs import run_what_if

    job = {"random": {"sides": 4, "points": 120}}
    run = WhatIfRun.objects.create(user=bob, params={"ruleset": PP, "seed": "s", "job": job}, trials=6)
    done = run_what_if(run.pk)
    assert done.status == WhatIfRun.Status.DONE, done.error
    assert done.result["trials"] == 6 and set(done.result["wins"]) == {"1", "2", "3", "4", "draw"}
    assert {k: v for k, v in done.result.items() if k != "seconds"} == pool.play_run(PP, job, "s", 6).result()


def test_each_side_has_its_pickup_colour_on_the_play_page_not_grey(bob):
    """The play page's status card draws a swatch per side from the set-up's colour; Print&Play's
    set-up stored none, so every swatch fell back to grey (#999)."""
    from tactical.hosts.pickup.actions import COLOURS

    res = api(bob).post("/api/pickup/", {"ruleset": PP, "points": 60, "opponent": "computer", "sides": 3,
                                         "others": ["computer"]}, format="json")
    assert res.status_code == 201, res.content
    done = api(bob).post(f"/api/pickup/{res.json()['id']}/fleet/", {"ships": ["saber"]}, format="json")
    assert done.status_code == 200, done.content
    battle = Battle.objects.get(pk=done.json()["battle"])
    assert {seat: side["colour"] for seat, side in battle.setup["sides"].items()} == \
        {"1": COLOURS[1], "2": COLOURS[2], "3": COLOURS[3]}
    page = api(bob).get(reverse("battle-play", args=[battle.pk])).content.decode()
    for seat in (1, 2, 3):
        assert f'style="background:{COLOURS[seat]}"' in page
    assert 'style="background:#999"' not in page
    assert f'fill="{COLOURS[1]}"' in page  # the board draws his ships in the same colour
