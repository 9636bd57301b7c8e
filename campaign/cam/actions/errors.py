"""The refusals of the CAM actions: ``CamActionError`` (400), ``NotAllowed`` (403), ``NotFound``
(404), and the engine errors an action turns into a refusal.

They are kinds of the platform's refusals (``campaign.actions.ActionError``, ``NotAllowed``,
``NotFound``), so the platform's pages and API answer a CAM action the platform calls through the
layer registry (lobby start, roll-back) as they answer their own: 400, 403, 404."""

from __future__ import annotations

from campaign.actions import errors as platform
from campaign.rules.cam import breakcontact as bc
from campaign.rules.cam import factions as fx
from campaign.rules.cam import replacements as rp
from campaign.rules.cam import scenario as sc
from campaign.rules.cam import scoring as scoring_rules
from campaign.rules.cam import ships as sh
from campaign.rules.cam import state as st

ENGINE_ERRORS = (st.CampaignSetupError, sh.SDError, fx.FactionError, sc.ScenarioError, sc.ForceSelectionError,
                 bc.BattleError, scoring_rules.ScoringError, rp.ReplacementError)


class CamActionError(platform.ActionError):
    """A refused action; the message names the problem (and the rule). Nothing was changed.
    ``reason`` is the engine's short code where it gives one (e.g. ``over_points``)."""

    def __init__(self, message: str, reason: str = ""):
        self.reason = reason
        super().__init__(message)


class Paused(CamActionError):
    """A player's action that would make a step of a paused rubber (HTTP 409): it waits for the
    moderator's resume (ruling CAM60)."""

    http_status = 409

    def __init__(self, message: str):
        super().__init__(message, "paused")


class NotAllowed(CamActionError, platform.NotAllowed):
    pass


class NotFound(CamActionError, platform.NotFound):
    pass


def _refuse(exc: Exception) -> CamActionError:
    return CamActionError(str(exc), getattr(exc, "reason", ""))
