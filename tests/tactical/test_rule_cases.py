"""The rule-case runner (tests/tactical/rule_cases.py) fails a case that does not hold: checked on
a toy engine for what every rule book shares (dice, refusals, expectations), and on one real case of
each rule book made wrong on purpose, through its adapter."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.tactical.buoyz.case_loader import ADAPTER as BUOYZ
from tests.tactical.eventhorizon.case_loader import ADAPTER as EVENT_HORIZON
from tests.tactical.rule_cases import CaseAdapter, CaseError, run_case, sections_cited

# --- a toy engine: a counter that dice add to --------------------------------------------------

@dataclass(frozen=True)
class Toy:
    n: int = 0
    log: list = field(default_factory=list)  # mutable on purpose: a careless engine could change it


@dataclass(frozen=True)
class Add:
    dice: int


@dataclass(frozen=True)
class Refuse:
    rule: str = "999 1.1"
    roll: bool = False
    mutate: bool = False


@dataclass(frozen=True)
class ToyEvent:
    kind: str
    text: str
    data: dict


@dataclass(frozen=True)
class ToyResult:
    state: Toy
    events: tuple


class ToyError(ValueError):
    def __init__(self, rule: str, message: str):
        self.rule, self.message = rule, message
        super().__init__(f"{rule}: {message}")


class ToyCases(CaseAdapter):
    cases_dir = Path(__file__).parent  # unused
    book = "999"
    illegal = ToyError
    action_classes = {"Add": Add, "Refuse": Refuse}

    def initial_state(self, battle):
        return Toy(battle.get("n", 0))

    def apply(self, state, action, dice):
        if isinstance(action, Refuse):
            if action.roll:
                dice.roll(1, 6, "999 1.1 a careless roll")
            if action.mutate:
                state.log.append("changed")
            raise ToyError(action.rule, "not now")
        total = sum(dice.roll(action.dice, 6, "999 2.1 adding").faces) if action.dice else 0
        return ToyResult(Toy(state.n + total, state.log), (ToyEvent("added", f"added {total}", {"total": total}),))

    def legal_actions(self, state, pattern):
        return [Add(1)]

    def state_view(self, state):
        return {"n": state.n}


TOY = ToyCases()


def toy(*steps: dict) -> dict:
    return {"name": "toy", "rule": "999 2.1", "_file": "toy.json", "battle": {"n": 1}, "steps": list(steps)}


def test_a_case_that_holds_has_no_failures():
    case = toy({"action": {"type": "Add", "dice": 2}, "dice": [3, 4],
                "expect": {"state": {"n": 8}, "events": [{"kind": "added", "data": {"total": 7}, "count": 1}],
                           "events_absent": [{"kind": "removed"}], "rolls": ["2d6 999 2.1"],
                           "legal": [{"type": "Add", "dice": 1}], "not_legal": [{"type": "Add", "dice": 2}]}},
               {"action": {"type": "Refuse"}, "error": "not now"})
    assert run_case(TOY, case) == []


@pytest.mark.parametrize(("step", "failure"), [
    ({"action": {"type": "Add", "dice": 1}, "dice": [3], "expect": {"state": {"n": 5}}}, "state n: expected 5, got 4"),
    ({"action": {"type": "Add", "dice": 1}, "dice": [3, 6]}, "dice not used: [6]"),
    ({"action": {"type": "Add", "dice": 2}, "dice": [3]}, "step 1: "),
    ({"action": {"type": "Add", "dice": 1}, "dice": [3], "expect": {"events": [{"kind": "removed"}]}}, "matched 0"),
    ({"action": {"type": "Add", "dice": 1}, "dice": [3], "expect": {"events": [{"kind": "added", "count": 2}]}},
     "matched 1"),
    ({"action": {"type": "Add", "dice": 1}, "dice": [3], "expect": {"events_absent": [{"text": "ADDED 3"}]}},
     "should not have happened"),
    ({"action": {"type": "Add", "dice": 1}, "dice": [3], "expect": {"rolls": ["2d6"]}}, "rolls: expected"),
    ({"action": {"type": "Add", "dice": 0}, "expect": {"legal": [{"type": "Add", "dice": 2}]}}, "legal actions lack"),
    ({"action": {"type": "Add", "dice": 0}, "expect": {"not_legal": [{"type": "Add"}]}}, "legal actions have"),
    ({"action": {"type": "Add", "dice": 0}, "error": "not now"}, "expected a refusal containing 'not now'"),
    ({"action": {"type": "Refuse"}}, "refused: 999 1.1: not now"),
    ({"action": {"type": "Refuse"}, "error": "too late"}, "expected a message containing 'too late'"),
    ({"action": {"type": "Refuse", "roll": True}, "dice": [2], "error": "not now"}, "a refused action rolled dice"),
    ({"action": {"type": "Refuse", "mutate": True}, "error": "not now"}, "a refused action changed the state"),
    ({"action": {"type": "Refuse", "rule": "003 1.1"}, "error": "not now"}, "names no 999 section"),
    ({"action": {"type": "Refuse", "rule": "999 "}, "error": "not now"}, "names no 999 section"),
])
def test_a_case_that_does_not_hold_fails(step: dict, failure: str):
    failures = run_case(TOY, toy(step))
    assert any(failure in line for line in failures), failures


@pytest.mark.parametrize("step", [
    {"action": {"type": "Add", "dice": 0}, "typo": 1},
    {"action": {"type": "Jump"}},
    {"dice": [1]},
    {"action": {"type": "Add", "dice": 0}, "expect": {"shipz": {}}},
    {"action": {"type": "Add", "dice": 0}, "expect": {"state": {"m": 1}}},
    {"action": {"type": "Add", "dice": 0}, "expect": {"events": [{"kinds": "added"}]}},
])
def test_a_case_that_breaks_the_format_is_an_error(step: dict):
    with pytest.raises(CaseError):
        run_case(TOY, toy(step))


def test_sections_cited_reads_numbered_sections():
    assert sections_cited([{"rule": "000 5.5 Gaining Hits, 11.3 and 5.10"}, {"rule": "003 Lock On 2"}]) == {
        "5.5", "11.3", "5.10"}


# --- one real case of each rule book, made wrong on purpose ---------------------------------------

def _case(adapter: CaseAdapter, name: str) -> dict:
    return copy.deepcopy(next(c for c in adapter.load_cases() if c["name"] == name))


def test_event_horizon_case_with_a_wrong_expectation_fails():
    case = _case(EVENT_HORIZON, "lock_on_needs_4_plus")
    assert run_case(EVENT_HORIZON, case) == []
    case["steps"][0]["expect"]["ships"]["2"]["arcs"]["forward"] = 2
    assert any("ship 2 arcs: expected" in line for line in run_case(EVENT_HORIZON, case))
    case["steps"][0]["dice"] = [4, 3, 6]
    assert any("dice not used: [6]" in line for line in run_case(EVENT_HORIZON, case))


def test_buoyz_case_with_a_wrong_expectation_fails():
    case = _case(BUOYZ, "initiative_2d6_ties_rerolled")
    assert run_case(BUOYZ, case) == []
    case["steps"][0]["expect"]["state"]["initiative"] = 2
    assert any("state initiative: expected 2, got 1" in line for line in run_case(BUOYZ, case))
    case["steps"][0]["expect"]["ships"] = {"9": {"hull": 1}}
    assert any("ship 9: not in the battle" in line for line in run_case(BUOYZ, case))
