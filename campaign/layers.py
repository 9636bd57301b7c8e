"""The campaign layers the platform knows (issue 15): ``CAMPAIGN_LAYERS``, one record per layer.

The platform (accounts, lobby, membership, deadlines, moderation, audit, dice, notifications)
reaches a campaign layer only through its ``CampaignLayer`` record here: it never imports a layer
and never names one. A layer registers its record from its app's ``AppConfig.ready()``
(``campaign/eventhorizon/apps.py``, ``campaign/cam/apps.py``). A ``Campaign`` row names its layer
by ``Campaign.layer`` (the record's ``key``).

What a record says (docs/architecture.md, "How to add a campaign layer"):

- ``key``, ``title``: the stored ``Campaign.layer`` value and what people read ("CAM rubber").
- set-up: ``lobby_form`` (the lobby's create form; ``action_kwargs()`` gives the keyword
  arguments of) ``create_lobby`` (an action: ``moderator=``, …; a campaign in the lobby, status
  SETUP); ``check_join`` (refuses a player's join the layer cannot seat); ``start`` (called by
  ``start_campaign`` under the campaign row lock with the joined players) and ``start_points``
  (what starting does, for the confirmation page).
- a turn or step: ``current_step`` (the ``Step`` open now: its number, label and deadline) and
  ``set_deadline``; ``after_pause`` (what else a pause stops, e.g. a battle's decision clock) and
  ``after_resume`` (a resumed step that is due at once, e.g. every player ready; a stopped clock);
  ``roll_back`` (an action undoing the last processed turn or step) and ``roll_back_preview``
  (what it would undo, for the confirmation page).
- what a player may see: ``detail_url`` (the URL name of a running campaign's page; its one
  argument is the campaign id), ``pages`` (its other URL names), ``home_facts`` (the home page's
  line per campaign: players, status, summary), ``panel`` / ``panel_template`` (the layer's part
  of the moderation panel).
- ``export``: ``campaign -> JSON-able dict`` for ``exportcampaign``, the web and the API, or None
  (no export); ``import_campaign``: an action ``(doc) -> Campaign`` making a new campaign of the
  layer from such a document (``importcampaign`` picks the layer by the document's
  ``campaign.layer``), refusing a bad one with an ``ActionError`` naming the problem and writing
  nothing; None: the layer's files do not import.
- ``seats``: ``campaign -> [Seat]``, the campaign's seats in seat order (number, the name the
  players know it by, who plays it): what press (``campaign/press/``) writes to and from;
  ``user_seats``: ``(user, campaign ids) -> {campaign id: {seat numbers}}``, the seats one user
  plays in many campaigns in one query (press's unread counts on the home page and the menu).
- due work: ``due_steps`` (``now -> [campaign id]``: the campaigns whose open step is past its
  deadline and not yet handled), ``process_due`` (an action ``(*, campaign_id, now)``: what the
  deadline does, idempotent), ``send_reminders`` (``now -> emails queued``: deadline reminders).
  The platform's sweeps (middleware, ``processdue``, Celery beat) and ``send_deadline_reminders``
  call every layer's; None: the layer has none. ``process_turn`` (an action ``(*, campaign_id,
  turn_number=None) -> the turn, or None if it was not processed``): a layer whose steps are the
  platform's turns (``Turn``) processes its open turn, for the task ``campaign.tasks.process_turn``
  (queued when the last player is ready) and the moderator's "process now" (the "process_now"
  feature); the deadline reminders of such a layer's turns are the platform's
  (``send_deadline_reminders``, with the record's ``reminder_email``).
- away dates (``campaign/groups/``): ``away_modes`` (the away policies a campaign may choose)
  and ``hold_seat`` (standing orders or the computer for an away seat, and back); ``not_ready``
  (the seats not ready, for the webhooks' deadline warnings when the campaign shows ready marks);
  ``act_url`` (the page where a player acts on the open step: the calendar's links).
- rule options (issue 31): ``options``, the ``Campaign.options`` keys the layer takes (what its
  lobby, moderation panel and options API show and switch; the "options" feature); ``battles_begun``
  (``campaign -> bool``: whether its first battle has begun, after which the rule book its battles
  are fought on no longer changes; None: the battle app's, any battle row).
- ``features``: which of the platform's features apply (``FEATURES`` below); a page or action of
  a feature the layer lacks answers 404 (pages) or refuses (actions).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

# Platform features a layer may take part in. Pages and actions of a feature ask the registry.
FEATURES = frozenset({
    "lobby",        # created in the lobby, joined by invitation (link or email), started from it
    "moderation",   # the moderation panel: pause, resume, extend the deadline, roll back, co-moderators
    "audit",        # the audit log page and API
    "process_now",  # the moderator processes the open turn now (turn-based layers)
    "substitute",   # the moderator hands a seat to another player or the computer
    "options",      # switchable rule options (Campaign.options)
    "orders",       # Event Horizon's orders, map, reports and the campaign API (/api/campaigns/…)
})


class LayerError(LookupError):
    """No layer is registered under that key."""


@dataclass(frozen=True)
class Step:
    """The turn or step a campaign is at: what its deadline belongs to. ``open``: it takes a
    deadline now (a turn open for orders, a scenario step waiting for the players). ``row`` is
    the layer's own row for it (Event Horizon: the ``Turn``), for the layer's hooks only."""

    number: int
    label: str
    deadline: datetime | None
    open: bool
    row: object = None


@dataclass(frozen=True)
class Seat:
    """One seat of a campaign: its number, the name the other players know it by (an empire's,
    a fleet's), the account playing it (None: nobody) and whether the computer plays it."""

    number: int
    name: str
    user_id: int | None
    bot: bool = False

    @property
    def label(self) -> str:
        return f"{self.name} (seat {self.number})"


@dataclass(frozen=True)
class HomeFacts:
    """A campaign's line on the home page."""

    players: int
    summary: str = ""            # e.g. "30×24 hex"; "Period 2 · 5 scenarios"
    status: str | None = None    # overrides the campaign's status ("Setting up")
    deadline: datetime | None = None  # the open step's deadline (the turn-based layers set their own row's)
    step: str = ""               # what the campaign waits for now ("scenario 2: force selection")
    winner: str = ""             # a finished campaign's winner, by its seat's name ("Bob's Squadron")
    no_winner: str = ""          # the layer's words for a finished campaign without one ("a drawn campaign")
    seat_names: Mapping[int, str] = field(default_factory=dict)  # user id -> the name of his seat


@dataclass(frozen=True)
class JoinWords:
    """How a layer's join form names what a player takes (issue 23 item 12): Event Horizon's
    words by default; a layer whose rule book lists the powers gives them as ``faction_choices``
    (value, label), so the form offers them before anyone is refused."""

    seat: str = "empire"            # what a player takes: "an empire", "a fleet"
    name_help: str = 'Players: your empire\'s name, e.g. "Venetian Star Republic".'
    faction_label: str = "Faction"
    faction_help: str = 'Players, optional: the faction or race you play, e.g. "Terran".'
    faction_choices: tuple[tuple[str, str], ...] = ()   # empty: a free text
    colour_help: str = "Players: your colour on the map; each player has their own."

    @property
    def name_label(self) -> str:
        return f"{self.seat.capitalize()} name"

    @property
    def a_seat(self) -> str:
        """"an empire", "a fleet"."""
        return f"{'an' if self.seat[:1] in 'aeiou' else 'a'} {self.seat}"


@dataclass(frozen=True)
class CampaignLayer:
    key: str
    title: str
    detail_url: str
    pages: tuple[str, ...]
    features: frozenset[str]
    lobby_form: type
    create_lobby: Callable
    check_join: Callable          # (campaign, *, role, empire_name, faction) -> None, raises ActionError
    start: Callable               # (campaign, players: list[Membership], *, now) -> None
    start_points: Callable        # (campaign, players: int) -> list[str]
    current_step: Callable        # (campaign, *, lock=False) -> Step
    set_deadline: Callable        # (campaign, step, deadline) -> None
    roll_back: Callable           # action(*, campaign_id, user, number) -> Step (the step rolled back)
    roll_back_preview: Callable   # (campaign) -> dict | None (None: nothing to roll back)
    home_facts: Callable          # (campaigns: list[Campaign]) -> dict[campaign id, HomeFacts]
    panel: Callable               # (campaign) -> dict (extra context of panel_template)
    panel_template: str
    lobby_template: str = ""      # the layer's part of the lobby page (its settings), may be ""
    after_resume: Callable | None = None  # (campaign, step, *, now) -> None
    after_pause: Callable | None = None   # (campaign, step, *, now) -> None
    export: Callable | None = None
    import_campaign: Callable | None = None  # action(doc) -> Campaign; raises ActionError, writes nothing
    seats: Callable | None = None  # (campaign) -> list[Seat], in seat order; None: no seats
    user_seats: Callable | None = None  # (user, campaign ids) -> {campaign id: {seat}}; None: asks ``seats``
    description: str = ""
    menu: tuple[str, str] | None = None  # (label, URL name) of the layer's own list in the site menu
    due_steps: Callable | None = None       # (now) -> list[campaign id]: open steps past their deadline
    process_due: Callable | None = None     # action(*, campaign_id, now=None) -> truthy if it acted
    send_reminders: Callable | None = None  # (now) -> int: deadline reminders queued
    join_words: JoinWords = JoinWords()
    # (campaign) -> seqs of rolls made for one seat that every reader sees now (the layer revealed
    # what they were for: CAM's blind force purchases once the table is rolled); None: none.
    revealed_dice: Callable | None = None
    # Away dates (issue 32, campaign/groups/): the away policies a campaign of the layer may choose
    # besides none ("extend": its open step's deadline moves, through current_step/set_deadline;
    # "substitute": the named substitute and the moderators are asked by email; "standing",
    # "computer": the layer's ``hold_seat``); empty: a player's absence changes nothing there.
    away_modes: frozenset[str] = frozenset()
    # (campaign, seat, mode, *, on, before=None) -> dict: puts an away seat on standing orders or
    # the computer (on=True, returns the seat's state before) and gives it back (on=False, with
    # that state). The caller holds the campaign row lock; None: the layer has neither.
    hold_seat: Callable | None = None
    # (campaign) -> [seat names] not ready for the open step, for a campaign that shows ready marks
    # (``Campaign.show_ready``): the webhooks' deadline warnings name them. None: no ready marks.
    not_ready: Callable | None = None
    # The URL name of the page where a player acts on the open step (one argument: the campaign
    # id): the deadline calendar's events link there. "": the campaign's ``detail_url``.
    act_url: str = ""
    # Rule options (issue 31): the ``Campaign.options`` keys the layer takes (its lobby, panel and
    # options API show and switch only these), and its own "first battle has begun" test (None: the
    # battle app's ``battles_begun``, any battle row of the campaign).
    options: frozenset[str] = frozenset()
    battles_begun: Callable | None = None
    # The emails of a layer whose steps are the platform's turns (``Turn``): a processed turn's
    # report and a deadline reminder, for one recipient (campaign/actions/notifications.py).
    turn_email: Callable | None = None      # (campaign, turn, recipient) -> EmailMultiAlternatives
    reminder_email: Callable | None = None  # (campaign, turn, recipient, kind, now) -> EmailMultiAlternatives
    # A layer whose steps are the platform's turns processes its open turn (the task
    # campaign.tasks.process_turn, the moderator's "process now"); None: it has no such turns.
    process_turn: Callable | None = None    # action(*, campaign_id, turn_number=None) -> Turn | None

    def has(self, feature: str) -> bool:
        return feature in self.features

    def __post_init__(self):
        unknown = set(self.features) - FEATURES
        if unknown:
            raise ValueError(f"layer {self.key}: unknown features {sorted(unknown)}")


CAMPAIGN_LAYERS: dict[str, CampaignLayer] = {}
_order: list[str] = []  # registration order (the lobby's picker lists layers so)


def register(layer: CampaignLayer) -> None:
    """Called once per layer from an ``AppConfig.ready()``; registering a key twice replaces it
    (Django may call ``ready()`` again in tests)."""
    if layer.key not in CAMPAIGN_LAYERS:
        _order.append(layer.key)
    CAMPAIGN_LAYERS[layer.key] = layer


def get(key: str) -> CampaignLayer:
    try:
        return CAMPAIGN_LAYERS[key]
    except KeyError:
        raise LayerError(f"no campaign layer {key!r} (known: {', '.join(_order)})") from None


def of(campaign) -> CampaignLayer:
    """The layer of a ``Campaign`` row."""
    return get(campaign.layer)


def all_layers() -> list[CampaignLayer]:
    return [CAMPAIGN_LAYERS[k] for k in _order]


def having(feature: str) -> list[str]:
    """The keys of the layers taking part in ``feature``: filter querysets with
    ``.filter(layer__in=layers.having("orders"))``."""
    if feature not in FEATURES:
        raise ValueError(f"unknown feature {feature!r}")
    return [k for k in _order if feature in CAMPAIGN_LAYERS[k].features]


def home_facts(campaigns) -> dict[int, HomeFacts]:
    """Each campaign's ``HomeFacts``, asked of its layer (one call per layer present)."""
    by_layer: dict[str, list] = {}
    for c in campaigns:
        by_layer.setdefault(c.layer, []).append(c)
    facts: dict[int, HomeFacts] = {}
    for key, group in by_layer.items():
        facts.update(get(key).home_facts(group))
    return facts


def due_steps(now=None) -> list[tuple[str, int]]:
    """Every layer's due steps, as (layer key, campaign id): what the due-work sweeps process."""
    return [(layer.key, pk) for layer in all_layers() if layer.due_steps for pk in layer.due_steps(now)]


def process_due(key: str, campaign_id: int, now=None):
    """Process one due step through its layer's record (``campaign.tasks.process_layer_step``)."""
    layer = get(key)
    return layer.process_due(campaign_id=campaign_id, now=now) if layer.process_due else None


def send_reminders(now=None) -> int:
    """Every layer's deadline reminders (``campaign.actions.send_deadline_reminders`` adds them)."""
    return sum(layer.send_reminders(now) for layer in all_layers() if layer.send_reminders)


def menu(request) -> dict:
    """Template context processor (config/settings.py): ``layer_menu``, the site menu's links to
    the layers' own lists (base.html), so the platform's template names no layer."""
    from django.urls import reverse

    return {"layer_menu": [(layer.menu[0], reverse(layer.menu[1])) for layer in all_layers() if layer.menu]}


def default() -> CampaignLayer:
    """The layer the lobby offers first (the first registered)."""
    return CAMPAIGN_LAYERS[_order[0]]
