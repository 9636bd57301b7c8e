"""Event Horizon in the lobby (issue 26: out of the platform's ``campaign/actions/lobby.py``): its
record's ``create_lobby`` (a campaign in the lobby, its map checked but not rolled yet) and
``start`` (``start_eventhorizon``: the map rolled, the seats handed out, the set-up round open),
which the platform's ``start_campaign`` calls under the campaign row lock.
"""
from __future__ import annotations

from django.db import transaction

from campaign.actions.campaigns import DEFAULT_OPTIONS, check_battle_book
from campaign.actions.errors import ActionError, NotAllowed
from campaign.actions.lobby import (
    BATTLE_REQUESTS,
    LOBBY_LIMITS,
    SEED_MAX_LENGTH,
    _creators_seat,
    _new_token,
    _whole,
)
from campaign.actions.notifications import send_started_notifications
from campaign.actions.turns import setup_deadline
from campaign.models import COLOUR_PALETTE, Campaign, Membership
from campaign.rules.dice import seed_hash
from campaign.rules.eventhorizon import mapgen
from campaign.rules.grid import GridError, make_grid

from ..layer import KEY as LAYER
from .campaigns import _check_setup, _generate_campaign, _seed_bytes, check_players

# The lobby's words for each setting its create form (and API) takes besides the map and the
# options; ``check_setting`` holds a value to them, for the create and for an import
# (docs/export-format.md), so a file stores nothing the lobby would refuse.
_HOURS = {"turn_hours": "the turn length in hours", "setup_hours": "the set-up deadline in hours",
          "detection_range": "the detection range", "missed_turn_limit": "the missed-turn limit",
          "battle_hours": "the battle deadline in hours", "activation_hours": "the activation deadline in hours"}
_SWITCHES = {"fog_of_war": "fog of war", "listed": "listing among the open campaigns",
             "show_ready": "showing who is ready"}


def check_setting(key: str, value):
    """``value`` for the campaign setting ``key`` as the lobby takes it (the keys: the export's
    ``SETTINGS``, campaign/eventhorizon/exchange.py); raises ActionError in the lobby's words."""
    if key == "seats":
        check_players(value)
    elif key in _HOURS:
        _whole(value, _HOURS[key], LOBBY_LIMITS[key])
    elif key in _SWITCHES:
        if not isinstance(value, bool):
            raise ActionError(f"{_SWITCHES[key]} must be on or off (true or false), not {value!r}")
    elif key == "battle_mode" and value not in Campaign.BattleMode.values:
        raise ActionError(f"the battle mode must be one of {', '.join(Campaign.BattleMode.values)}, not {value!r}")
    elif key == "battle_requests" and value not in BATTLE_REQUESTS:
        raise ActionError(
            f"who may ask for a battle mode must be one of {', '.join(BATTLE_REQUESTS)}, not {value!r}"
        )
    elif key == "deployment" and value not in Campaign.Deployment.values:
        raise ActionError(f"deployment must be one of {', '.join(Campaign.Deployment.values)}, not {value!r}")
    return value


@transaction.atomic
def create_lobby(
    *,
    moderator,
    name: str,
    grid: str = "hex",
    width: int,
    height: int,
    seats: int,
    options: dict | None = None,
    turn_hours: int = 72,
    setup_hours: int = 72,
    battle_mode: str = Campaign.BattleMode.AUTO,
    battle_requests: str = "either",
    battle_hours: int = 48,
    activation_hours: int = 24,
    deployment: str = Campaign.Deployment.AUTOMATIC,
    fog_of_war: bool = True,
    detection_range: int = 2,
    missed_turn_limit: int = 3,
    seed: str | None = None,
    listed: bool = False,
    show_ready: bool = True,
    play: dict | None = None,
) -> Campaign:
    """Open a campaign in the lobby (status SETUP, no map yet); its creator is its moderator.

    The map is rolled when the moderator starts the campaign. It is rolled once here as well,
    from the same seed and stream position but without logging, so a map with too few reachable
    planets for its seats is refused now rather than at the start (the start rolls the same map)."""
    from campaign.rules.dice import SeededDice

    if moderator is None or not moderator.is_authenticated:
        raise NotAllowed("log in to create a campaign")
    name, board, opts = _check_setup(name=name, grid=grid, width=width, height=height, players=seats,
                                     options=options)
    for key, value in opts.items():
        if type(value) is not type(DEFAULT_OPTIONS[key]):
            raise ActionError(f"campaign option {key} must be {type(DEFAULT_OPTIONS[key]).__name__}, not {value!r}")
    if opts.get("battle_book"):
        book = check_battle_book(LAYER, opts.pop("battle_book"))
        if book:  # another book than the layer's own (issue 31); its own: nothing recorded
            opts["battle_book"] = book
    settings = {key: check_setting(key, value) for key, value in (
        ("turn_hours", turn_hours), ("setup_hours", setup_hours), ("detection_range", detection_range),
        ("missed_turn_limit", missed_turn_limit), ("battle_mode", battle_mode), ("battle_requests", battle_requests),
        ("battle_hours", battle_hours), ("activation_hours", activation_hours), ("deployment", deployment),
        ("fog_of_war", fog_of_war), ("listed", listed), ("show_ready", show_ready))}
    if seed is not None and not isinstance(seed, str):
        raise ActionError("the dice seed must be text")
    seed = (seed or "").strip() or None
    if seed is not None and len(seed) > SEED_MAX_LENGTH:
        raise ActionError(f"the dice seed has at most {SEED_MAX_LENGTH} characters")

    seat = _creators_seat(play)
    seed_raw = _seed_bytes(seed)
    try:
        mapgen.generate_map(board, seats, SeededDice(seed=seed_raw, offset=0),
                            economy_types=bool(opts["economy_types"]))
    except mapgen.MapError as exc:
        raise ActionError(f"{exc}") from None
    campaign = Campaign.objects.create(
        name=name,
        layer=LAYER,
        grid=board.kind,
        width=board.width,
        height=board.height,
        options=opts,
        dice_seed=seed_raw.hex(),
        seed_hash=seed_hash(seed_raw),
        moderator=moderator,
        status=Campaign.Status.SETUP,
        turn=1,
        seats=seats,
        invite_token=_new_token(),
        **settings,
    )
    Membership.objects.create(campaign=campaign, user=moderator, role=Membership.Role.MODERATOR, **seat)
    return campaign


def start_eventhorizon(campaign: Campaign, players: list[Membership], *, now=None) -> None:
    """Event Horizon's start (its layer record's ``start``): the map is rolled for every seat
    ("003 Creating a Map", "Set Up"); joined players take seats 1, 2, … in the order they joined,
    with the name, faction and colour they chose; seats nobody took are computer players. The
    set-up round opens with its deadline ``setup_hours`` from now (none when 0); turn 1 follows
    when it closes. The caller (``start_campaign``) holds the campaign row lock."""
    try:
        board = make_grid(campaign.grid, campaign.width, campaign.height)
    except GridError as exc:
        raise ActionError(str(exc)) from None
    free_colours = [c for c in COLOUR_PALETTE if c not in {m.colour for m in players}]
    seats = [
        {"name": m.empire_name, "faction": m.faction, "colour": m.colour, "user_id": m.user_id, "is_bot": False}
        for m in players
    ]
    taken_names = {m.empire_name.casefold() for m in players}
    for seat in range(len(players) + 1, campaign.seats + 1):
        name = f"Empire {seat}" if f"empire {seat}" not in taken_names else f"Computer empire {seat}"
        seats.append({"name": name, "colour": free_colours.pop(0), "is_bot": True})
    empires = _generate_campaign(campaign, board, seats, deadline=setup_deadline(campaign, now))
    for membership, empire in zip(players, empires, strict=False):
        membership.empire = empire
        membership.save(update_fields=["empire"])
    # Players learn the campaign has begun without watching the lobby (issue 23 item 7).
    send_started_notifications(campaign=campaign)
