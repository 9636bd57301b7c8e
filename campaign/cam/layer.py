"""CAM's record in the platform's layer registry (``campaign/layers.py``), registered by
``CamConfig.ready()`` (``campaign/cam/apps.py``).

Through it the platform's lobby creates a CAM rubber (``LobbyForm``, ``create_cam_lobby``), lets
players join it by invitation (``check_join``) and starts it (``start_from_lobby``); the
platform's moderation pauses, resumes and extends the open step's deadline (``current_step``,
``set_deadline``; on resuming, ``after_resume`` makes a step the players completed while paused and
restarts a battle's decision clock that ``after_pause`` stopped, ruling CAM60) and rolls back the
last step (``roll_back_step``); the home page shows a line per
rubber (``home_facts``); press writes to and from its fleets (``seats``); the platform's due-work sweeps and
reminders reach a step's deadline (``due_steps``, ``process_due``, ``send_reminders``:
``actions/deadlines.py``). CAM's own pages are under ``/cam/`` (``cam-detail`` and ``PAGES``).
"""

from __future__ import annotations

from django.db.models import Count, Q

from campaign.layers import CampaignLayer, HomeFacts, JoinWords, Seat
from campaign.models import AuditEntry, Campaign, Membership
from campaign.rules.cam import factions as fx
from campaign.rules.cam import scoring as scoring_rules

from . import exchange
from .actions import deadlines, lobby, moderation, scenarios
from .actions.common import step_label
from .actions.exchange import import_rubber
from .forms import LobbyForm
from .models import LAYER, CamCampaign, CamPlayer, CamScenario

PAGES = ("cam-detail", "cam-fleet", "cam-start", "cam-sds", "cam-generate", "cam-between", "cam-between-run",
         "cam-standings", "cam-scenario")


def home_facts(campaigns: list[Campaign]) -> dict[int, HomeFacts]:
    ids = [c.pk for c in campaigns]
    scored = Q(scenario_rows__stage=CamScenario.Stage.SCORED)
    cams = {c.pk: c for c in CamCampaign.objects.filter(pk__in=ids).annotate(
        seated=Count("players", distinct=True), played=Count("scenario_rows", filter=scored, distinct=True))}
    current = {}  # each rubber's scenario in progress (the highest not scored), one query for all
    for row in CamScenario.objects.filter(cam_id__in=ids).exclude(stage=CamScenario.Stage.SCORED).order_by("number"):
        current[row.cam_id] = row
    fleets: dict[int, dict[int, tuple[int, str, int]]] = {}  # campaign -> seat -> (user, fleet name, CPs)
    for campaign_id, seat, user_id, name, points in CamPlayer.objects.filter(cam_id__in=ids).values_list(
            "cam_id", "seat", "user_id", "name", "campaign_points"):
        fleets.setdefault(campaign_id, {})[seat] = (user_id, name, points)
    joined = dict(Membership.objects.filter(campaign_id__in=ids, role=Membership.Role.PLAYER)
                  .values("campaign_id").annotate(n=Count("id")).values_list("campaign_id", "n"))
    facts = {}
    for c in campaigns:
        cam = cams.get(c.pk)
        if cam is None:  # not made by the CAM actions (which always make both rows)
            facts[c.pk] = HomeFacts(players=joined.get(c.pk, 0))
            continue
        seated = fleets.get(c.pk, {})
        winner = ""
        if c.status == Campaign.Status.FINISHED:  # CAM 4.3: the standings' winner, by the same rule
            leader = scoring_rules.cp_leader({seat: points for seat, (_, _, points) in seated.items()})
            winner = seated[leader][1] if leader is not None else ""
        facts[c.pk] = HomeFacts(
            winner=winner, no_winner="a drawn campaign (ruling CAM20)",
            seat_names={user_id: name for user_id, name, _ in seated.values()},
            players=cam.seated or joined.get(c.pk, 0),
            summary=f"Period {cam.period} · {cam.scenarios} scenario{'s' if cam.scenarios != 1 else ''}",
            status="Setting up" if c.status == Campaign.Status.ACTIVE and not cam.started else None,
            deadline=None if c.paused or c.status != Campaign.Status.ACTIVE else cam.deadline,
            step=(step_label(c, cam, current=current.get(c.pk), played=cam.played)
                  if c.status == Campaign.Status.ACTIVE else ""))
    return facts


def seats(campaign: Campaign) -> list[Seat]:
    """The two fleets, by their fleet names (press writes to and from them)."""
    return [Seat(seat, name, user_id)
            for seat, name, user_id in CamPlayer.objects.filter(cam__campaign=campaign)
            .order_by("seat").values_list("seat", "name", "user_id")]


def user_seats(user, campaign_ids) -> dict[int, set[int]]:
    """The fleets ``user`` plays in these rubbers (one query)."""
    found: dict[int, set[int]] = {}
    for campaign_id, seat in CamPlayer.objects.filter(user=user, cam__campaign_id__in=campaign_ids).values_list(
            "cam__campaign_id", "seat"):
        found.setdefault(campaign_id, set()).add(seat)
    return found


def _power_label(power: fx.Faction) -> str:
    temper = {fx.Temper.AGGRESSIVE: ", aggressive (+1 to break contact)",
              fx.Temper.CAUTIOUS: ", cautious (−1 to break contact)"}.get(power.temper, "")
    return f"{power.name}: {power.wealth.value}{temper}"


# issue 23 item 12: a fleet and a power of CAM 4.2's wealth lists, offered before anyone is refused
JOIN_WORDS = JoinWords(
    seat="fleet",
    name_help="Players: your fleet's name, e.g. \"Bob's Squadron\".",
    faction_label="Power",
    faction_help=f"Players: the power you command, with its {fx.WEALTH_RULE} wealth class and CAM 3.1 temper. "
                 "For another power the moderator sets the rubber up on the CAM page, choosing its wealth class.",
    faction_choices=tuple((name, _power_label(power)) for name, power in fx.PRESETS.items()),
    colour_help="Players: your colour on the standings chart; each player has their own.",
)


def panel(campaign: Campaign) -> dict:
    cam = campaign.cam
    kind, _, _ = deadlines.waiting(campaign, cam)
    late = None
    if cam.deadline is not None and cam.deadline_done == cam.deadline:  # left to the moderator (CAM56)
        late = AuditEntry.objects.filter(campaign=campaign, action="cam_deadline").order_by("-id") \
            .values_list("note", flat=True).first()
    return {"cam": cam, "cam_players": list(cam.players.select_related("user").order_by("seat")),
            "cam_snapshots": list(cam.snapshots.order_by("-step").values("step", "label", "taken_at")[:10]),
            "cam_at_deadline": deadlines.what_happens(kind, cam) if kind != "none" else "", "cam_late": late}


LAYER_RECORD = CampaignLayer(
    key=LAYER,
    title="CAM rubber",
    description="Star Fleet Battles' Campaign Supplement (CAM): a rubber of scenarios between two fleets, "
                "fought on the tabletop or auto-resolved.",
    detail_url="cam-detail",
    pages=PAGES,
    features=frozenset({"lobby", "moderation", "audit", "options"}),
    # issue 31: "battles fought online use: <rule book>" (Buoyz, CAM's own, by default), until the
    # first scenario's table is rolled.
    options=frozenset({"battle_book"}),
    battles_begun=scenarios.battles_begun,
    lobby_form=LobbyForm,
    create_lobby=lobby.create_cam_lobby,
    check_join=lobby.check_join,
    start=lobby.start_from_lobby,
    start_points=lobby.start_points,
    current_step=moderation.current_step,
    set_deadline=moderation.set_deadline,
    after_resume=moderation.after_resume,
    after_pause=moderation.after_pause,
    roll_back=moderation.roll_back_step,
    roll_back_preview=moderation.roll_back_preview,
    home_facts=home_facts,
    panel=panel,
    panel_template="cam/_moderation.html",
    lobby_template="cam/_lobby_settings.html",
    export=exchange.export_rubber,
    import_campaign=import_rubber,
    menu=("CAM campaigns", "cam-list"),
    seats=seats,
    user_seats=user_seats,
    due_steps=deadlines.due_steps,
    process_due=deadlines.process_due_step,
    send_reminders=deadlines.send_step_reminders,
    join_words=JOIN_WORDS,
    revealed_dice=scenarios.revealed_force_dice,
    # issue 32: an away fleet's step deadline moves, or its substitute is asked; no standing
    # orders or computer play in a rubber (each step wants its players' own choices).
    away_modes=frozenset({"extend", "substitute"}),
)
