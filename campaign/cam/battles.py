"""The CAM layer's one door to battles fought on a tactical engine (issue 17: scenarios fought online).

A CAM scenario in "fought online" mode (``CamScenario.Mode.ONLINE``) is fought on the Buoyz 'N Da
'Hood engine as a ``tactical`` ``Battle`` row (ruleset ``buoyz``). The CAM layer does not import
``tactical`` (docs/architecture.md): ``tactical/apps.py`` registers, when Django starts, one object
with the methods of ``CamBattleHandler`` (``tactical/hosts/cam/scenarios.py``), and the CAM actions
(``campaign/cam/online.py``) call it through ``handler()``. The battle reports back through
``campaign.cam.online.record_progress`` and ``record_engine_result`` — the same CAM record and the
same scoring the tabletop entry uses. tests/test_architecture.py keeps campaign/cam free of
``tactical`` imports.
"""

from __future__ import annotations

from typing import Any, Protocol


class BattleStuck(Exception):
    """The engine cannot go on with the battle (its steps no longer replay, or the doctrine found
    nothing legal to do): the moderator settles the scenario by auto-resolve instead."""


class CamBattleHandler(Protocol):
    """What the CAM layer asks of the battle app. Every method runs inside the caller's
    transaction, the campaign row locked first (campaign/locks.py)."""

    def open_battle(self, campaign, cam, row) -> Any:
        """Set the scenario's table up on the engine (forces, table nature, edges, break-contact
        levels: ``deploy_cam``; with several gaming tables each ship on the table its player chose,
        ``online.chosen_tables(row)``, else dealt, ruling BZ94) as a new battle row and play on
        until a player must decide."""

    def book_title(self, campaign) -> str:
        """What the rubber's online scenarios are fought on, for messages: "the Buoyz engine" (CAM's
        own), or the title of the book the moderator chose ("battles fought online use", issue 31)."""

    def book_rulings(self, campaign) -> str:
        """The house rulings the rubber's forces are converted by on that book ("XC19, XC26-XC30"),
        "" on CAM's own (issue 31)."""

    def summary(self, row) -> dict | None:
        """The scenario's battle for pages and the API (no hidden information): id, status,
        ruleset, whose decision it is and until when, the sides the doctrine plays; None if none."""

    def act(self, campaign, row, seat: int, action: dict, user) -> dict:
        """``seat`` takes one decision (the engine's action as JSON); the summary after it."""

    def hand_to_doctrine(self, campaign, row, seat: int, on: bool, user) -> dict:
        """Hand ``seat``'s side to the computer doctrine (``on``) or take it back; the summary."""

    def finish_by_doctrine(self, campaign, row, user) -> None:
        """The moderator's settlement: the doctrine plays both sides to the end now (the result is
        scored through ``record_engine_result``). Raises ``BattleStuck``."""

    def close(self, campaign, row, user, note: str) -> None:
        """The scenario was settled without the engine (auto-resolve): close its battle row."""

    def report(self, row) -> list[str]:
        """The battle report of a finished battle for the scenario's report email: each side's ships
        lost, crippled and left, how it ended, the points lost (empty: no battle fought online)."""

    def pause_clock(self, campaign, now) -> None:
        """The moderator paused the campaign: each battle being played keeps the time its deciding
        side had left (its decision deadline stops; ruling CAM60)."""

    def resume_clock(self, campaign, now) -> None:
        """The moderator resumed the campaign: each battle's deciding side gets the time it had left
        when the campaign was paused (ruling CAM60, as MO1 gives a turn its time back)."""

    def after_roll_back(self, campaign) -> list[int]:
        """The moderator rolled the rubber back a step (its CAM rows restored, the dice log cut
        back): delete the battles of scenarios no longer being fought online (their dice are
        gone), reopen one whose scenario is being fought again; the ids deleted."""


_handler: CamBattleHandler | None = None


def register(handler: CamBattleHandler) -> None:
    """Called once by the battle app's ``AppConfig.ready``."""
    global _handler
    _handler = handler


def handler() -> CamBattleHandler:
    if _handler is None:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("no CAM battle handler is registered: is the 'tactical' app in INSTALLED_APPS?")
    return _handler
