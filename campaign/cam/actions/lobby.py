"""A CAM rubber in the platform's lobby: created there (status SETUP, no players yet), joined
by invitation like any campaign (``campaign.actions.join_campaign``), and started from the lobby
page (``campaign.actions.start_campaign``), which calls ``start_from_lobby`` through the layer
registry once the two players have joined. The fleets are then set on the CAM page and the
moderator starts the rubber (``setup.start``, CAM 4.0) as for a campaign made with
``create_cam_campaign``.
"""

from __future__ import annotations

import secrets

from django.db import transaction

from campaign.models import Campaign, Membership
from campaign.rules.cam import factions as fx
from campaign.rules.cam import state as st
from campaign.rules.dice import derive_seed, new_seed, seed_hash

from .. import adapters
from ..models import LAYER, CamCampaign, CamPlayer, ScenarioMode
from .common import set_step_deadline
from .errors import CamActionError, NotAllowed, _refuse

MAX_STEP_HOURS = 24 * 365
SEATS = 2  # ruling CAM5: a rubber is fought between two fleets


def check_campaign_setting(key: str, value):
    """``value`` for the Campaign field ``key`` the CAM lobby sets (``turn_hours``, the hours per
    step, from its create form; ``seats``, always two; ``setup_hours``, the platform's default: a
    rubber has no set-up round deadline, held to the same bounds as a step's) as the lobby takes
    it, for its create and an import; raises CamActionError in the lobby's words."""
    if key == "seats":
        if isinstance(value, bool) or value != SEATS:
            raise CamActionError(f"a rubber has two seats (ruling CAM5), not {value!r}")
        return value
    label = {"turn_hours": "the hours per step", "setup_hours": "the set-up deadline in hours"}[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_STEP_HOURS:
        raise CamActionError(f"{label} must be a whole number from 0 to {MAX_STEP_HOURS}, not {value!r}")
    return value


def _checked_settings(*, period, starting_points, scenarios, points_level, break_percent, replacement_percent,
                      survival_roll, tables, replacement_house_rule, battle_mode,
                      scenario_mode=ScenarioMode.TABLETOP) -> dict:
    """The CAM settings (CAM 4.0, 4.1, 2.2, 2.3, 4.2), checked by the engine; the CamCampaign fields."""
    settings = st.CamSettings(period=period, starting_points=starting_points, scenarios=scenarios,
                              points_level=points_level, break_percent=break_percent,
                              replacement_percent=replacement_percent, survival_roll=survival_roll,
                              tables=tables, replacement_house_rule=replacement_house_rule)
    try:
        settings.check()
    except st.CampaignSetupError as exc:
        raise _refuse(exc) from None
    if battle_mode not in CamCampaign.BattleMode.values:
        raise CamActionError(f"battle mode is one of {CamCampaign.BattleMode.values}, not {battle_mode!r}")
    if scenario_mode not in ScenarioMode.values:
        raise CamActionError(
            f"the scenarios' mode is one of {', '.join(ScenarioMode.values)}, not {scenario_mode!r}"[:300]
        )
    return {
        "scenario_mode": scenario_mode,
        "period": period,
        "starting_points": starting_points,
        "scenarios": scenarios,
        "points_level": points_level,
        "break_percent": break_percent,
        "replacement_percent": replacement_percent,
        "survival_roll": survival_roll,
        "battle_mode": battle_mode,
        "tables": tables,
        "replacement_house_rule": replacement_house_rule,
    }


@transaction.atomic
def create_cam_lobby(*, moderator, name: str, period: int, starting_points: int,
                     scenarios: int = st.DEFAULT_SCENARIOS, points_level: int = st.DEFAULT_POINTS_LEVEL,
                     break_percent: int = st.DEFAULT_BREAK_PERCENT,
                     replacement_percent: int = st.DEFAULT_REPLACEMENT_PERCENT, survival_roll: bool = False,
                     battle_mode: str = CamCampaign.BattleMode.TABLETOP, seed: str | None = None, tables: int = 1,
                     replacement_house_rule: bool = False, step_hours: int = 72, listed: bool = False,
                     scenario_mode: str = ScenarioMode.TABLETOP, battle_book: str = "") -> Campaign:
    """A CAM rubber waiting in the lobby (status SETUP) with ``moderator`` as its moderator, its
    invitation link on and two seats (ruling CAM5). ``step_hours``: the time each step of the
    rubber gets (``Campaign.turn_hours``; 0: no deadline); ``scenario_mode``: how its scenarios
    are fought unless the moderator switches one."""
    if moderator is None or not moderator.is_authenticated:
        raise NotAllowed("log in to create a campaign")
    name = name.strip() if isinstance(name, str) else ""
    if not name:
        raise CamActionError("the campaign needs a name")
    check_campaign_setting("turn_hours", step_hours)
    if not isinstance(listed, bool):
        raise CamActionError(f"listing among the open campaigns must be on or off, not {listed!r}")
    fields = _checked_settings(period=period, starting_points=starting_points, scenarios=scenarios,
                               points_level=points_level, break_percent=break_percent,
                               replacement_percent=replacement_percent, survival_roll=survival_roll, tables=tables,
                               replacement_house_rule=replacement_house_rule, battle_mode=battle_mode,
                               scenario_mode=scenario_mode)
    from campaign.actions.campaigns import check_battle_book
    from campaign.actions.errors import ActionError

    try:  # issue 31: the rule book scenarios fought online use ("": Buoyz, CAM's own)
        book = check_battle_book(LAYER, battle_book)
    except ActionError as exc:
        raise CamActionError(str(exc), "bad_book") from None
    seed_raw = derive_seed(seed) if seed else new_seed()
    campaign = Campaign.objects.create(
        name=name[:120], layer=LAYER, width=0, height=0, status=Campaign.Status.SETUP, turn=1, seats=SEATS,
        dice_seed=seed_raw.hex(), seed_hash=seed_hash(seed_raw), moderator=moderator, battle_mode="tabletop",
        turn_hours=step_hours, invite_token=secrets.token_urlsafe(32), listed=listed,
        options={"battle_book": book} if book else {})
    CamCampaign.objects.create(campaign=campaign, **fields)
    Membership.objects.create(campaign=campaign, user=moderator, role=Membership.Role.MODERATOR)
    return campaign


def check_join(campaign: Campaign, *, role: str, empire_name: str, faction: str) -> None:
    """A player joining from the lobby names their fleet and a power the rule book classes (its
    CAM 4.2 wealth class and CAM 3.1 temper come from the book). Another power needs the
    moderator's "best fit" wealth class: the moderator sets such a rubber up on the CAM page."""
    if role != Membership.Role.PLAYER:
        return
    try:
        fx.faction(faction)
    except fx.FactionError:
        raise CamActionError(
            f"{fx.WEALTH_RULE}: {faction!r} is not a power the rule book classes; through the lobby, join as one "
            f"of {', '.join(fx.PRESETS)} (for another power the moderator sets the rubber up on the CAM page, "
            "choosing its wealth class)") from None


def start_from_lobby(campaign: Campaign, players: list[Membership], *, now=None) -> None:
    """Called by the platform's ``start_campaign`` under the campaign row lock: the two players
    who joined take seats 1 and 2 in the order they joined, with the fleet name and power they
    chose; the set-up step (the starting fleets, CAM 4.0) opens with its deadline."""
    if len(players) != 2:
        raise CamActionError(f"{st.CAMPAIGN_RULE}: a CAM rubber is fought between two players (ruling CAM5); "
                             f"{len(players)} ha{'s' if len(players) == 1 else 've'} joined")
    cam = campaign.cam
    for seat, member in enumerate(players, start=1):
        try:
            fields = adapters.faction_fields(member.faction, None, None)
        except fx.FactionError as exc:
            raise CamActionError(f"player {seat} ({member.user.username}): {exc}") from None
        CamPlayer.objects.create(cam=cam, user=member.user, seat=seat,
                                 name=member.empire_name[:80] or f"{fields['faction']} fleet", **fields)
    campaign.status = Campaign.Status.ACTIVE
    set_step_deadline(campaign, cam, now)


def start_points(campaign: Campaign, players: int) -> list[str]:
    return [f"The two players who joined take seats 1 and 2 ({players} of 2 have joined; ruling CAM5).",
            "Nobody can join as a player afterwards.",
            "Each player then enters a starting fleet on the CAM page, and you start the rubber there (CAM 4.0)"
            + (f"; each step of the rubber has {campaign.turn_hours} hours." if campaign.turn_hours
               else "; the steps have no deadline.")]
