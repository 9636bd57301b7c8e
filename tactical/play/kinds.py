"""Battles that online play shows but does not drive itself (issue 17: CAM scenarios fought online).

A battle of the generic kind (tactical/play/actions.py) is set up from its stored ``setup`` by its
rule book's ``PlayRules.initial_state``, its sides are the campaign's ``Empire`` seats, and its
actions, deadlines and end are the generic ones. A battle another part of the site drives — a CAM
scenario fought online, whose seats are the CAM players, whose table comes from the scenario's
CAM record and whose end is scored by the CAM layer — registers a ``BattleKind`` here (its app's
``AppConfig.ready``). The play and replay pages and the battle API then look the same, with:

- ``owns(battle)``: whether the battle is of this kind;
- ``rules``: its ``PlayRules`` (may differ from the ruleset's registered one);
- ``initial_state(battle, dice)``: the state before its first step (its steps are then replayed
  with the logged dice by tactical/play/embedded.py as for any battle);
- ``seats_of(user, battle)``: the sides the user commands; ``is_moderator(user, battle)``;
- ``take_action`` / ``hand_to_doctrine``: its own actions (raising the ``PlayError`` subclasses
  of tactical/play/actions.py), so that its end is scored where it belongs;
- ``page(battle)``: the title and the link back to where the battle belongs.

This module imports no engine (tests/test_architecture.py rule (f)).
"""

from __future__ import annotations

from typing import Any, Protocol


class BattleKind(Protocol):
    rules: Any

    def owns(self, battle) -> bool: ...

    def initial_state(self, battle, dice) -> Any: ...

    def seats_of(self, user, battle) -> list[int]: ...

    def is_moderator(self, user, battle) -> bool: ...

    def take_action(self, *, battle_id: int, user, action_json) -> None: ...

    def hand_to_doctrine(self, *, battle_id: int, user, on: bool) -> None: ...

    def page(self, battle) -> dict: ...


_KINDS: list[BattleKind] = []


def register(kind: BattleKind) -> None:
    if not any(type(k) is type(kind) for k in _KINDS):
        _KINDS.append(kind)


def kind_for(battle) -> BattleKind | None:
    """The registered kind that owns ``battle`` (None: a battle of the generic kind)."""
    for kind in _KINDS:
        if kind.owns(battle):
            return kind
    return None


__all__ = ["BattleKind", "kind_for", "register"]
