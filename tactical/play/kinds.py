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

A battle of the generic kind is titled by its host, the layer of its campaign row
(``HOST_PAGES``: a pickup battle's host registers its own; a campaign turn's battle, the default,
is "Battle 3 at (4, 5)"). Every page dict has ``title``, ``subtitle``, ``back_url``,
``back_label`` and ``after_end`` (what the end of the battle leads to, said under its result;
"" when nothing more is to be said); ``hex`` is true for a battle fought in a hex of a campaign
map (its hex and campaign turn are then shown). ``page_for(battle)`` answers it for any battle (issue 23
items 15 and 17: no template asks which host or rule book a battle has).

This module imports no engine (tests/test_architecture.py rule (f)).
"""

from __future__ import annotations

from collections.abc import Callable
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


# campaign layer key -> page(battle) -> dict, for battles of the generic kind (tactical/apps.py)
HOST_PAGES: dict[str, Callable[[Any], dict]] = {}
# campaign layer key -> seats_of(user, battle) -> [seat], for battles of the generic kind whose sides
# are not the campaign's ``Empire`` seats (issue 31: a CAM scenario fought on another rule book).
HOST_SEATS: dict[str, Callable[[Any, Any], list[int]]] = {}


def campaign_turn_page(battle) -> dict:
    """A campaign turn's battle (Event Horizon's map): its hex and turn, back to its campaign; one
    fought on another rule book names it (issue 31: the page's rules are that book's, not the
    campaign's)."""
    subtitle = f"turn {battle.turn}"
    if battle.converted:
        from tactical.rules import registry

        subtitle += f", on {registry.book_title(battle.ruleset)} (converted)"
    return {"title": f"Battle {battle.pk} at ({battle.x}, {battle.y})", "subtitle": subtitle,
            "back_url": f"/campaigns/{battle.campaign_id}/", "back_label": battle.campaign.name,
            "after_end": "The result has gone to the campaign.", "hex": True}


def page_for(battle) -> dict:
    """The title, the link back and the words after the end of ``battle``, from its kind or its host."""
    kind = kind_for(battle)
    if kind is not None:
        return {"after_end": "", **kind.page(battle)}
    return HOST_PAGES.get(battle.campaign.layer, campaign_turn_page)(battle)


__all__ = ["HOST_PAGES", "HOST_SEATS", "BattleKind", "campaign_turn_page", "kind_for", "page_for", "register"]
