"""The platform's one door to battles fought as games (issue 15: no import loop between the apps).

A campaign turn may stop at battles that are fought as games — online or on a real tabletop —
and finish once they are settled (docs/battles.md). Those battles, their pages and their
settlement live in the ``tactical`` app, which builds on the platform; the platform does not
import ``tactical``. Instead ``tactical/apps.py`` registers, when Django starts, one object with
the methods of ``BattleHandler`` (``tactical/battles/hooks.py``), and the platform — the turn
actions, roll-back, the due-work sweeps, the order page and the home page — calls it through
``handler()``. tests/test_architecture.py keeps it that way.
"""

from __future__ import annotations

from typing import Any, Protocol


class BattleHandler(Protocol):
    """What the platform asks of the battle app. Every method runs inside the caller's
    transaction (the turn actions hold the campaign row lock, campaign/locks.py)."""

    # -- the campaign turn (campaign/actions/turns.py) --
    def game_chooser(self, campaign) -> Any:
        """``fought_as_game(state, battle) -> bool`` for the engine's ``resolve_turn``."""

    def battle_json(self, battle) -> dict:
        """An engine battle (``conflict.Battle``) as JSON, stored in ``Turn.pending``."""

    def battle_from_json(self, raw: dict) -> Any:
        """The inverse of ``battle_json``."""

    def open_battles(self, campaign, turn, state, battles) -> None:
        """Create the rows of the battles a turn stopped at."""

    def finish_turn_if_ready(self, campaign) -> Any:
        """Finish the waiting turn if every battle is settled; the finished Turn or None."""

    def results_for(self, campaign, turn) -> dict:
        """The settled battles' results, by index, for ``complete_turn``."""

    def auto_settled_for(self, campaign, turn) -> dict:
        """Battles handed off as games and then auto-resolved: how, by index."""

    # -- the rule book battles are fought on (issue 31; campaign/actions/, the lobby and panel) --
    def book_choices(self, layer: str) -> list[tuple[str, str]]:
        """The rule books a campaign of ``layer`` may fight its battles on online: (key, title),
        the layer's own first (its default)."""

    def battles_begun(self, campaign) -> bool:
        """Whether any battle of the campaign has been handed off as a game (the rule book can
        no longer change)."""

    # -- moderation (campaign/actions/moderation.py) --
    def discard_battles(self, campaign, from_turn: int) -> list[int]:
        """Delete the campaign's battles of turn ``from_turn`` and later (a roll-back); their ids."""

    # -- the due-work sweeps (campaign/middleware.py, processdue) --
    def sweep_due(self, now=None) -> tuple[int, int]:
        """Settle battles past their deadline, let the doctrine play late activations:
        (battles settled, activations played)."""

    # -- the dice log (campaign/dice.py) --
    def hidden_dice(self, campaign, seat: int) -> frozenset[int]:
        """The rolls (``seq``) of the campaign's dice log whose purposes ``seat`` may not read
        yet: the dice of the steps of its battles being fought that are hidden from it (their
        purposes would name a cloaked or lurking ship; ruling DL5)."""

    # -- orders as text (campaign/eventhorizon/actions/textorders.py) --
    def set_battle_preference(self, *, empire_id: int, user, preference: str) -> None:
        """The player's battle preference (``""``: the campaign's mode); raises ValueError with
        the reason when it cannot be set (the campaign does not let players ask)."""

    # -- pages (campaign/eventhorizon/views/orders.py, campaign/views/dashboard.py) --
    def waiting_battles(self, user, campaign, turn_number: int) -> list:
        """The turn's battles ``user`` may see, in order."""

    def seat_name(self, battle, seat) -> str:
        """How a battle names one of its sides."""

    def unresolved_battles(self, seats: dict[int, int], moderated: list[int]) -> dict[int, list]:
        """Battles not yet resolved, by campaign id: those of the given seat in each campaign of
        ``seats`` (campaign id → seat), and the disputed ones of the ``moderated`` campaigns."""


_handler: BattleHandler | None = None


def register(handler: BattleHandler) -> None:
    """Called once by the battle app's ``AppConfig.ready``."""
    global _handler
    _handler = handler


def handler() -> BattleHandler:
    if _handler is None:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("no battle handler is registered: is the 'tactical' app in INSTALLED_APPS?")
    return _handler
