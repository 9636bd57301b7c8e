"""The Buoyz 'N Da 'Hood rules, section by section, as data: every case in
tests/tactical/buoyz/cases/*.json (format: the README there) is a battle position and a few
actions with fixed dice, and what must follow. Every face given must be rolled; a refused step
must roll nothing and change nothing."""

from __future__ import annotations

import re

import pytest

from tests.tactical.buoyz.case_loader import load_cases, run_case

CASES = load_cases()

# The sections of issue 16's step 1-3 that the engine implements so far; each needs cases.
SECTIONS = ("1.1", "1.2", "1.5", "2.2", "3.0", "4.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8", "5.9", "5.10",
            "6.2", "7.2", "7.3", "4.2", "8.3", "8.4", "8.5", "8.6", "9.0", "9.1", "10.2", "10.3", "11.1", "11.2", "11.4", "11.5", "11.6", "11.7", "11.8", "8.2", "11.3")


def _param(case: dict):
    marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") else []
    return pytest.param(case, id=case["name"], marks=marks)


def test_every_implemented_section_has_cases():
    cited = set()
    for case in CASES:
        cited |= set(re.findall(r"(?<![\d.])(\d+\.\d+)(?![\d.])", case["rule"]))
    missing = [s for s in SECTIONS if s not in cited]
    assert not missing, f"no rule case cites {missing}"


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_buoyz_case(case: dict) -> None:
    failures = run_case(case)
    if failures:
        pytest.fail(f"{case['_file']}: {case['name']} ({case['rule']}):\n  " + "\n  ".join(failures), pytrace=False)
