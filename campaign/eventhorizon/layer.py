"""Event Horizon's record in the layer registry (``campaign/layers.py``), registered by
``EventHorizonConfig.ready()`` (``campaign/eventhorizon/apps.py``).

It is the one layer with the "orders", "process_now" and "substitute" features: a turn-based
campaign whose seats (``Empire``) and turns (``Turn``, ``TurnOrders``) are platform rows, and whose
actions (``actions/``: creation, the lobby's create and start, orders, processing a turn, the
due-turn sweep, the roll-back) the platform reaches through this record: ``create_lobby``,
``start``, ``process_turn`` (the task ``campaign.tasks.process_turn``, the moderator's "process
now"), ``due_steps`` and ``process_due`` (the due-work sweeps), ``roll_back``, ``after_resume``.
"""

from __future__ import annotations

from ..access import empire_seats
from ..forms import LobbyCreateForm
from ..layers import CampaignLayer, HomeFacts, Seat, Step
from ..models import AuditEntry, Campaign, DiceRoll, Empire, Turn, TurnOrders
from ..notifications import round_label

KEY = "eventhorizon"
PAGES = ("campaign-detail", "campaign-map", "campaign-orders", "campaign-reports")


def seats(campaign: Campaign) -> list[Seat]:
    """The empires, by the names the players know them by."""
    return [Seat(seat, name, user_id, is_bot)
            for seat, name, user_id, is_bot in campaign.empires.order_by("seat").values_list(
                "seat", "name", "user_id", "is_bot")]


def current_step(campaign: Campaign, *, lock: bool = False) -> Step:
    """The campaign's current turn (its row may be missing: no deadline then). ``lock``: the
    turn row locked (the caller holds the campaign row: campaign/locks.py)."""
    from .. import locks

    turn = locks.turn(campaign.pk, campaign.turn) if lock else \
        Turn.objects.filter(campaign=campaign, number=campaign.turn).first()
    return Step(number=campaign.turn, label=round_label(campaign.turn),
                deadline=turn.deadline if turn is not None else None,
                open=turn is not None and turn.status == Turn.Status.OPEN, row=turn)


def set_deadline(campaign: Campaign, step: Step, deadline) -> None:
    turn = step.row
    turn.deadline = deadline
    turn.save(update_fields=["deadline"])


def after_resume(campaign: Campaign, step: Step, *, now=None) -> None:
    """A resumed turn whose players are all ready is processed at once."""
    from .actions.orders import _enqueue_if_all_ready

    _enqueue_if_all_ready(step.row)


def roll_back(*, campaign_id: int, user, number: int | None = None) -> Step:
    from .actions import roll_back_turn

    turn = roll_back_turn(campaign_id=campaign_id, user=user, turn_number=number)
    return Step(number=turn.number, label=round_label(turn.number), deadline=turn.deadline, open=True, row=turn)


def process_turn(*, campaign_id: int, turn_number: int | None = None) -> Turn | None:
    """The record's ``process_turn``: ``actions.process_turn``, looked up when called (a test that
    replaces it there is obeyed)."""
    from . import actions

    return actions.process_turn(campaign_id=campaign_id, turn_number=turn_number)


def last_processed(campaign: Campaign) -> Turn | None:
    return Turn.objects.filter(campaign=campaign, status=Turn.Status.DONE).order_by("-number").first()


def roll_back_preview(campaign: Campaign) -> dict | None:
    """What rolling back the last processed turn would undo (moderation/rollback.html)."""
    last = last_processed(campaign)
    if last is None:
        return None
    snapshot = last.snapshot or {}
    later = Turn.objects.filter(campaign=campaign, number__gt=last.number)
    return {
        "template": "moderation/rollback.html",
        "number": last.number,
        "label": round_label(last.number),
        "last": last,
        "can_roll_back": bool(snapshot),
        "rolls": DiceRoll.objects.filter(campaign=campaign, seq__gt=snapshot.get("dice", {}).get("seq", 0)).count(),
        "dice_seq": snapshot.get("dice", {}).get("seq"),
        "later_orders": TurnOrders.objects.filter(turn__in=later).count(),
        "finished": campaign.status == Campaign.Status.FINISHED,
        "edits_since": AuditEntry.objects.filter(
            campaign=campaign, at__gt=last.processed_at, action__startswith="admin_"
        ).count() if last.processed_at else 0,
    }


def start_points(campaign: Campaign, players: int) -> list[str]:
    open_seats = max(0, campaign.seats - players)
    return [
        f"The map is rolled for {campaign.seats} seats; {players} taken by players"
        + (f", {open_seats} played by the computer" if open_seats else "")
        + ".",
        "Nobody can join as a player afterwards.",
        "The first round of orders opens at once"
        + (
            f", with its deadline {campaign.turn_hours} hours later."
            if campaign.turn_hours
            else ", with no deadline."
        ),
    ]


def home_facts(campaigns: list[Campaign]) -> dict[int, HomeFacts]:
    """``campaigns`` come from the home page's query, annotated with ``players`` (their empires)."""
    return {c.pk: HomeFacts(players=getattr(c, "players", 0),
                            summary=f"{c.width}×{c.height} {c.get_grid_display().lower()}")
            for c in campaigns}


def panel(campaign: Campaign) -> dict:
    """The turn's seats for the moderation panel: who has sent orders and who is ready."""
    turn = Turn.objects.filter(campaign=campaign, number=campaign.turn).first()
    orders = {}
    if turn is not None:
        orders = {o.empire_id: o for o in TurnOrders.objects.filter(turn=turn).only("empire_id", "ready", "updated_at")}
    return {"seats": [
        {"empire": e, "submitted": e.pk in orders, "ready": e.pk in orders and orders[e.pk].ready,
         "updated_at": orders[e.pk].updated_at if e.pk in orders else None}
        for e in campaign.empires.select_related("user").order_by("seat")
    ]}


def check_join(campaign: Campaign, *, role: str, empire_name: str, faction: str) -> None:
    """Event Horizon seats any empire name and faction (the lobby checks names and colours)."""


AWAY_MODES = frozenset({"extend", "standing", "computer", "substitute"})


def hold_seat(campaign: Campaign, seat: int, mode: str, *, on: bool, before: dict | None = None) -> dict:
    """An away seat (issue 32, docs/groups.md): ``"computer"`` hands it to the computer the way
    missed turns do (``auto_bot``, so its player may take it back on the orders page);
    ``"standing"`` leaves it on its standing orders (RULINGS "Missed deadline"), and when it is
    given back (``on=False``) the turns it missed while away stop counting and a seat the missed
    turn limit gave to the computer meanwhile returns to its player. Returns the seat's state."""
    from .. import locks

    turn = locks.turn(campaign.pk, campaign.turn)  # locking order: the turn row before the seat's
    empire = locks.rows(Empire.objects.filter(campaign=campaign, seat=seat)).first()
    if empire is None:
        return {}
    state = {"is_bot": empire.is_bot, "auto_bot": empire.auto_bot, "missed_turns": empire.missed_turns}
    fields: list[str] = []
    if on and mode == "computer" and not empire.is_bot:
        empire.is_bot = empire.auto_bot = True
        fields = ["is_bot", "auto_bot"]
    elif not on:
        before = before or {}
        if mode == "standing" and empire.missed_turns > before.get("missed_turns", 0):
            empire.missed_turns = before.get("missed_turns", 0)
            fields.append("missed_turns")
        if empire.auto_bot and empire.user_id is not None and not before.get("is_bot", False):
            empire.is_bot = empire.auto_bot = False
            fields += ["is_bot", "auto_bot"]
    if fields:
        empire.save(update_fields=fields)
        if turn is not None and turn.status == Turn.Status.OPEN:
            from .actions.orders import _note_ready

            _note_ready(turn)  # the computer's seat may leave every player ready (the sweep then takes it)
    return state if on else {"is_bot": empire.is_bot, "auto_bot": empire.auto_bot, "missed_turns": empire.missed_turns}


def not_ready(campaign: Campaign) -> list[str]:
    """The players' empires not marked ready for the open turn (issue 32's deadline warnings;
    the platform asks only when the campaign shows ready marks)."""
    ready = set(TurnOrders.objects.filter(turn__campaign=campaign, turn__number=campaign.turn, ready=True)
                .values_list("empire_id", flat=True))
    return [name for pk, name in campaign.empires.filter(is_bot=False, eliminated=False, user__isnull=False)
            .order_by("seat").values_list("pk", "name") if pk not in ready]


class LobbyForm(LobbyCreateForm):
    """The lobby's create form (``campaign/forms.py``), for this layer."""

    layer_key = KEY


def record() -> CampaignLayer:
    from . import actions, exchange, notify

    return CampaignLayer(
        key=KEY,
        title="Event Horizon",
        description="Event Horizon's strategic campaign: empires, worlds and fleets on a hex or square map, "
                    "turns of written orders, battles fought as games or auto-resolved.",
        detail_url="campaign-detail",
        pages=PAGES,
        features=frozenset({"lobby", "moderation", "audit", "process_now", "substitute", "options", "orders"}),
        options=frozenset({"economy_types", "steered_drift", "battle_book"}),
        lobby_form=LobbyForm,
        create_lobby=actions.create_lobby,
        check_join=check_join,
        start=actions.start_eventhorizon,
        start_points=start_points,
        current_step=current_step,
        set_deadline=set_deadline,
        after_resume=after_resume,
        roll_back=roll_back,
        roll_back_preview=roll_back_preview,
        home_facts=home_facts,
        panel=panel,
        panel_template="moderation/_eventhorizon.html",
        lobby_template="lobby/_eventhorizon_settings.html",
        export=exchange.export_campaign,
        import_campaign=actions.import_campaign,
        seats=seats,
        user_seats=empire_seats,
        away_modes=AWAY_MODES,
        hold_seat=hold_seat,
        not_ready=not_ready,
        act_url="campaign-orders",
        turn_email=notify.turn_processed_email,
        reminder_email=notify.reminder_email,
        process_turn=process_turn,
        due_steps=actions.due_steps,
        process_due=actions.process_due,
    )

