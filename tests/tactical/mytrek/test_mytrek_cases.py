"""My Trek V's rules, section by section, as data: every case in tests/tactical/mytrek/cases/*.json
is a position and a few orders with fixed dice, and what must follow (the runner:
tests/tactical/rule_cases.py; the adapter: case_loader.py). A refused step names a 002 section,
rolls nothing and changes nothing."""

from __future__ import annotations

import pytest

from tests.tactical.mytrek.case_loader import ADAPTER, load_cases
from tests.tactical.rule_cases import case_param, check_case

CASES = load_cases()

# Every section of the book's combat rules the engine implements ("Assembling a Fleet" is
# tests/tactical/mytrek/test_mytrek_fleets.py's).
SECTIONS = (
    "002 Phase Zero",
    "002 Combat Phases",
    "002 Attacking",
    "002 Targeting Systems",
    "002 Hull Damage",
    "002 System Damage",
    "002 Self-Destruct",
)


def test_every_implemented_section_has_cases():
    missing = [s for s in SECTIONS if not any(s in c["rule"] for c in CASES)]
    assert not missing, f"no rule case cites {missing}"


@pytest.mark.parametrize("case", [case_param(c) for c in CASES])
def test_mytrek_case(case: dict) -> None:
    check_case(ADAPTER, case)
