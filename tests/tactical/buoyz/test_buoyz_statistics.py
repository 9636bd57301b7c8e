"""Statistical checks of the rolled tables with fixed seeds (issue 16, item 7): the engine's
frequencies match the rule book's probabilities within four standard deviations."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import pytest

from campaign.rules.dice import SeededDice, derive_seed
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz.engine import _critical, _Ctx, apply, torpedo_hits
from tactical.rules.buoyz.sds import CATALOGUE
from tactical.rules.buoyz.state import new_battle, new_ship

N = 3000


def _close(count: int, n: int, p: float) -> bool:
    sd = math.sqrt(n * p * (1 - p))
    return abs(count - n * p) <= 4 * sd + 1


def test_initiative_is_even_between_equal_fleets():
    """000 3.0: 2D6 each, ties re-rolled: equal fleets win half the time."""
    c = CATALOGUE
    state = new_battle([new_ship(1, 1, c["d7"], (10, 10)), new_ship(2, 2, c["d7"], (10, 40), 180)])
    dice = SeededDice(derive_seed("stat-initiative"))
    wins = sum(apply(state, A.Begin(), dice).state.initiative == 1 for _ in range(N))
    assert _close(wins, N, 0.5)


def test_initiative_modifiers_shift_the_odds():
    """000 3.0: +2 (patrol counters on the table) for one side: P(2D6+2 beats 2D6 | no tie)."""
    c = CATALOGUE
    state = new_battle([new_ship(1, 1, c["d7"], (10, 10)), new_ship(3, 1, c["runabouts"], (20, 10)),
                        new_ship(2, 2, c["d7"], (10, 40), 180)])
    # side 1: +2 patrol counters; its flagship (the D7, dearer) has no Advanced Sensors
    win = sum(1 for a in range(2, 13) for b in range(2, 13) if a + 2 > b for _ in range(
        (6 - abs(a - 7)) * (6 - abs(b - 7))))
    tie = sum((6 - abs(a - 7)) * (6 - abs(b - 7)) for a in range(2, 13) for b in range(2, 13) if a + 2 == b)
    p = win / (36 * 36 - tie)
    dice = SeededDice(derive_seed("stat-initiative-mod"))
    wins = sum(apply(state, A.Begin(), dice).state.initiative == 1 for _ in range(N))
    assert _close(wins, N, p)


@pytest.mark.parametrize("kind, size, p", [("photon", 0, 4 / 6), ("photon", 2, 2 / 6), ("drone", 2, 3 / 6),
                                           ("photon", 5, 1 / 6), ("plasma", 4, 1 / 6)])
def test_torpedo_dice_hit_on_3_plus_less_size(kind, size, p):
    """000 5.9: 3+ after deducting the target size, +1 drones and plasma, natural 1 / 6."""
    dice = SeededDice(derive_seed(f"stat-torp-{kind}-{size}"))
    hits = sum(torpedo_hits(dice.roll(1, 6, "t").faces, kind, size) for _ in range(N))
    assert _close(hits, N, p)


def test_critical_table_frequencies():
    """000 5.8: each of Critical Armament / Motive / Shields 1/6 + 1/36 (the re-roll of a 4),
    the lucky break 1/36, Vital Fire 1/6 + 1/36 (a disintegration on doubles: 1/6 of those), a
    Vital System hit 1/6 + 1/36."""
    c = CATALOGUE
    base = new_battle([new_ship(1, 1, c["constitution"], (10, 10)), new_ship(2, 2, c["galaxy"], (40, 40), 180)])
    dice = SeededDice(derive_seed("stat-crit"))
    seen: Counter[str] = Counter()
    for _ in range(N):
        ctx = _Ctx(dice)
        after = _critical(base, 2, ctx)
        kinds = [e.kind for e in ctx.events]
        if "terminal_explosion" in kinds:
            seen["explosion"] += 1
        elif "vital_fire" in kinds:
            seen["vital_fire"] += 1
        elif "vital_system" in kinds:
            seen["vital_system"] += 1
        elif after.ship(2).crits != (0, 0, 0):
            seen[("armament", "motive", "shields")[after.ship(2).crits.index(1)]] += 1
        else:
            seen["lucky"] += 1
    each = 1 / 6 + 1 / 36
    for kind in ("armament", "motive", "shields", "vital_system"):
        assert _close(seen[kind], N, each), (kind, seen)
    assert _close(seen["lucky"], N, 1 / 36)
    assert _close(seen["explosion"], N, each / 6)
    assert _close(seen["vital_fire"], N, each * 5 / 6)


def test_damage_control_succeeds_on_5_plus_with_command():
    """000 6.2: 1D6 + Command (2) repairs on 5+: two in three."""
    c = CATALOGUE
    d7 = replace(new_ship(1, 1, c["d7"], (10, 10)), crits=(1, 0, 0))
    state = new_battle([d7, new_ship(2, 2, c["b_rel"], (60, 40), 180)])
    state = replace(state, phase="attack", turn=1, initiative=1, first=1, acting=1)
    dice = SeededDice(derive_seed("stat-dc"))
    repaired = 0
    for _ in range(1000):
        after = apply(apply(state, A.Fire(1), dice).state, A.Fire(2), dice).state
        repaired += after.ship(1).crits == (0, 0, 0)
    assert _close(repaired, 1000, 4 / 6)


def test_beam_hits_and_damage_through_shields():
    """000 5.5 / 5.6: at 4\" (-1) a die hits Size 3 on 4+ (1/2); a hit goes through the
    Constitution's shields 3 on 3+ (2/3)."""
    c = CATALOGUE
    state = new_battle([new_ship(1, 1, c["constitution"], (10, 10)), new_ship(2, 2, c["constitution"], (10, 14), 180),
                        new_ship(3, 2, c["b_rel"], (60, 40), 180)])
    state = replace(state, phase="attack", turn=1, initiative=1, first=1, acting=1)
    dice = SeededDice(derive_seed("stat-beam"))
    hits = through = 0
    for _ in range(N // 4):
        events = apply(state, A.Fire(1, (("main0", 2, 4),)), dice).events
        hits += sum(e.data["hits"] for e in events if e.kind == "attack")
        through += sum(e.data["through"] for e in events if e.kind == "damage")
    assert _close(hits, N, 0.5)
    assert _close(through, hits, 4 / 6)  # shields 3: a damage die of 3+ goes through
