"""Pages of embedded battles: play (``battles/<id>/play/``) and replay (``battles/<id>/replay/``).

Thin: find the battle the user may see (its two sides' players and the campaign's moderator;
anyone else gets 404), call one action from tactical/play/actions.py, render. What a side sees follows
the fog rules in ``BattleView`` (rulings TP5–TP6 in docs/rulings.md). The board, the orders and
the ship table come from the battle's ruleset (``PlayRules.page_context`` and its template,
``PlayRules.play_template``, which extends ``tactical/play.html``).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from campaign import sanitise
from campaign.access import role_of
from campaign.models import Membership
from tactical.models import Battle
from tactical.play import actions as play
from tactical.play import embedded, kinds
from tactical.rules.play import PlayRules, Viewer

LOG_LIMIT = 60
# A side's colour when its battle names none (a CAM rubber's sides on My Trek V or Star Sectors):
# red, blue, … as the boards draw sides by default (tactical/rules/eventhorizon/board.py).
SIDE_COLOURS = ("#d0453a", "#3a72d0", "#3aa35a", "#c9a227", "#9b5bd0", "#3ab8c4")


@dataclass
class BattleView:
    """One user's view of one embedded battle. ``seat``: the side they command (None for the
    moderator). ``fog_side``: whose eyes the board and log are seen through (None: everything —
    the moderator, or anyone once the battle is over)."""

    battle: Battle
    seat: int | None
    moderator: bool

    @property
    def rules(self) -> PlayRules:
        return embedded.rules_for(self.battle)

    @property
    def running(self) -> bool:
        return self.battle.status == Battle.Status.PLAYING

    @property
    def fog_side(self) -> int | None:
        if self.moderator and self.seat is None:
            return None
        return self.seat if self.running else None

    @property
    def names(self) -> dict[int, str]:
        return play.side_names(self.battle)

    @property
    def colours(self) -> dict[int, str]:
        """Each side's colour, the same on the page and the board (which draws with these): a battle
        fought on another book keeps its campaign's (the map's empire colours, issue 31), else the
        setup's; a side with neither gets one of SIDE_COLOURS (a grey swatch beside a red board
        ship before, on converted CAM battles)."""
        setup = self.battle.setup if isinstance(self.battle.setup, dict) else {}
        own = setup.get("sides") or {}
        layer_setup = setup.get("layer_setup")
        layer = (layer_setup.get("sides") or {}) if isinstance(layer_setup, dict) else {}
        out = {}
        for index, seat in enumerate(sorted(self.battle.seats)):
            colour = (layer.get(str(seat)) or {}).get("colour") or (own.get(str(seat)) or {}).get("colour")
            out[seat] = colour or SIDE_COLOURS[index % len(SIDE_COLOURS)]
        return out

    @property
    def page(self) -> dict:
        """The heading, the link back and the words after the end, from the battle's kind or host
        (a CAM battle: its scenario; a pickup battle: its pickup page)."""
        return kinds.page_for(self.battle)

    @property
    def computer(self) -> bool:
        return self.seat in (self.battle.doctrine_sides or [])

    @property
    def viewer(self) -> Viewer:
        """Who looks, for the ruleset's hooks: ``can_act`` when the user commands a side that is
        not in the doctrine's hands and the battle is being played."""
        return Viewer(seat=self.seat, fog_side=self.fog_side, names=self.names, colours=self.colours,
                      can_act=self.seat is not None and self.running and not self.computer)


def battle_view(user, battle_id: int) -> BattleView:
    """The battle as ``user`` may see it; Http404 for anyone who is neither a side nor the
    moderator, and for battles that are not embedded (tactical) ones."""
    battle = Battle.objects.select_related("campaign").filter(pk=battle_id).first()
    if (
        battle is None
        or not user.is_authenticated
        or (battle.mode != Battle.Mode.TACTICAL and not battle.steps.exists())
    ):
        raise Http404("no such battle")
    seats = play.seats_of(user, battle)
    kind = kinds.kind_for(battle)  # a CAM scenario fought online: its players are its sides
    moderator = (kind.is_moderator(user, battle) if kind is not None
                 else role_of(user, battle.campaign) == Membership.Role.MODERATOR)
    if not seats and not moderator:
        raise Http404("no such battle")
    return BattleView(battle=battle, seat=seats[0] if seats else None, moderator=moderator)


def started(view: BattleView) -> bool:
    return view.battle.status not in (Battle.Status.WAITING, Battle.Status.DEPLOYING) or view.battle.steps.exists()


def deployment(view: BattleView) -> dict | None:
    """The deployment step as ``view``'s user sees it (None unless the fleets are being deployed
    by hand): the ruleset's ``deployment_page``."""
    if view.battle.status != Battle.Status.DEPLOYING or not view.rules.hand_deployment:
        return None
    return view.rules.deployment_page(view.battle.setup, view.viewer)


def form_lists(post) -> dict[str, list[str]]:
    """A posted form as {name: [values]} for the ruleset's pure hooks."""
    return {key: post.getlist(key) for key in post}


def placements_from_post(rules: PlayRules, post) -> list:
    try:
        return rules.placements_from_form(form_lists(post))
    except rules.illegal as exc:
        raise play.Refused(exc.rule, exc.message) from None


def event_rows(rules: PlayRules, events, view: BattleView) -> list[dict]:
    side = view.fog_side
    return [rules.event_row(e, side) for e in embedded.visible_events(rules, events, side)]


# --- the play page -------------------------------------------------------------------------

def _refusal(request, exc: play.PlayError) -> None:
    if isinstance(exc, play.Refused):
        messages.error(request, f"Refused — {exc.rule}: {exc.message}")
    else:
        messages.error(request, f"Refused: {exc.message}")


def action_from_post(rules: PlayRules, post) -> object:
    """The action JSON a page form posted: ``action`` (a JSON object), ``move`` (a chosen
    move's JSON), or a form of the ruleset's own ``kind`` (Event Horizon: ``kind=fire`` with one
    ``shot`` per weapon)."""
    kind = post.get("kind", "")
    try:
        built = rules.form_action(kind, form_lists(post))
    except rules.illegal as exc:
        raise play.Refused(exc.rule, exc.message) from None
    if built is not None:
        return built
    raw = post.get("move") if kind == "move" else post.get("action")
    if not raw:
        raise play.Refused(rules.format_rule, "no action was chosen" if kind != "move" else "choose where to move")
    try:
        return sanitise.loads(raw, "action")
    except sanitise.HostileInput as exc:
        raise play.Refused(rules.format_rule, str(exc)) from None
    except ValueError:
        raise play.Refused(rules.format_rule, "the action is not valid JSON") from None


@login_required
@require_http_methods(["GET", "POST"])
def play_page(request, battle_id: int):
    view = battle_view(request.user, battle_id)
    url = reverse("battle-play", args=[battle_id])
    if request.method == "POST":
        try:
            if "deploy" in request.POST:
                automatic = request.POST["deploy"] == "automatic"
                play.deploy_fleet(battle_id=battle_id, user=request.user,
                                  placements=None if automatic else placements_from_post(view.rules, request.POST))
                messages.info(request, "Your fleet lines up automatically." if automatic else "Your fleet is deployed.")
            elif "doctrine" in request.POST:
                on = request.POST["doctrine"] == "on"
                play.hand_to_doctrine(battle_id=battle_id, user=request.user, on=on)
                messages.info(request, "The computer doctrine now commands your fleet." if on
                              else "You command your fleet again.")
            else:
                play.take_action(battle_id=battle_id, user=request.user,
                                 action_json=action_from_post(view.rules, request.POST))
        except play.PlayError as exc:
            _refusal(request, exc)
        return redirect(url)
    return render(request, view.rules.play_template, play_context(view))


def play_context(view: BattleView) -> dict:
    battle = view.battle
    rules = view.rules
    ctx = {
        "battle": battle,
        "view": view,
        "campaign": battle.campaign,
        "names": view.names,
        "started": started(view),
        "api_state": reverse("api-battle-state", args=[battle.pk]),
        "replay_url": reverse("battle-replay", args=[battle.pk]),
        "deployment": deployment(view),
        "ruleset": battle.ruleset,
    }
    if not ctx["started"]:
        return ctx
    state = embedded.current_state(battle)
    viewer = view.viewer
    asked = rules.acting_sides(state)
    over = rules.is_over(state)
    your_turn = viewer.can_act and view.seat in asked and not over
    waiting_for = [view.names.get(s, f"Seat {s}") for s in asked if s != view.seat]
    events = event_rows(rules, rules.events(state), view)
    ctx.update({
        "state": state, "your_turn": your_turn, "over": over,
        "events": list(reversed(events[-LOG_LIMIT:])), "event_count": len(events),
        "acting_name": " and ".join(waiting_for) if waiting_for and not your_turn else None,
        "computer": view.computer, "steps": battle.steps.count(),
        "summary": rules.summary(rules.result(state), view.names) if over else "",
        "sides": [{"seat": s, "name": view.names[s], "colour": view.colours.get(s, "#999"),
                   "role": play.role(battle, s),
                   "computer": s in (battle.doctrine_sides or [])} for s in battle.seats],
    })
    ctx.update(rules.page_context(state, viewer))
    return ctx


# --- the replay page -----------------------------------------------------------------------

@login_required
def replay_page(request, battle_id: int):
    view = battle_view(request.user, battle_id)
    battle = view.battle
    rules = view.rules
    if not started(view):
        raise Http404("the battle has not begun")
    total = battle.steps.count()
    try:  # the replay starts at the start (issue 13 item 19); ?step=N for any step
        index = int(request.GET.get("step", 0))
    except ValueError:
        index = 0
    index = max(0, min(total, index))
    frames = embedded.states(battle, upto=index)
    frame = frames[-1]
    ctx = {
        "battle": battle,
        "campaign": battle.campaign,
        "view": view,
        "index": index,
        "total": total,
        "prev": index - 1 if index > 0 else None,
        "next": index + 1 if index < total else None,
        "step": frame.step,
        "label": _step_label(rules, frame, view),
        "events": event_rows(rules, frame.events, view),
        # A hidden step's dice would name its ship in their purposes (fog of war): faces only.
        "dice": [
            {
                "expression": f"{d.count}d{d.sides}",
                "purpose": "(hidden)" if _hidden(rules, frame, view) else d.purpose,
                "faces": list(d.faces),
                "total": sum(d.faces),
            }
            for d in frame.dice
        ],
        "names": view.names,
        "play_url": reverse("battle-play", args=[battle.pk]),
        "ships_template": rules.replay_ships_template,
    }
    ctx.update(rules.replay_context(frame.state, frame.action, view.viewer))
    # ?frame=1: only the step's frame, which the page's player (static/replay.js) swaps in.
    template = "tactical/_replay_frame.html" if request.GET.get("frame") == "1" else "tactical/replay.html"
    return render(request, template, ctx)


def _hidden(rules: PlayRules, frame: embedded.Frame, view: BattleView) -> bool:
    """Whether ``frame``'s step is the other side's hidden action to the viewer (ruling BZP1)."""
    return (frame.step is not None and frame.step.side is not None and frame.step.side != view.fog_side
            and view.fog_side is not None and rules.hides_step(frame.events, view.fog_side))


def _step_label(rules: PlayRules, frame: embedded.Frame, view: BattleView) -> str:
    if frame.step is None:
        return rules.setup_label
    action = frame.action or {}
    if frame.step.side is None:  # a step the rules took by themselves
        try:
            return rules.describe(action, frame.state)
        except rules.illegal:
            return str(action)
    who = view.names.get(frame.step.side, "")
    if _hidden(rules, frame, view):
        return f"{who}: a hidden action"
    try:
        text = rules.describe(action, frame.state)
    except rules.illegal:
        text = str(action)
    return f"{who}{' (computer)' if frame.step.by_doctrine else ''}: {text}"
