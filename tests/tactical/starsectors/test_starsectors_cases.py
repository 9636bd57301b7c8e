"""The Star Sectors rules, section by section, as data: every case in
tests/tactical/starsectors/cases/*.json (format: the README there) run by the shared runner
(tests/tactical/rule_cases.py) through the Star Sectors adapter (case_loader.py)."""

from __future__ import annotations

import re

import pytest

from tests.tactical.rule_cases import case_param, check_case
from tests.tactical.starsectors.case_loader import ADAPTER, load_cases

CASES = load_cases()

# Every numbered section of 004 the engine implements; each needs a case citing it.
SECTIONS = ("I", "II", "III", "IV.A", "IV.B", "IV.C", "IV.D", "IV.E", "IV.F", "IV.G", "V.A", "V.B", "VI.A", "VI.B",
            "VII.A", "VII.B", "VIII.A", "VIII.B")


def cited(cases) -> set[str]:
    out = set()
    for case in cases:
        out |= set(re.findall(r"\b(?:VIII|VII|VI|V|IV|III|II|I)(?:\.[A-H])?\b", case["rule"]))
    return out


def test_every_implemented_section_has_cases():
    missing = [s for s in SECTIONS if s not in cited(CASES)]
    assert not missing, f"no rule case cites {missing}"


@pytest.mark.parametrize("case", [case_param(c) for c in CASES])
def test_starsectors_case(case: dict) -> None:
    check_case(ADAPTER, case)
