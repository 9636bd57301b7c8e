"""The rule-case runner every tactical rule book's cases share.

A rule case (a JSON object in a book's ``cases/*.json``; the format in that folder's README) is a
battle position and a few steps with fixed dice, naming the rule book section it tests. What is
the same for every rule book lives here: reading the files, the step loop with ``FixedDice``
(every face listed must be rolled), a refused step (it must be refused with the expected text,
by an ``IllegalActionError`` whose ``rule`` names a section of the book, rolling nothing and
changing nothing), matching events, rolls, the state, records such as ships and the legal
actions, and the failure message naming the case's file, name and section.

What differs is a small ``CaseAdapter`` per rule book, as ``PlayRules`` is for online play: how
to build the first state from the case's ``battle``, how to decode and apply a step, what the
state and its records (ships, flights, planets, …) look like to an ``expect``, which actions are
legal, and the book's own expectations (Event Horizon's ``outcome``, Buoyz's ``cam``).
``tests/tactical/eventhorizon/case_loader.py`` (Event Horizon) and ``tests/tactical/buoyz/case_loader.py``
(Buoyz 'N Da 'Hood) are the two adapters; a new rule book writes a third.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from campaign.rules.dice import DiceError, FixedDice, Roll
from tests.rules.eventhorizon.case_loader import CaseError, read_case_files

__all__ = ["CaseAdapter", "CaseError", "action_from", "case_param", "check_case", "jsonish", "matches",
           "run_case", "sections_cited", "tuplify"]

CASE_KEYS = {"name", "rule", "doc", "battle", "steps", "xfail"}
CASE_REQUIRED = ("name", "rule", "battle", "steps")
STEP_KEYS = {"action", "dice", "expect", "error", "doc"}
EXPECT_KEYS = {"events", "events_absent", "rolls", "state", "legal", "not_legal"}
EVENT_KEYS = {"kind", "text", "data", "count"}


# --- values as JSON reads them ----------------------------------------------------------------

def tuplify(value: Any) -> Any:
    """JSON lists as tuples (the engines' frozen dataclasses hold tuples)."""
    if isinstance(value, list):
        return tuple(tuplify(v) for v in value)
    return value


def jsonish(value: Any) -> Any:
    """A value as JSON would read it: mappings with text keys, tuples and sets as lists."""
    if isinstance(value, Mapping):
        return {str(k): jsonish(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, frozenset, set)):
        return [jsonish(v) for v in value]
    return value


def matches(expected: Any, actual: Any) -> bool:
    """Objects match as subsets (recursively), lists element by element, numbers with a float
    among them to 0.001, the rest by equality."""
    if isinstance(expected, dict):
        return isinstance(actual, Mapping) and all(k in actual and matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            matches(e, a) for e, a in zip(expected, actual))
    if isinstance(expected, float) or isinstance(actual, float):
        numbers = all(isinstance(v, (int, float)) for v in (expected, actual))
        return numbers and abs(float(expected) - float(actual)) < 1e-3
    return expected == actual


def action_json(action: Any) -> dict[str, Any]:
    """An engine action (a dataclass) as a case writes it: ``{"type": class name, field: value}``."""
    out = {"type": type(action).__name__}
    out.update({k: jsonish(v) for k, v in action.__dict__.items()})
    return out


def action_from(raw: Mapping[str, Any], classes: Mapping[str, type]) -> Any:
    """The action a case writes as ``{"type": class name, field: value}`` (lists become tuples)."""
    raw = dict(raw)
    kind = raw.pop("type", None)
    cls = classes.get(kind)
    if cls is None:
        raise CaseError(f"unknown action type {kind!r} (known: {sorted(classes)})")
    return cls(**{k: tuplify(v) for k, v in raw.items()})


def sections_cited(cases: Iterable[Mapping[str, Any]]) -> set[str]:
    """The numbered sections (``5.5``, ``11.3``) the cases' ``rule`` texts cite."""
    cited: set[str] = set()
    for case in cases:
        cited |= set(re.findall(r"(?<![\d.])(\d+\.\d+)(?![\d.])", case["rule"]))
    return cited


# --- the adapter --------------------------------------------------------------------------------

class CaseAdapter:
    """What the runner asks of one rule book. Subclass it and fill in the hooks marked below."""

    #: the folder of the book's ``*.json`` cases
    cases_dir: Path
    #: the book's number: every refusal's ``rule`` must start with it (``"003"``, ``"000"``)
    book: str
    #: the engine's refusal (it has ``rule``, the section, and ``message``)
    illegal: type[Exception]
    #: step keys besides ``action``, ``dice``, ``expect``, ``error``, ``doc`` (e.g. ``draw``)
    step_keys: frozenset[str] = frozenset()
    #: event pattern keys besides ``kind``, ``text``, ``data``, ``count`` (e.g. ``public``)
    event_keys: frozenset[str] = frozenset()
    #: the book's own ``expect`` keys, checked by ``check_more``
    expect_keys: frozenset[str] = frozenset()
    #: the action classes a step's ``{"type": …}`` may name, by name
    action_classes: Mapping[str, type] = {}

    def load_cases(self) -> list[dict]:
        return read_case_files(self.cases_dir, CASE_KEYS, CASE_REQUIRED)

    # hooks (``initial_state`` and ``apply`` are usually ``staticmethod`` of the loader's and the
    # engine's functions) -------------------------------------------------------------------------

    def initial_state(self, battle: Mapping[str, Any]) -> Any:
        """The state a case's ``battle`` describes (raise ``CaseError`` for a bad one)."""
        raise NotImplementedError

    def apply(self, state: Any, action: Any, dice: FixedDice) -> Any:
        """The engine's ``apply``: a result with ``state`` and ``events``."""
        raise NotImplementedError

    def decode_action(self, raw: Mapping[str, Any]) -> Any:
        """The engine action of a step's ``action``: one of ``action_classes``, fields by name."""
        return action_from(raw, self.action_classes)

    def perform(self, state: Any, step: Mapping[str, Any], dice: FixedDice) -> Any:
        """Carry out one step; override for steps that are not an ``action`` (``step_keys``)."""
        if "action" not in step:
            raise CaseError("a step needs 'action'")
        return self.apply(state, self.decode_action(step["action"]), dice)

    def legal_actions(self, state: Any, pattern: Mapping[str, Any]) -> Iterable[Any]:
        """The legal actions a ``legal`` / ``not_legal`` pattern is looked for among."""
        raise NotImplementedError

    def state_view(self, state: Any) -> dict[str, Any]:
        """What ``expect.state`` may check, by key."""
        raise NotImplementedError

    def records(self) -> Mapping[str, tuple[str, Callable[[Any, str], dict[str, Any] | None]]]:
        """``expect`` keys of ``{id: {field: value}}`` records: key -> (what it is called in a
        message, a function of the state and the id giving the record's fields, or None when
        there is no such record)."""
        return {}

    def check_more(self, expect: Mapping[str, Any], state: Any) -> list[str]:
        """The failing checks of the book's own ``expect_keys``."""
        return []


# --- running a case ---------------------------------------------------------------------------

def _event_matches(pattern: Mapping[str, Any], event: Any) -> bool:
    if "kind" in pattern and pattern["kind"] != event.kind:
        return False
    if "text" in pattern and pattern["text"].lower() not in event.text.lower():
        return False
    if "data" in pattern and not matches(pattern["data"], jsonish(dict(event.data))):
        return False
    return all(pattern[k] == getattr(event, k) for k in pattern if k not in EVENT_KEYS)


def describe_rolls(rolls: list[Roll]) -> str:
    return "\n".join(f"    {r.expression} {list(r.faces)} for {r.purpose}" for r in rolls) or "    (none)"


def describe_events(events: Iterable[Any]) -> str:
    return "\n".join(f"    {e.kind}: {e.text} {jsonish(dict(e.data))}" for e in events) or "    (none)"


def check_expect(adapter: CaseAdapter, expect: Mapping[str, Any], state: Any, events: tuple[Any, ...],
                 rolls: list[Roll]) -> list[str]:
    """Every check of ``expect`` that fails, as a readable line."""
    records = adapter.records()
    unknown = set(expect) - EXPECT_KEYS - set(records) - adapter.expect_keys
    if unknown:
        raise CaseError(f"expect: unknown key(s) {sorted(unknown)}")
    errors: list[str] = []
    for key, (called, view_of) in records.items():
        for rid, want in expect.get(key, {}).items():
            view = view_of(state, rid)
            if view is None:
                errors.append(f"{called} {rid}: not in the battle")
                continue
            for k, v in want.items():
                if k not in view:
                    raise CaseError(f"expect.{key}.{rid}: unknown attribute {k!r}")
                if not matches(v, view[k]):
                    errors.append(f"{called} {rid} {k}: expected {v!r}, got {view[k]!r}")
    for key in ("events", "events_absent"):
        for pattern in expect.get(key, []):
            unknown = set(pattern) - EVENT_KEYS - adapter.event_keys
            if unknown:
                raise CaseError(f"expect.{key}: unknown pattern key(s) {sorted(unknown)}")
    for pattern in expect.get("events", []):
        count = pattern.get("count")
        n = sum(1 for e in events if _event_matches(pattern, e))
        if (count is None and n == 0) or (count is not None and n != count):
            errors.append(f"event {pattern!r}: matched {n} event(s)")
    for pattern in expect.get("events_absent", []):
        if any(_event_matches(pattern, e) for e in events):
            errors.append(f"event {pattern!r} should not have happened")
    if "rolls" in expect:
        got = [f"{r.expression} {r.purpose}" for r in rolls]
        want = expect["rolls"]
        if len(got) != len(want) or not all(g.startswith(w) for w, g in zip(want, got)):
            errors.append(f"rolls: expected {want!r}, got {got!r}")
    if "state" in expect:
        view = adapter.state_view(state)
        for k, v in expect["state"].items():
            if k not in view:
                raise CaseError(f"expect.state: unknown key {k!r}")
            if not matches(v, view[k]):
                errors.append(f"state {k}: expected {v!r}, got {view[k]!r}")
    errors += adapter.check_more(expect, state)
    for key, present in (("legal", True), ("not_legal", False)):
        for want in expect.get(key, []):
            found = any(matches(want, action_json(a)) for a in adapter.legal_actions(state, want))
            if found != present:
                errors.append(f"legal actions {'lack' if present else 'have'} {want!r}")
    return errors


def _refusal(adapter: CaseAdapter, step: Mapping[str, Any], exc: Exception, dice: FixedDice, before: str,
             state: Any) -> list[str]:
    """What is wrong with a refusal the step expects (``error``)."""
    failures = []
    if step["error"].lower() not in str(exc).lower():
        failures.append(f"refused with {str(exc)!r}, expected a message containing {step['error']!r}")
    rule = getattr(exc, "rule", "")
    if not (isinstance(rule, str) and rule.startswith(adapter.book + " ") and rule[len(adapter.book) + 1:].strip()):
        failures.append(f"the refusal names no {adapter.book} section (rule={rule!r}): {exc}")
    if dice.rolls:
        failures.append(f"a refused action rolled dice:\n{describe_rolls(dice.rolls)}")
    if repr(state) != before:
        failures.append("a refused action changed the state")
    return failures


def run_case(adapter: CaseAdapter, case: Mapping[str, Any]) -> list[str]:
    """Run every step of ``case``; the failure lines (empty when it holds)."""
    state = adapter.initial_state(case["battle"])
    failures: list[str] = []
    for i, step in enumerate(case["steps"]):
        unknown = set(step) - STEP_KEYS - adapter.step_keys
        if unknown:
            raise CaseError(f"{case['name']}: steps[{i}]: unknown key(s) {sorted(unknown)}")
        where = f"step {i + 1}"
        dice = FixedDice(step.get("dice", []))
        before = repr(state) if "error" in step else ""
        try:
            res = adapter.perform(state, step, dice)
        except adapter.illegal as exc:
            if "error" not in step:
                return failures + [f"{where}: refused: {exc}\n  rolls:\n{describe_rolls(dice.rolls)}"]
            failures += [f"{where}: {e}" for e in _refusal(adapter, step, exc, dice, before, state)]
            continue
        except DiceError as exc:
            return failures + [f"{where}: {exc}\n  rolls:\n{describe_rolls(dice.rolls)}"]
        if "error" in step:
            return failures + [f"{where}: expected a refusal containing {step['error']!r}, but it was accepted:\n"
                               f"{describe_events(res.events)}"]
        if res.state is state:
            failures.append(f"{where}: an accepted step returned the state it was given")
        state = res.state
        errors = check_expect(adapter, step.get("expect", {}), state, res.events, dice.rolls)
        left = dice.remaining()
        if left:
            errors.append(f"dice not used: {left} (every face of a case must be rolled)")
        if errors:
            failures += [f"{where}: {e}" for e in errors]
            failures.append(f"  rolls:\n{describe_rolls(dice.rolls)}\n  events:\n{describe_events(res.events)}")
    return failures


# --- the tests -----------------------------------------------------------------------------------

def case_param(case: Mapping[str, Any]) -> Any:
    """A case as a pytest parameter, its id the case name; ``xfail`` makes it a strict xfail."""
    marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") else []
    return pytest.param(case, id=case["name"], marks=marks)


def check_case(adapter: CaseAdapter, case: Mapping[str, Any]) -> None:
    """Fail the test with every failure line, naming the case's file, name and section."""
    failures = run_case(adapter, case)
    if failures:
        pytest.fail(f"{case['_file']}: {case['name']} ({case['rule']}):\n  " + "\n  ".join(failures), pytrace=False)
