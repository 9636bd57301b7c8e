"""Buoyz 'N Da 'Hood played online through the generic play layer (tactical/rules/buoyz/play/;
tactical/play/): a battle set up directly (no CAM campaign: a ``Battle`` with ruleset "buoyz"
whose setup lists SDs), played to its end through the play API by two players, or with the
doctrine taking a side; and fog of war — a cloaked ship's position is in no answer the other
side can fetch (rulings BZP1–BZP4; 000 10.2, 10.3)."""

from __future__ import annotations

import json
import random

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import DiceRoll
from campaign.rules.dice import SeededDice
from tactical.models import Battle, BattleStep
from tactical.play import actions as play
from tactical.play import embedded
from tactical.rules import registry
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz import board
from tactical.rules.buoyz import play as bp
from tactical.rules.buoyz.engine import legal_actions, systems, turning
from tactical.rules.buoyz.sds import random_fleet
from tactical.rules.play import Viewer
from tests.tactical.play_support import patch_record_result

RULES = registry.find_play("buoyz")
HIDDEN_AT = (13.37, 40.71)  # a position no other number on the table is likely to share


@pytest.fixture
def record(monkeypatch):
    return patch_record_result(monkeypatch)


def client_for(user):
    """An API client that is also logged in for the pages."""
    c = APIClient()
    c.force_authenticate(user)
    c.force_login(user)
    return c


def buoyz_battle(campaign, setup) -> Battle:
    battle = Battle.objects.create(
        campaign=campaign, turn=campaign.turn, index=1, x=0, y=0, attacker=setup["attacker"],
        defender=setup["defender"], mode=Battle.Mode.TACTICAL, status=Battle.Status.WAITING, ruleset="buoyz",
        setup=setup)
    play.start_embedded(battle)
    battle.refresh_from_db()
    return battle


def small_setup(seed: int, turn_cap: int = 4) -> dict:
    rng = random.Random(seed)
    return bp.setup_for({1: random_fleet(rng, 3, 14), 2: random_fleet(rng, 3, 14)},
                        names={1: "Bob's Realm", 2: "Carol's Combine"}, colours={1: "#cc3333", 2: "#3366cc"},
                        turn_cap=turn_cap)


def cloak_setup() -> dict:
    """Bob's Constitution against Carol's War Talon, which starts cloaked far from it, and her
    B'Rel, lurking unseen in the 2' square [0, 1] (ship 3)."""
    setup = bp.setup_for({1: ["constitution"], 2: ["war_talon", "b_rel"]},
                         names={1: "Bob's Realm", 2: "Carol's Combine"}, turn_cap=3)
    setup["sides"]["2"]["ships"][0].update({"x": HIDDEN_AT[0], "y": HIDDEN_AT[1], "heading": 90, "cloaked": True})
    setup["sides"]["2"]["ships"][1]["lurking"] = [0, 1]
    return setup


LURKER = 3


# --- pure: the codec, the setup, fog ------------------------------------------------------------

def test_every_legal_action_of_a_whole_battle_round_trips_through_the_json_codec():
    dice = SeededDice(b"buoyz play codec test")
    state = RULES.initial_state(small_setup(1, turn_cap=3), dice)
    seen = set()
    while not RULES.is_over(state):
        for action in legal_actions(state.battle):
            data = json.loads(json.dumps(bp.to_json(action)))
            assert bp.from_json(data) == action
            assert bp.describe(data)
            seen.add(data["type"])
        side = RULES.acting_side(state)
        if side is None:
            state = RULES.automatic_step(state, dice)[0].state
        else:
            state = RULES.apply(state, RULES.doctrine_action(state, side), dice).state
    assert {"begin", "move", "fire"} <= seen
    assert RULES.result(state)["turns"] <= 3


@pytest.mark.parametrize(
    "data, words",
    [
        ([], "JSON object"),
        ({"type": "warp"}, "unknown action type"),
        ({"type": "move", "ship": 1, "speed": 3}, "no field"),
        ({"type": "move", "ship": "x"}, "whole number"),
        ({"type": "move", "ship": 1, "after": float("nan")}, "inches"),
        ({"type": "move", "ship": 1, "after": 1e9}, "inches"),
        ({"type": "special", "ship": 1, "action": "teleport"}, "Special"),
        ({"type": "fire", "ship": 1, "shots": [["main0", 2]]}, "[weapon, target, dice]"),
        ({"type": "fly", "flight": 1, "to": [1]}, "[x, y]"),
        ({"type": "move", "ship": 1, "lay_mine": "yes"}, "true or false"),
    ],
)
def test_bad_action_json_is_refused_with_the_format_rule(data, words):
    with pytest.raises(bp.ActionFormatError, match=words):
        bp.from_json(data)


@pytest.mark.parametrize("change, words", [
    (lambda s: s["sides"]["1"]["ships"].append({"sd": "enterprise_z"}), "no SD"),
    (lambda s: s["sides"]["1"]["ships"][0].update({"cloaked": True}), "no cloaking device"),
    (lambda s: s["sides"]["1"]["ships"][0].update({"lurking": [0, 0]}), "no cloaking device"),
    (lambda s: s["sides"]["2"]["ships"][1].update({"lurking": [9, 9]}), "no 2' square"),
    (lambda s: s["sides"]["2"]["ships"][1].update({"lurking": "north"}), "column, row"),
    (lambda s: s["sides"]["2"]["ships"][0].update({"x": "near"}), "number"),
    (lambda s: s["sides"].pop("2"), "no side"),
    (lambda s: s.update({"objects": [{"kind": "black_hole", "x": 1, "y": 1, "radius": 1}]}), "planet, moon"),
])
def test_a_setup_the_table_cannot_take_is_refused(change, words):
    setup = cloak_setup()
    change(setup)
    with pytest.raises(bp.SetupError, match=words):
        bp.initial_state(setup)


def test_the_setup_places_ships_objects_and_a_starting_cloak():
    setup = cloak_setup()
    setup["objects"] = [{"kind": "planet", "x": 36, "y": 24, "radius": 3}]
    battle = bp.initial_state(setup).battle
    talon = next(s for s in battle.ships if s.side == 2)
    assert talon.pos == HIDDEN_AT and talon.heading == 90 and talon.cloaked
    lurker = battle.ship(LURKER)
    assert lurker.status == "lurking" and lurker.zone == (0, 1) and lurker.cloaked
    assert [(o.kind, o.centre, o.radius) for o in battle.objects] == [("planet", (36.0, 24.0), 3.0)]
    assert battle.turn_cap == 3 and battle.table == (72.0, 48.0)


def test_the_board_is_drawn_to_scale_and_hides_a_cloaked_enemy():
    state = bp.initial_state(cloak_setup()).battle
    talon = next(s for s in state.ships if s.side == 2)
    connie = next(s for s in state.ships if s.side == 1)
    mine = board.render(state, viewer_side=2, selected=talon.id)
    theirs = board.render(state, viewer_side=1, selected=connie.id)
    everyone = board.render(state, viewer_side=None)
    assert f'width="{72 * board.SCALE + 2 * board.MARGIN}"' in everyone
    assert f'data-ship="{talon.id}"' in mine and f'data-ship="{talon.id}"' in everyone
    assert f'data-ship="{talon.id}"' not in theirs
    x_px = round(board.MARGIN + HIDDEN_AT[0] * board.SCALE, 2)
    assert str(x_px) in mine and str(x_px) not in theirs
    # The selected ship's fire arcs (one wedge per weapon system and arc) and turning template.
    assert theirs.count('class="arc"') == sum(len(w.arcs) for w in systems(connie))
    assert theirs.count('class="turn"') == 2 * turning(connie) + 1


def test_events_naming_a_cloaked_ship_are_its_own_sides_only():
    dice = SeededDice(b"buoyz play fog events test")
    state = RULES.initial_state(cloak_setup(), dice)
    state = RULES.automatic_step(state, dice)[0].state
    while RULES.acting_side(state) != 2 or state.battle.phase != "movement":
        state = RULES.apply(state, RULES.doctrine_action(state, RULES.acting_side(state)), dice).state
    talon = next(s for s in state.battle.ships if s.side == 2)
    move = next(a for a in legal_actions(state.battle) if isinstance(a, A.Move) and a.ship == talon.id and a.after >= 1)
    step = RULES.apply(state, move, dice)
    moved = [e for e in step.events if e.kind == "move"]
    assert moved and all(e.sides == (2,) for e in moved)
    assert not RULES.visible_events(step.events, 1) or all(f"({talon.id})" not in e.text
                                                          for e in RULES.visible_events(step.events, 1))
    assert moved[0] in RULES.visible_events(step.state.log, 2) and moved[0] in RULES.visible_events(
        step.state.log, None
    )


# --- through the play API ----------------------------------------------------------------------

def _play_to_the_end(battle, users, choose, limit=600):
    """The acting side's player posts ``choose(state json, battle state)`` until the battle ends."""
    for _ in range(limit):
        battle.refresh_from_db()
        if battle.status != Battle.Status.PLAYING:
            return
        state = embedded.current_state(battle)
        side = RULES.acting_side(state)
        answer = client_for(users[side]).get(reverse("api-battle-state", args=[battle.pk])).json()
        assert answer["your_turn"] and answer["legal"], answer
        resp = client_for(users[side]).post(reverse("api-battle-action", args=[battle.pk]), choose(answer, state, side),
                                            format="json")
        assert resp.status_code == 200, resp.content
    raise AssertionError("the battle did not end")


def test_two_players_fight_a_buoyz_battle_to_its_end_through_the_play_api(small_campaign, bob, carol, record):
    battle = buoyz_battle(small_campaign, small_setup(7))
    assert battle.status == Battle.Status.PLAYING and battle.steps.filter(action={"type": "begin"}).count() == 1
    users = {1: bob, 2: carol}

    def doctrine_json(answer, state, side):
        data = RULES.action_json(RULES.doctrine_action(state, side))
        assert any(data in acts for acts in answer["legal"].values()) or data["type"] in ("move", "fire", "fly")
        return data

    _play_to_the_end(battle, users, doctrine_json)
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and len(record.calls) == 1
    result = record.calls[0]["result"]
    final = embedded.current_state(battle)
    assert result == RULES.result(final) and final.battle.over and result["turns"] <= 4
    assert not BattleStep.objects.filter(battle=battle, side__isnull=False, by_doctrine=True).exists()
    # Every die is in the campaign's log and the replay reproduces the battle.
    frames = embedded.states(battle)
    assert frames[-1].state == final
    assert sum(len(f.dice) for f in frames) == DiceRoll.objects.filter(phase=battle.dice_phase).count() > 0
    page = client_for(bob).get(reverse("battle-replay", args=[battle.pk]) + f"?step={len(frames) - 1}")
    assert page.status_code == 200 and "Ships after this step" in page.content.decode()
    assert client_for(carol).get(reverse("battle-play", args=[battle.pk])).status_code == 200


def test_the_doctrine_takes_a_side_and_the_other_plays_on_to_the_end(small_campaign, bob, carol, record):
    battle = buoyz_battle(small_campaign, small_setup(11))
    resp = client_for(bob).post(reverse("api-battle-doctrine", args=[battle.pk]), {"on": True}, format="json")
    assert resp.status_code == 200 and resp.json()["doctrine_sides"] == [1]
    battle.refresh_from_db()
    if battle.status == Battle.Status.PLAYING:
        assert RULES.acting_side(embedded.current_state(battle)) == 2  # the doctrine played bob's nominations

    def first_legal(answer, state, side):
        return next(iter(answer["legal"].values()))[0]

    _play_to_the_end(battle, {2: carol}, first_legal)
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and record.calls
    steps = BattleStep.objects.filter(battle=battle, side__isnull=False)
    assert steps.filter(side=1, by_doctrine=True).exists() and not steps.filter(side=1, by_doctrine=False).exists()
    assert (
        steps.filter(side=2, by_doctrine=False, user=carol).exists()
        and not steps.filter(side=2, by_doctrine=True).exists()
    )


def test_a_bad_or_foreign_action_is_refused_and_changes_nothing(small_campaign, bob, carol, record):
    battle = buoyz_battle(small_campaign, small_setup(3))
    state = embedded.current_state(battle)
    side = RULES.acting_side(state)
    me, other = (bob, carol) if side == 1 else (carol, bob)
    url = reverse("api-battle-action", args=[battle.pk])
    before = battle.steps.count()
    resp = client_for(me).post(url, {"type": "move", "ship": "x"}, format="json")
    assert resp.status_code == 400 and resp.json()["rule"] == bp.FORMAT_RULE
    enemy = next(s.id for s in state.battle.ships if s.side != side)
    resp = client_for(me).post(url, {"type": "move", "ship": enemy, "after": 1}, format="json")
    assert resp.status_code == 400 and "not yours" in resp.json()["detail"]
    resp = client_for(other).post(url, bp.to_json(legal_actions(state.battle)[0]), format="json")
    assert resp.status_code == 409
    assert battle.steps.count() == before


def _positions(battle) -> set[str]:
    """Every way the hidden ship's current position could be written."""
    talon = next(s for s in embedded.current_state(battle).battle.ships if s.side == 2)
    assert talon.cloaked and not talon.detected
    x, y = talon.pos
    px = (round(board.MARGIN + x * board.SCALE, 2), round(board.MARGIN + (48 - y) * board.SCALE, 2))
    return {json.dumps(x), json.dumps(y), f"{x:g}, {y:g}", f"{x:g}", f"{y:g}", str(px[0]), str(px[1])}


def test_a_cloaked_ships_position_is_absent_from_every_answer_to_the_other_side(small_campaign, bob, carol, record):
    battle = buoyz_battle(small_campaign, cloak_setup())
    talon = next(s for s in embedded.current_state(battle).battle.ships if s.side == 2).id
    bob_c = client_for(bob)
    answers: list[tuple[str, set[str]]] = []  # (what bob received, where the talon was)

    def bob_looks():
        where = _positions(battle)
        total = battle.steps.count()
        urls = [reverse("api-battle-state", args=[battle.pk]), reverse("battle-play", args=[battle.pk])]
        urls += [
            reverse("battle-replay", args=[battle.pk]) + f"?step={step}&frame=1"
            for step in (total, max(0, total - 1))
        ]
        for url in urls:
            resp = bob_c.get(url)
            assert resp.status_code == 200, url
            answers.append((resp.content.decode(), where))
        # The check can fail: carol's own answer shows where her ship is.
        own = client_for(carol).get(urls[0]).content.decode()
        x = next(s for s in embedded.current_state(battle).battle.ships if s.id == talon).pos[0]
        assert json.dumps(x) in where and json.dumps(x) in own

    carol_moved = False
    for _ in range(400):
        battle.refresh_from_db()
        if battle.status != Battle.Status.PLAYING:
            break
        state = embedded.current_state(battle)
        side = RULES.acting_side(state)
        if side == 1:
            bob_looks()
            legal = bob_c.get(reverse("api-battle-state", args=[battle.pk])).json()["legal"]
            assert str(talon) not in legal
            choice = next(iter(legal.values()))[0]
            resp = bob_c.post(reverse("api-battle-action", args=[battle.pk]), choice, format="json")
            assert resp.status_code == 200, resp.content
            battle.refresh_from_db()
            if battle.status == Battle.Status.PLAYING:
                answers.append((resp.content.decode(), _positions(battle)))
                data = resp.json()
                assert {talon, LURKER}.isdisjoint(s["id"] for s in data["ships"])
                assert all(f"({talon})" not in e["text"] for e in data["events"] if e["kind"] != "special")
        else:  # carol keeps her ships hidden: the talon moves (2" at a time) and holds its fire; the B'Rel lurks
            legal = RULES.legal_json(state, 2)
            acts = legal.get(str(talon), [])
            move = next((a for a in acts if a["type"] == "move" and a["turn"] == 0 and not a["lay_mine"]
                         and 1 <= a["after"] <= 2), None)
            lurks = [a for a in legal.get(str(LURKER), []) if a["type"] == "lurk"]
            choice = move or next((a for a in acts if a["type"] in ("fire", "move")), None) or lurks[0]
            carol_moved = carol_moved or move is not None
            resp = client_for(carol).post(reverse("api-battle-action", args=[battle.pk]), choice, format="json")
            assert resp.status_code == 200, resp.content
            battle.refresh_from_db()
            if battle.status == Battle.Status.PLAYING:
                bob_looks()
    assert carol_moved and len(answers) > 10
    assert battle.steps.filter(action__type="lurk", side=2).exists()  # the B'Rel was nominated, and stayed hidden
    for text, where in answers:
        leaked = [w for w in where if w in text]
        assert not leaked, f"the cloaked ship's position {leaked} is in an answer to the other side"
        for hidden in (talon, LURKER):
            assert f'data-ship="{hidden}"' not in text and f"({hidden})" not in text
        assert "lurk" not in text.lower()
    # Carol (and, once it is over, everyone) sees it.
    battle.refresh_from_db()
    mine = client_for(carol).get(reverse("api-battle-state", args=[battle.pk])).json()
    assert talon in [s["id"] for s in mine["ships"]]


def test_the_viewer_without_fog_sees_the_cloaked_ship_and_the_state_json_is_json():
    state = RULES.initial_state(cloak_setup(), None)
    talon = next(s for s in state.battle.ships if s.side == 2).id
    for fog, seen in ((None, True), (2, True), (1, False)):
        data = json.loads(json.dumps(RULES.state_json(state, Viewer(seat=fog, fog_side=fog))))
        assert (talon in [s["id"] for s in data["ships"]]) is seen
        assert data["table"] == {"width": 72.0, "height": 48.0, "units": "inches"}


def test_the_newer_actions_round_trip_through_the_json_codec():
    """Lurking and revealing (10.2), lurking in hyperspace (11.8), orbits (9.0), webs (7.3),
    loitering shuttles and off-table bases (8.2, 8.3): every listed action of random play with
    them about survives the codec (rulings BZ53-BZ59, BZ80)."""
    from dataclasses import replace

    from tactical.rules.buoyz.deploy import deploy
    from tactical.rules.buoyz.engine import apply
    from tactical.rules.buoyz.sds import CATALOGUE
    from tactical.rules.buoyz.state import Celestial, Flight
    from tests.tactical.buoyz.test_buoyz_properties import RAIDER, THOLIAN

    rng = random.Random(7)
    start = deploy({1: [THOLIAN, THOLIAN, CATALOGUE["war_talon"]], 2: [RAIDER, CATALOGUE["d7"]]}, turn_cap=5,
                   lurking={3: (0, 0)})
    n = len(start.flights)
    start = replace(start, objects=(Celestial(1, "planet", (36.0, 10.0), 3.0),), flights=start.flights + (
        Flight(n + 1, 2, 0, "shuttle", 0, status="flying", pos=(40.0, 46.0), offtable=True),))
    dice = SeededDice(b"buoyz newer codec")
    state, seen = start, set()
    for _ in range(300):
        if state.over:
            break
        legal = legal_actions(state)
        for action in legal:
            data = json.loads(json.dumps(bp.to_json(action)))
            assert bp.from_json(data) == action
            assert bp.describe(data)
            seen.add(
                data["type"]
                + "".join(
                    f"+{k}" for k in ("orbit", "web", "loiter", "home") if data.get(k) not in (None, False)
                )
            )
        state = apply(state, rng.choice(legal), dice).state
    assert {"reveal", "lurk", "move+orbit", "move+web", "fly+loiter", "fly+home"} <= seen


def test_a_side_past_its_deadline_has_one_nomination_made_by_the_doctrine(small_campaign, record):
    from datetime import timedelta

    from django.utils import timezone

    small_campaign.activation_hours = 24
    small_campaign.save(update_fields=["activation_hours"])
    battle = buoyz_battle(small_campaign, small_setup(5))
    assert battle.activation_deadline is not None
    late = RULES.acting_side(embedded.current_state(battle))
    before = battle.steps.count()
    Battle.objects.filter(pk=battle.pk).update(activation_deadline=timezone.now() - timedelta(minutes=1))
    assert play.play_due_activations() == 1
    battle.refresh_from_db()
    made = list(battle.steps.filter(seq__gt=before).order_by("seq"))
    assert made and all(s.side == late and s.by_doctrine for s in made)
    # One nomination: a Special Action may precede the move, nothing more.
    assert len(made) <= 2 and all(s.action["type"] == "special" for s in made[:-1])
    assert battle.doctrine_sides == [] and battle.activation_deadline > timezone.now()
    assert play.play_due_activations() == 0  # the next decision has a fresh deadline


def test_the_replays_first_step_is_the_set_up_not_turn_0(small_campaign, bob):
    # Found walking the demo (issue 23 item 8's "one name"): the replay's first step read
    # "Turn 0, initiative phase"; game turns count from 1 (000 CAM 3.0), before them is the set-up.
    battle = buoyz_battle(small_campaign, small_setup(7))
    first = embedded.states(battle)[0].state.battle
    assert first.turn == 0
    page = client_for(bob).get(reverse("battle-replay", args=[battle.pk]) + "?step=0").content.decode()
    assert "Turn 0" not in page and "Set-up, before game turn 1" in page
