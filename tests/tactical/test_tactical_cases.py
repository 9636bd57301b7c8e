"""The tactical rules, rule by rule, as data: every case in tests/tactical/cases/*.json (format:
tests/tactical/cases/README.md) is a battle position, a few steps (draw a card, apply an action)
with fixed dice, and what must follow. Every die face given must be used; a refused step must
roll nothing."""

from __future__ import annotations

import pytest

from tests.tactical.case_loader import load_cases, run_case

CASES = load_cases()


def _param(case: dict):
    marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") else []
    return pytest.param(case, id=case["name"], marks=marks)


def test_cases_exist():
    assert len(CASES) >= 60


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_tactical_case(case: dict) -> None:
    failures = run_case(case)
    if failures:
        pytest.fail(f"{case['_file']}: {case['name']} ({case['rule']}):\n  " + "\n  ".join(failures), pytrace=False)
