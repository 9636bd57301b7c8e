"""The Buoyz 'N Da 'Hood rules, section by section, as data: every case in
tests/tactical/buoyz/cases/*.json (format: the README there) is a battle position and a few
actions with fixed dice, and what must follow. The shared runner (tests/tactical/rule_cases.py)
runs them through the Buoyz adapter (tests/tactical/buoyz/case_loader.py): every face given must
be rolled; a refused step must name a 000 section, roll nothing and change nothing."""

from __future__ import annotations

import pytest

from tests.tactical.buoyz.case_loader import ADAPTER, load_cases
from tests.tactical.rule_cases import case_param, check_case, sections_cited

CASES = load_cases()

# The sections of issue 16's step 1-3 that the engine implements so far; each needs cases.
SECTIONS = (
    "1.1",
    "1.2",
    "1.5",
    "2.2",
    "3.0",
    "4.1",
    "5.2",
    "5.3",
    "5.4",
    "5.5",
    "5.6",
    "5.7",
    "5.8",
    "5.9",
    "5.10",
    "6.2",
    "7.2",
    "7.3",
    "4.2",
    "8.3",
    "8.4",
    "8.5",
    "8.6",
    "9.0",
    "9.1",
    "10.2",
    "10.3",
    "11.1",
    "11.2",
    "11.4",
    "11.5",
    "11.6",
    "11.7",
    "11.8",
    "8.2",
    "11.3",
)


def test_every_implemented_section_has_cases():
    missing = [s for s in SECTIONS if s not in sections_cited(CASES)]
    assert not missing, f"no rule case cites {missing}"


@pytest.mark.parametrize("case", [case_param(c) for c in CASES])
def test_buoyz_case(case: dict) -> None:
    check_case(ADAPTER, case)
