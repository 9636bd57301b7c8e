"""Reading a CAM campaign for the pages and API: the standings and the break-contact
conditions met now."""

from __future__ import annotations

from campaign.rules.cam import breakcontact as bc
from campaign.rules.cam import scoring as scoring_rules

from .. import adapters
from ..models import CamCampaign, CamScenario

# --- reading -------------------------------------------------------------------------------------


def standings(cam: CamCampaign):
    return scoring_rules.standings(adapters.campaign_state(cam))


def checks_now(row: CamScenario) -> dict[int, tuple[int, ...]]:
    """CAM 3.1: the conditions each side meets now, counting this turn's entries made so far
    (a side that meets one must check at the coming End Phase)."""
    if row.battle is None:
        return {}
    battle = adapters.battle_state(row, adapters.campaign_state(row.cam))
    for seat, entry in row.turn_entries.items():
        battle = bc.record_damage(battle, int(seat), **entry)
    return {s: bc.conditions_met(battle, s) for s in battle.scenario.seats}
