"""The Print&Play rules, section by section, as data: every case in
tests/tactical/printplay/cases/*.json (format: the README there) is a battle position and a few
steps with fixed dice, run by the shared runner (tests/tactical/rule_cases.py) through the
Print&Play adapter. The book's sections are its headings; every one the engine implements must be
cited by a case."""

from __future__ import annotations

import pytest

from tests.tactical.printplay.case_loader import ADAPTER, load_cases
from tests.tactical.rule_cases import case_param, check_case

CASES = load_cases()

SECTIONS = ("Dashboards", "Movement", "Turning", "Collisions", "Firing Arcs", "Attack", "Secondary Weapons",
            "Cloaking Device", "Fast Turn", "Ablative Armour", "Regenerative Ablative Armour", "Regenerate",
            "Initiative", "Activation", "Action", "Special Orders", "End Phase", "Deployment", "Asteroids", "Nebula",
            "Tokens", "Turns Sequence")


def test_every_implemented_section_has_cases():
    missing = [s for s in SECTIONS if not any(f"001 {s}" in c["rule"] or f", {s}" in c["rule"]
                                              or f"; 001 {s}" in c["rule"] for c in CASES)]
    assert not missing, f"no rule case cites {missing}"


@pytest.mark.parametrize("case", [case_param(c) for c in CASES])
def test_printplay_case(case: dict) -> None:
    check_case(ADAPTER, case)
