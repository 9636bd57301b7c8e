"""The Event Horizon turn, rule by rule, as data: every case in tests/rules/eventhorizon/cases/*.json
(format: tests/rules/eventhorizon/cases/README.md) is one whole ``resolve_turn`` (or a few in a row) with
fixed dice, checked against its ``expect`` block. Every die face given must be used."""

from __future__ import annotations

import pytest

from campaign.rules.dice import DiceError, FixedDice
from campaign.rules.eventhorizon.turn import resolve_turn
from tests.rules.eventhorizon.case_loader import (
    case_turns,
    check_expect,
    describe_events,
    describe_rolls,
    design_names,
    load_cases,
    load_orders,
    load_state,
)

CASES = load_cases()


def _param(case: dict):
    marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") else []
    return pytest.param(case, id=case["name"], marks=marks)


def test_cases_exist():
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_rule_case(case: dict) -> None:
    state = load_state(case["state"])
    names = design_names(state)
    header = f"{case['_file']}: {case['name']} ({case['rule']})"
    for i, turn in enumerate(case_turns(case)):
        where = f"{header}, turn {i + 1} of the case (campaign turn {state.turn})"
        dice = FixedDice(turn.get("dice", []))
        try:
            resolution = resolve_turn(state, load_orders(turn.get("orders", {})), dice, names)
        except DiceError as exc:
            pytest.fail(f"{where}: {exc}\n  rolls made:\n{describe_rolls(dice.rolls)}", pytrace=False)
        errors = check_expect(turn.get("expect", {}), resolution.state, resolution.events, dice.rolls)
        left = dice.remaining()
        if left:
            errors.append(f"dice not used: {left} (every face of a case must be rolled)")
        if errors:
            pytest.fail(f"{where}:\n  " + "\n  ".join(errors)
                        + f"\n  rolls made:\n{describe_rolls(dice.rolls)}"
                        + f"\n  events:\n{describe_events(resolution.events)}", pytrace=False)
        state = resolution.state
