"""My Trek V's tables (002): the phase chart reconstructed from what survives (ruling MT1), the hull
damage levels of every size class, the power points each level leaves, and the attack
deductions, row by row."""

from __future__ import annotations

import re
from itertools import combinations
from pathlib import Path

import pytest

from tactical.rules.mytrek import tables as T

SEED = Path(__file__).resolve().parents[4] / "shared" / "seeds" / "002_17a1b1527ce9a678.txt"


def _printed_rows() -> dict[int, int]:
    """The marks each phase's row kept in the book's text (002 Combat Phases)."""
    line = next(x for x in SEED.read_text(encoding="utf-8").splitlines() if x.strip().startswith("Phase H F"))
    rows: dict[int, int] = {}
    current = None
    for token in line.split()[13:]:
        if token == "•":
            rows[current] += 1
        else:
            current = int(token)
            rows[current] = 0
    return rows


@pytest.mark.skipif(not SEED.exists(), reason="the rule books are not beside the checkout")
def test_the_printed_rows_are_the_ones_the_chart_keeps():
    """002 Combat Phases: the row counts as printed (the columns were lost)."""
    assert _printed_rows() == T.ROW_MARKS


def test_the_chart_reproduces_every_rows_count():
    """Ruling MT1: every phase's row has the marks the book printed."""
    for phase, marks in T.ROW_MARKS.items():
        assert sum(1 for speed in range(1, 13) if T.moves_in(speed, phase)) == marks, phase


def test_faster_speeds_move_more_and_are_never_behind():
    """Ruling MT1: H once, F twice, Hyper n n+2 times; a faster ship is never behind a slower one."""
    assert [len(T.CHART[s]) for s in range(13)] == list(range(13))
    for slow in range(12):
        for phase in range(1, 13):
            ahead = sum(1 for p in T.CHART[slow + 1] if p <= phase)
            assert ahead >= sum(1 for p in T.CHART[slow] if p <= phase)


def test_each_speed_moves_as_evenly_as_the_rows_allow():
    """Ruling MT1: the gaps between a speed's moves (from the start of the turn) differ by at most 1."""
    for speed in range(1, 13):
        phases = sorted(T.CHART[speed])
        gaps = [phases[0]] + [b - a for a, b in zip(phases, phases[1:])]
        assert max(gaps) - min(gaps) <= 1, speed


def _cost(s, m):
    return sum(abs(sum(1 for q in s if q <= p) - m * p / 12) for p in range(1, 13))


def test_the_chart_is_the_most_even_one_with_the_printed_rows():
    """Ruling MT1, re-derived: search every chart with the three properties above and the printed
    row counts; none spreads the moves more evenly than the one the engine uses."""

    def even(c, m):
        gaps = [c[0]] + [c[i + 1] - c[i] for i in range(m - 1)]
        return max(gaps) - min(gaps) <= 1

    cands = {
        m: sorted(
            (frozenset(c) for c in combinations(range(1, 13), m) if even(c, m)), key=lambda s: _cost(s, m)
        )
        for m in range(1, 13)
    }
    best = [None, float("inf")]

    def search(m, rem, chosen, prev, cost):
        if cost >= best[1] - 1e-9:
            return
        if m == 13:
            best[:] = [list(chosen), cost]
            return
        for s in cands[m]:
            if any(rem[p] == 0 for p in s) or (
                prev and any(sum(q <= p for q in s) < sum(q <= p for q in prev) for p in range(1, 13))
            ):
                continue
            for p in s:
                rem[p] -= 1
            if all(v <= 12 - m for v in rem.values()):
                search(m + 1, rem, chosen + [s], s, cost + _cost(s, m))
            for p in s:
                rem[p] += 1

    search(1, dict(T.ROW_MARKS), [], None, 0.0)
    mine = sum(_cost(T.CHART[m], m) for m in range(1, 13))
    assert best[0] is not None and abs(best[1] - mine) < 1e-9


def test_attacks_in_phases_3_6_9_12():
    """002 Combat Phases: Ships can attack during phases 3, 6, 9 and 12."""
    assert T.ATTACK_PHASES == (3, 6, 9, 12)


@pytest.mark.parametrize(
    "size,rows",
    [
        ("A", ((60, 46), (45, 31), (30, 16), (15, 1))),
        ("B", ((48, 37), (36, 25), (24, 13), (12, 1))),
        ("C", ((36, 28), (27, 19), (18, 10), (9, 1))),
        ("D", ((24, 19), (18, 13), (12, 7), (6, 1))),
        ("E", ((12, 10), (9, 7), (6, 4), (3, 1))),
        ("F", ((6, 5), (4, 4), (3, 3), (2, 1))),
    ],
)
def test_damage_levels_by_size_class(size, rows):
    """002 Hull Damage: the size class table, every row and every hull point, and the PP each leaves."""
    assert T.HULL_POINTS[size] == rows[0][0]
    for level, (top, bottom) in zip(("none", "light", "serious", "critical"), rows):
        for hull in range(bottom, top + 1):
            assert T.damage_level(size, hull) == level
            assert T.power_points(size, hull) == {"none": 8, "light": 7, "serious": 5, "critical": 2}[level]
    assert T.damage_level(size, 0) == "destroyed" and T.power_points(size, 0) == 0


@pytest.mark.parametrize("spaces,minus", [(1, 0), (3, 0), (4, 1), (7, 1), (8, 2), (11, 2), (12, 3)])
def test_range_bands(spaces, minus):
    """002 Attacking: Range 4 to 7 spaces -1, 8 to 11 -2, 12 -3."""
    assert T.range_deduction(spaces) == minus


@pytest.mark.parametrize("speed,minus", [(0, 0), (1, 0), (2, 0), (5, 0), (6, 1), (9, 1), (10, 3), (12, 3)])
def test_speed_deductions(speed, minus):
    """002 Attacking: Hyper4 or above -1, Hyper8 or above -3 (ruling MT10: the larger only)."""
    assert T.speed_deduction(speed) == minus


def test_the_chart_text_has_78_marks():
    assert sum(T.ROW_MARKS.values()) == 78 == sum(range(1, 13))


def test_speed_names():
    assert [T.speed_name(s) for s in (0, 1, 2, 3, 12)] == ["Stop", "H", "F", "Hyper 1", "Hyper 10"]
    assert re.fullmatch(r"Hyper \d+", T.speed_name(7))
