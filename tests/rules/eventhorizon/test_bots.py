"""Computer players (campaign/rules/eventhorizon/bots.py): valid orders, research gating, and the
behaviours that make bot campaigns decisive. Pure tests, except the last one, which checks that the
pure harness (bench/botsim.py) plays exactly the game ``manage.py demo`` plays."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench import botsim
from campaign.rules.dice import FixedDice
from campaign.rules.eventhorizon import bots
from campaign.rules.eventhorizon.autoresolve import Side, odds
from campaign.rules.eventhorizon.conflict import defeat_retreat
from campaign.rules.eventhorizon.designs import Technology
from campaign.rules.eventhorizon.economy import Resource
from campaign.rules.eventhorizon.orders import Orders, parse_orders, validate_orders
from campaign.rules.eventhorizon.state import FleetState
from campaign.rules.eventhorizon.turn import resolve_turn
from tests.rules.eventhorizon.eh_builders import DESIGN_TABLE, build_state
from tests.rules.eventhorizon.random_campaign import CampaignSpec, new_campaign

NAMES = {d.name: i for i, d in DESIGN_TABLE.items()}
GALIOT = "Cyber-Corsair Galiot Class Corvette"
SWORD = "Knights of G.O.D Sword Class Frigate"
SULTAN = "Automann Torque Sultan Class Destroyer"


def raw_orders(state, seat, names=NAMES) -> dict:
    """What the bot writes, before ``_valid`` drops anything."""
    return bots._Bot(state, seat, names).orders()


def assert_valid(state, seat, raw, names=NAMES) -> Orders:
    orders = parse_orders(raw)
    validate_orders(state, seat, orders, names)  # raises OrderError if anything is refused
    return orders


def move_of(orders: Orders, fleet) -> tuple | None:
    return next((m.path for m in orders.moves if m.fleet == fleet), None)


# --- valid orders, always -------------------------------------------------------------------

@pytest.mark.parametrize("seed,players,size", [("a", 2, 14), ("b", 3, 18), ("c", 4, 16)])
def test_every_order_a_bot_writes_is_accepted(seed, players, size):
    # Whole bot campaigns: every turn each bot's own orders (nothing dropped) pass validation.
    state, dice = botsim.new_campaign(seed, players, size, size)
    names = {e.seat: botsim.NAMES for e in state.empires}
    for _ in range(25):
        orders = {}
        for seat in state.active_seats():
            orders[seat] = assert_valid(state, seat, raw_orders(state, seat, botsim.NAMES), botsim.NAMES)
        state = botsim.as_stored(resolve_turn(state, orders, dice, names).state)
        if state.finished:
            break


@pytest.mark.parametrize("choices", range(6))
def test_bots_cope_with_odd_positions(choices):
    # Random campaigns with fleets already out, damaged ships and engines wrecked outright.
    spec = CampaignSpec(seed=bytes([choices]) * 32, grid="hex" if choices % 2 else "square", width=12,
                        height=10, players=2 + choices % 3, turns=6, fleets_out=3, choices=choices)
    state = new_campaign(spec)
    state = replace(state, empires=tuple(replace(e, bp=400 + 150 * choices) for e in state.empires))
    from campaign.rules.dice import SeededDice

    dice = SeededDice(bytes([7, choices]) * 16)
    for _ in range(spec.turns):
        orders = {s: assert_valid(state, s, raw_orders(state, s)) for s in state.active_seats()}
        state = resolve_turn(state, orders, dice, {s: NAMES for s in state.active_seats()}).state
        if state.finished:
            break


def test_research_gating_is_respected():
    # RULINGS "Research-gated components": the Sword and Sultan carry stealth field generators.
    state = build_state("1 . . . . 2", bp=500, turn=4)
    gated = {SWORD: NAMES[SWORD], SULTAN: NAMES[SULTAN]}
    orders = assert_valid(state, 1, raw_orders(state, 1, gated), gated)
    assert not [p for p in orders.purchases if "build" in p]
    learned = state.with_empire(replace(state.empire(1), technologies=frozenset({Technology.STEALTH_FIELD})))
    orders = assert_valid(learned, 1, raw_orders(learned, 1, gated), gated)
    assert [p["build"] for p in orders.purchases if "build" in p] in ([SWORD], [SULTAN])


# --- spending ---------------------------------------------------------------------------------

def test_first_turn_diplomatic_corps_and_a_ship():
    # 003 Neutral Planets/Colonies: "+1 … if you have a Diplomatic Corps"; 003 Set Up: 240 BP.
    state, _ = botsim.new_campaign("1", 2, 20, 20)
    orders = bots.bot_orders(state, 1, botsim.NAMES)
    home = state.map.home_worlds[0]
    assert {"buy": Resource.DIPLOMATIC_CORPS.value, "at": list(home)} in orders.purchases
    assert {"build": GALIOT, "dockyard": 1} in orders.purchases


def test_income_becomes_dockyards_academy_and_hero_crews():
    # 003 Use of BP in a Campaign: Dockyard ("Multiple dockyards … are permissible"), Military
    # Academy (hero crews +30 BP); the Note: one resource per world per turn.
    state = build_state("1 a a . . . 2", bp=2000, turn=8,
                        structures=[(1, "diplomatic_corps", (0, 0))], fleets=[(2, (5, 0), ["galiot"])])
    orders = assert_valid(state, 1, raw_orders(state, 1))
    bought = [(p["buy"], tuple(p["at"])) for p in orders.purchases if "buy" in p]
    assert (Resource.MILITARY_ACADEMY.value, (0, 0)) in bought  # the enemy is in sight: an academy
    assert sum(1 for r, _ in bought if r == Resource.DOCKYARD.value) >= 1
    assert len({at for _, at in bought}) == len(bought)  # never two resources on one world
    academy = replace(state, structures=state.structures + (
        replace(state.structures[0], id=9, resource=Resource.MILITARY_ACADEMY),))
    orders = assert_valid(academy, 1, raw_orders(academy, 1))
    assert any(p.get("hero_crew") for p in orders.purchases if "build" in p)


def test_an_empire_without_a_dockyard_builds_one_and_a_ship_at_once():
    # A dockyard bought this turn takes a build this turn (E4), so the empire keeps building ships
    # (003 Purpose of the Campaign: "a player loses if he finishes a campaign turn with no ships";
    # since the set-up round only ships in play count, VC3, so seat 1 keeps a lone galiot).
    # Dockyards go on colonies too when no planet is left.
    state = build_state("A . A . . . 2", bp={1: 300, 2: 0}, seats=2, turn=20, dockyards=False,
                        fleets=[(2, (6, 0), ["galiot"]), (1, (1, 0), ["galiot"])])
    orders = assert_valid(state, 1, raw_orders(state, 1))
    assert orders.purchases[:2] == ({"buy": Resource.DOCKYARD.value, "at": [0, 0]}, {"build": GALIOT, "dockyard": 1})
    after = resolve_turn(state, {1: orders}, FixedDice([6, 1] + [3] * 20), {1: NAMES, 2: NAMES}).state
    assert not after.empire(1).eliminated and any(b.owner == 1 for b in after.builds)


# --- expansion --------------------------------------------------------------------------------

def test_a_scout_stays_on_a_neutral_world_to_roll():
    # 003 Neutral Planets/Colonies: "Whenever a fleet is in a hex containing a neutral planet".
    state = build_state("1 . O . . . . 2", fleets=[(1, (2, 0), ["galiot"])], turn=3)
    assert move_of(assert_valid(state, 1, raw_orders(state, 1)), 1) is None


@pytest.mark.parametrize("purpose,goal", [(1, (1, 2)), (6, (3, 0))])
def test_scouts_go_for_what_the_purpose_needs(purpose, goal):
    # 003 Purpose of the Campaign: Land Grab wants colonies, the others planets (income).
    state = build_state("""
        1 . . O . . . .
        . . . . . . . .
        . o . . . . . 2
    """, fleets=[(1, (1, 0), ["galiot"])], purpose=purpose, turn=3)
    path = move_of(assert_valid(state, 1, raw_orders(state, 1)), 1)
    assert path and path[-1] == goal


# --- battle ------------------------------------------------------------------------------------

@pytest.mark.parametrize("a,b", [
    (Side(180), Side(60)), (Side(60), Side(180)), (Side(100), Side(100)),
    (Side(40, has_star_cruiser=True), Side(0, has_defences=True)), (Side(25), Side(0, has_defences=True)),
    (Side(300, has_star_cruiser=True), Side(120, has_destroyer=True, has_defences=True)),
    (Side(1000), Side(55)),
])
def test_win_chance_is_the_exact_auto_resolve_odds(a, b):
    # 003 Alternative to a Tactical Battle, with its Force Multipliers (docs/rulings.md A1–A4).
    expected = odds(a, b).p_a_wins if (b.bp or b.has_defences) else 1.0
    assert bots.win_chance(a, b) == pytest.approx(expected, abs=1e-3)


def test_an_undefended_enemy_world_is_taken():
    # 003 Invading Enemy Hexes, option 2: nobody resists, the hex is captured.
    state = build_state("1 . . . B . . . . . . . 2", fleets=[(1, (2, 0), ["galiot", "galiot"])], turn=5)
    path = move_of(assert_valid(state, 1, raw_orders(state, 1)), 1)
    assert path and path[-1] == (4, 0)


@pytest.mark.parametrize("ours,attacks", [(["galiot"] * 2, False), (["san_marco"] + ["galiot"] * 9, True)])
def test_attacks_enemy_ships_only_with_good_odds(ours, attacks):
    # 003 Alternative to a Tactical Battle: 2 × 25 BP against 4 × 25 BP is a likely loss.
    state = build_state("1 . . . . . . . . 2", fleets=[(1, (4, 0), ours), (2, (6, 0), ["galiot"] * 4)], turn=5)
    path = move_of(assert_valid(state, 1, raw_orders(state, 1)), 1)
    assert (path is not None and path[-1] == (6, 0)) is attacks


def test_a_beaten_fleet_with_every_way_out_closed_is_destroyed():
    # 003 Result of a Tactical Battle: "what remains of your fleet must retreat one full map move";
    # docs/rulings.md C11: with nowhere to go the ships are destroyed. The bot closes every way out
    # before it strikes.
    state = build_state("""
        . . . . . . . . . . . . . . . .
        1 . . . . . . . . . . . . . . .
        . . . . . . . . . b . . . . . 2
        . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . .
    """, fleets=[(1, (8, 2), ["san_marco"] + ["galiot"] * 16), (2, (9, 2), ["galiot"] * 9)], turn=9)
    orders = assert_valid(state, 1, raw_orders(state, 1))
    ends = {m.path[-1] for m in orders.moves}
    neighbours = set(state.grid.neighbours((9, 2)))
    assert (9, 2) in ends and neighbours <= ends | {(8, 2)}
    # Played out with the attacker's dice all sixes: the enemy fleet cannot retreat and is lost.
    after = resolve_turn(state, {1: orders}, _Sixes(), {1: NAMES, 2: NAMES}).state
    assert not any(f.owner == 2 for f in after.fleets)
    boxed = FleetState(99, 2, (9, 2), (1,))
    assert defeat_retreat(replace(after, fleets=after.fleets + (boxed,)), boxed) == (None, "nowhere to go")


class _Sixes(FixedDice):
    """Every battle die of the attacker a 6 and of the defender a 1; other rolls count down."""

    def __init__(self):
        super().__init__([])
        self.battles = self.others = 0

    def roll(self, count, sides, purpose):
        from campaign.rules.dice import Roll

        if purpose.startswith("003 Alternative to a Tactical Battle"):
            self.battles += 1
            face = 6 if self.battles % 2 else 1
        else:
            self.others += 1
            face = sides - self.others % sides
        roll = Roll(count=count, sides=sides, faces=(face,) * count, purpose=purpose)
        self.rolls.append(roll)
        return roll


def _staying(orders: Orders, ships: range) -> int:
    """How many of fleet 1's ``ships`` stay where they are."""
    moving = {m.fleet for m in orders.moves}
    split = {s.label: s.ships for s in orders.splits}
    kept = [s for s in ships if not any(s in part for part in split.values())]
    staying = sum(len(part) for label, part in split.items() if label not in moving)
    return staying + (0 if 1 in moving else len(kept))


def test_the_home_guard_matches_the_threat():
    # The home world's loss cuts off every trade route (003 Trade Routes; docs/rulings.md T5):
    # 6 × 25 BP of enemy ships within reach keep at least as many at home.
    state = build_state("1 . . . . . . . . . . 2",
                        fleets=[(1, (0, 0), ["galiot"] * 8), (2, (4, 0), ["galiot"] * 6)], turn=6)
    assert _staying(assert_valid(state, 1, raw_orders(state, 1)), range(1, 9)) >= 6


def test_the_home_guard_strikes_a_weak_threat():
    # 8 × 25 BP against 3 × 25 BP: 3d6 against 1d6 (003 Alternative to a Tactical Battle), a
    # sortie with good odds; the threat beaten, the guard comes home.
    state = build_state("1 . . . . . . . . . . 2",
                        fleets=[(1, (0, 0), ["galiot"] * 8), (2, (4, 0), ["galiot"] * 3)], turn=6)
    orders = assert_valid(state, 1, raw_orders(state, 1))
    assert any(m.path[-1] == (4, 0) for m in orders.moves)


def test_an_enemy_strike_is_met_where_it_is_going():
    # The enemy fleet can take our undefended colony this turn (003 Invading Enemy Hexes); our
    # fleet nearby goes there, so the invader meets it instead of an empty world.
    state = build_state("""
        1 . . . . . . . . .
        . . . . . . . . . .
        . . . . A . . . . 2
    """, fleets=[(1, (2, 0), ["san_marco"] + ["galiot"] * 8), (2, (7, 2), ["galiot"] * 5)], turn=6)
    path = move_of(assert_valid(state, 1, raw_orders(state, 1)), 1)
    assert path and path[-1] in ((4, 2), (7, 2))


def test_trade_war_besieges_the_enemy_home_world():
    # 003 Purpose of the Campaign: 5 Trade War; 003 Trade Routes: "If an enemy fleet (not ship)
    # occupies a hex through which your trade route passes". A captured home world has no routes
    # to interdict (docs/rulings.md T8, V7), so the bot surrounds it instead of taking it.
    state = build_state("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . 2 b . . .
        . . . . . . . . .
        1 . . . . . . . .
    """, fleets=[(1, (2, 3), ["san_marco"] + ["galiot"] * 19)], purpose=5, turn=9)
    orders = assert_valid(state, 1, raw_orders(state, 1))
    ends = [m.path[-1] for m in orders.moves]
    assert (4, 2) not in ends
    posts = set(state.grid.neighbours((4, 2)))
    assert len(posts & set(ends)) >= 4


# --- whole campaigns ------------------------------------------------------------------------------

@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
@pytest.mark.parametrize("players,size,seed,purpose", [(2, 20, "3", 6), (3, 30, "3", 6), (2, 20, "5", 4)])
def test_small_bot_campaigns_end_with_a_winner(players, size, seed, purpose):
    # 003 Purpose of the Campaign: the campaign is won, well before 60 turns.
    result = botsim.play(seed, players, size, size, 60)
    assert result.purpose == purpose
    assert result.winner is not None and result.turns < 60


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
def test_the_demo_campaign_reaches_a_winner():
    # `manage.py demo --players 4 --size 40x40 --turns 60 --seed 1`, through the pure pipeline
    # (bench/botsim.py, proven identical to the demo by the last test): Land Grab is won.
    result = botsim.play("1", 4, 40, 40, 60)
    assert result.purpose == 1
    assert result.winner is not None and result.turns <= 60
    assert result.lines == botsim.play("1", 4, 40, 40, result.turns).lines  # same seed, same campaign


@pytest.mark.django_db
@pytest.mark.parametrize("args", [("2", "14x12", "7", 12), ("4", "40x40", "1", 60)])
def test_the_harness_plays_the_demo_game(args):
    # The demo command (through the database) and bench/botsim.py print the same turns; the
    # second case is the whole `demo --players 4 --size 40x40 --turns 60 --seed 1` campaign.
    from io import StringIO

    from django.core.management import call_command

    players, size, seed, turns = args
    out = StringIO()
    call_command("demo", "--players", players, "--size", size, "--turns", str(turns), "--seed", seed, stdout=out)
    text = out.getvalue().splitlines()
    demo = [line for line in text if line[:4].strip().isdigit()]
    width, height = (int(v) for v in size.split("x"))
    result = botsim.play(seed, int(players), width, height, turns)
    assert demo == result.lines
    if result.winner:
        assert f"(seat {result.winner}) on turn {result.turns}." in text[-1]
