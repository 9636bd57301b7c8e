"""The tactical rules, rule by rule, as data: every case in tests/tactical/eventhorizon/cases/*.json (format:
tests/tactical/eventhorizon/cases/README.md) is a battle position, a few steps (draw a card, apply an action)
with fixed dice, and what must follow. The shared runner (tests/tactical/rule_cases.py) runs them
through the Event Horizon adapter (tests/tactical/eventhorizon/case_loader.py): every die face given must be
used; a refused step must name a 003 section, roll nothing and change nothing."""

from __future__ import annotations

import pytest

from tests.tactical.eventhorizon.case_loader import ADAPTER, load_cases
from tests.tactical.rule_cases import case_param, check_case

CASES = load_cases()


def test_cases_exist():
    assert len(CASES) >= 60


@pytest.mark.parametrize("case", [case_param(c) for c in CASES])
def test_tactical_case(case: dict) -> None:
    check_case(ADAPTER, case)
