"""Pages of embedded battles: play (``battles/<id>/play/``) and replay (``battles/<id>/replay/``).

Thin: find the battle the user may see (its two sides' players and the campaign's moderator;
anyone else gets 404), call one action from tactical/play/actions.py, render. What a side sees follows
the fog rules in ``BattleView`` (rulings TP5–TP6 in docs/rulings.md).
"""

from __future__ import annotations

import json
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
from tactical.play import boardsvg, embedded
from tactical.rules import eventhorizon as eh
from tactical.rules.eventhorizon import actions as A
from tactical.rules.eventhorizon import codec
from tactical.rules.eventhorizon.deploy import DEPLOY_RULE
from tactical.rules.eventhorizon.engine import trace_path
from tactical.rules.eventhorizon.geometry import FACING_NAMES

LOG_LIMIT = 60


@dataclass
class BattleView:
    """One user's view of one embedded battle. ``seat``: the side they command (None for the
    moderator). ``fog_side``: whose eyes the board and log are seen through (None: everything —
    the moderator, or anyone once the battle is over)."""

    battle: Battle
    seat: int | None
    moderator: bool

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
        sides = (self.battle.setup or {}).get("sides") or {}
        out = {}
        for seat in self.battle.seats:
            colour = (sides.get(str(seat)) or {}).get("colour")
            if colour:
                out[seat] = colour
        return out


def battle_view(user, battle_id: int) -> BattleView:
    """The battle as ``user`` may see it; Http404 for anyone who is neither a side nor the
    moderator, and for battles that are not embedded (tactical) ones."""
    battle = Battle.objects.select_related("campaign").filter(pk=battle_id).first()
    if battle is None or not user.is_authenticated or (battle.mode != Battle.Mode.TACTICAL and not battle.steps.exists()):
        raise Http404("no such battle")
    seats = play.seats_of(user, battle)
    moderator = role_of(user, battle.campaign) == Membership.Role.MODERATOR
    if not seats and not moderator:
        raise Http404("no such battle")
    return BattleView(battle=battle, seat=seats[0] if seats else None, moderator=moderator)


def started(view: BattleView) -> bool:
    return view.battle.status not in (Battle.Status.WAITING, Battle.Status.DEPLOYING) or view.battle.steps.exists()


def deployment(view: BattleView) -> dict | None:
    """The deployment step as ``view``'s user sees it (None unless the fleets are being deployed):
    who deploys now, the table with the fleets already placed (the later side sees them: 003
    AEWA), and for the deploying side its zone and ships."""
    battle = view.battle
    if battle.status != Battle.Status.DEPLOYING:
        return None
    setup = battle.setup
    seat = embedded.next_to_deploy(setup)
    state = embedded.preview(setup)
    mine = view.seat is not None and view.seat == seat
    zone = embedded.zone_of(setup, seat, state) if mine else []
    sides = (setup.get("sides") or {})
    ships = []
    if mine:
        # Offered first: where the automatic line would put each ship.
        line = embedded.preview({**setup, "placements": {**(setup.get("placements") or {}), str(seat): embedded.AUTOMATIC}})
        where = {s.id: s for s in line.ships if s.side == seat}
        for data in (sides.get(str(seat)) or {}).get("ships", []):
            ship = where.get(int(data["id"]))
            ships.append({"id": int(data["id"]), "name": data.get("name") or f"ship {data['id']}",
                          "design": (data.get("design") or {}).get("name", ""),
                          "square": f"{ship.pos[0]},{ship.pos[1]}" if ship else "",
                          "facing": FACING_NAMES[ship.facing] if ship else "N"})
    done = embedded.deployed(setup)
    return {
        "seat": seat, "name": view.names.get(seat), "mine": mine, "order": embedded.deploy_order(setup),
        "done": {s: ("automatically" if v == embedded.AUTOMATIC else "by hand") for s, v in done.items()},
        "svg": boardsvg.render(state, viewer_side=None, colours=view.colours, names=view.names, highlight=zone),
        "zone": [f"{x},{y}" for x, y in zone], "ships": ships, "facings": list(FACING_NAMES),
    }


def placements_from_post(post) -> list[dict]:
    """The deploying side's placements from the page's form: ``square_<ship>`` ("x,y") and
    ``facing_<ship>`` per ship."""
    out = []
    for key in post:
        if not key.startswith("square_"):
            continue
        ship = key.removeprefix("square_")
        x, _, y = post.get(key, "").partition(",")
        if not (ship.isdigit() and x.strip().isdigit() and y.strip().isdigit()):
            raise play.Refused(DEPLOY_RULE, f"choose a square for ship {ship}")
        out.append({"ship": int(ship), "x": int(x), "y": int(y), "facing": post.get(f"facing_{ship}", "")})
    return out


# --- what the acting player may do ---------------------------------------------------------

def action_choices(state: eh.BattleState, seat: int) -> dict:
    """The acting side's legal actions, shaped for the page: ``buttons`` (one action each),
    ``moves`` (reachable squares and facings), ``weapons`` (per weapon system, its targets, so
    fire can be split), ``ship`` (the activated ship)."""
    out = {"buttons": [], "moves": [], "weapons": [], "ship": None, "activate": []}
    if state.acting_side != seat or eh.is_over(state):
        return out
    if state.activation is None:
        for ship in state.ships_of(seat):
            for action in eh.legal_actions(state, ship.id):
                if isinstance(action, A.Activate):
                    out["activate"].append({"label": codec.describe(action), "json": json.dumps(codec.to_json(action)),
                                            "ship": ship})
        out["buttons"].append({"label": codec.describe(A.Pass(seat)), "json": json.dumps(codec.to_json(A.Pass(seat)))})
        return out
    ship = state.ship(state.activation.ship)
    out["ship"] = ship
    fires = []
    for action in eh.legal_actions(state, ship.id):
        if isinstance(action, A.Move):
            pos, facing, _ = trace_path(state, ship, action.path, action.into_black_hole)
            out["moves"].append({"x": pos[0], "y": pos[1], "facing": FACING_NAMES[facing], "path": " ".join(action.path),
                                 "json": json.dumps(codec.to_json(action))})
        elif isinstance(action, A.Fire):
            fires.append(action)
        else:
            out["buttons"].append({"label": codec.describe(action), "json": json.dumps(codec.to_json(action))})
    out["moves"].sort(key=lambda m: (m["y"], m["x"], m["facing"]))
    for i, key in enumerate(ship.weapons):
        targets = []
        for fire in fires:
            target = fire.shots[0][1]
            if any(w == key for w, _ in fire.shots) and target not in [t for t, _ in targets]:
                label = f"planet {target}" if isinstance(target, str) else _ship_label(state, target)
                targets.append((target, label))
        if targets:
            out["weapons"].append({"index": i, "key": key, "name": key.replace("_", " "),
                                   "targets": [{"value": f"{key}|{t}", "label": label} for t, label in targets]})
    return out


def _ship_label(state: eh.BattleState, ship_id: int) -> str:
    s = state.find(ship_id)
    return f"ship {ship_id}" + (f" ({s.name})" if s is not None and s.name else "")


def ship_rows(state: eh.BattleState, view: BattleView) -> list[dict]:
    rows = []
    for s in state.ships:
        hidden = s.stealth_engaged and view.fog_side is not None and s.side != view.fog_side and s.in_play
        if hidden:
            continue
        rows.append({
            "id": s.id, "side": s.side, "side_name": view.names.get(s.side, s.side), "name": s.name, "design": s.design.name,
            "pos": s.pos, "facing": FACING_NAMES[s.facing], "hull": s.hull, "max_hull": boardsvg.max_hull(s),
            "condition": boardsvg.condition(s)[0], "condition_text": boardsvg.condition(s)[1],
            "movement": s.movement, "force_fields": list(s.force_fields), "weapons": [w.replace("_", " ") for w in s.weapons],
            "status": s.status, "evasive": s.evasive, "stealth": s.stealth_engaged, "shuttle": s.shuttle,
            "power": s.power, "captured_by": s.captured_by, "original_side": s.original_side, "mine": s.side == view.seat,
            "colour": view.colours.get(s.side, "#999"),
        })
    return rows


def event_rows(events, view: BattleView) -> list[dict]:
    return [{"kind": e.kind, "text": e.text, "private": not e.public}
            for e in embedded.visible_events(events, view.fog_side)]


# --- the play page -------------------------------------------------------------------------

def _refusal(request, exc: play.PlayError) -> None:
    if isinstance(exc, play.Refused):
        messages.error(request, f"Refused — {exc.rule}: {exc.message}")
    else:
        messages.error(request, f"Refused: {exc.message}")


def action_from_post(post) -> object:
    """The action JSON a page form posted: ``action`` (a JSON object), ``move`` (a chosen
    move's JSON), or ``kind=fire`` with ``ship`` and one ``shot`` per weapon (``key|target``)."""
    kind = post.get("kind", "")
    if kind == "fire":
        shots = []
        for value in post.getlist("shot"):
            if not value:
                continue
            weapon, _, target = value.partition("|")
            shots.append([weapon, int(target) if target.isdigit() else target])
        if not shots:
            raise play.Refused("003 Lock On", "choose a target for at least one weapon system")
        return {"type": "fire", "ship": post.get("ship", ""), "shots": shots}
    raw = post.get("move") if kind == "move" else post.get("action")
    if not raw:
        raise play.Refused(codec.FORMAT_RULE, "no action was chosen" if kind != "move" else "choose where to move")
    try:
        return sanitise.loads(raw, "action")
    except sanitise.HostileInput as exc:
        raise play.Refused(codec.FORMAT_RULE, str(exc)) from None
    except ValueError:
        raise play.Refused(codec.FORMAT_RULE, "the action is not valid JSON") from None


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
                                  placements=None if automatic else placements_from_post(request.POST))
                messages.info(request, "Your fleet lines up automatically." if automatic else "Your fleet is deployed.")
            elif "doctrine" in request.POST:
                on = request.POST["doctrine"] == "on"
                play.hand_to_doctrine(battle_id=battle_id, user=request.user, on=on)
                messages.info(request, "The computer doctrine now commands your fleet." if on
                              else "You command your fleet again.")
            else:
                play.take_action(battle_id=battle_id, user=request.user, action_json=action_from_post(request.POST))
        except play.PlayError as exc:
            _refusal(request, exc)
        return redirect(url)
    return render(request, "tactical/play.html", play_context(view))


def play_context(view: BattleView) -> dict:
    battle = view.battle
    ctx = {"battle": battle, "view": view, "campaign": battle.campaign, "names": view.names, "started": started(view),
           "api_state": reverse("api-battle-state", args=[battle.pk]), "replay_url": reverse("battle-replay", args=[battle.pk]),
           "deployment": deployment(view)}
    if not ctx["started"]:
        return ctx
    state = embedded.current_state(battle)
    choices = action_choices(state, view.seat) if (view.seat is not None and view.running
                                                   and view.seat not in (battle.doctrine_sides or [])) else None
    reach = [(m["x"], m["y"]) for m in choices["moves"]] if choices else []
    events = event_rows(state.log, view)
    ctx.update({
        "state": state, "choices": choices, "your_turn": bool(choices and state.acting_side == view.seat),
        "svg": boardsvg.render(state, viewer_side=view.fog_side, colours=view.colours, names=view.names, highlight=reach),
        "ships": ship_rows(state, view), "events": list(reversed(events[-LOG_LIMIT:])), "event_count": len(events),
        "acting_name": view.names.get(state.acting_side) if state.acting_side is not None else None,
        "computer": view.seat in (battle.doctrine_sides or []),
        "steps": battle.steps.count(), "outcome": eh.outcome(state) if eh.is_over(state) else None,
        "moves_json": json.dumps(choices["moves"]) if choices else "[]",
        "move_squares": len(set(reach)),
        "sides": [{"seat": s, "name": view.names[s], "colour": view.colours.get(s, "#999"),
                   "role": "attacker" if s == battle.attacker else "defender",
                   "computer": s in (battle.doctrine_sides or [])} for s in battle.seats],
    })
    return ctx


# --- the replay page -----------------------------------------------------------------------

@login_required
def replay_page(request, battle_id: int):
    view = battle_view(request.user, battle_id)
    battle = view.battle
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
    state = frame.state
    step = frame.step
    moved = None
    if frame.action and frame.action.get("type") == "move":
        s = state.find(frame.action.get("ship"))
        if s is not None and (view.fog_side is None or not s.stealth_engaged or s.side == view.fog_side):
            moved = s.pos
    ctx = {
        "battle": battle, "campaign": battle.campaign, "view": view, "index": index, "total": total,
        "prev": index - 1 if index > 0 else None, "next": index + 1 if index < total else None,
        "svg": boardsvg.render(state, viewer_side=view.fog_side, colours=view.colours, names=view.names,
                               last_move=moved),
        "step": step, "label": _step_label(frame, view),
        "events": event_rows(frame.events, view),
        "dice": [{"expression": f"{d.count}d{d.sides}", "purpose": d.purpose, "faces": list(d.faces),
                  "total": sum(d.faces)} for d in frame.dice],
        "ships": ship_rows(state, view), "names": view.names,
        "play_url": reverse("battle-play", args=[battle.pk]),
        "card": state.card.label if state.card else None, "cards_drawn": state.cards_drawn,
    }
    # ?frame=1: only the step's frame, which the page's player (static/replay.js) swaps in.
    template = "tactical/_replay_frame.html" if request.GET.get("frame") == "1" else "tactical/replay.html"
    return render(request, template, ctx)


def _step_label(frame: embedded.Frame, view: BattleView) -> str:
    if frame.step is None:
        return "Set-up: the fleets deploy and the deck is shuffled"
    action = frame.action or {}
    who = view.names.get(frame.step.side, "") if frame.step.side is not None else ""
    if action.get("type") == "draw":
        return f"A card is drawn (card {frame.state.cards_drawn})"
    hidden = frame.step.side != view.fog_side and view.fog_side is not None and not any(e.public for e in frame.events)
    if hidden:
        return f"{who}: a hidden action"
    try:
        text = codec.describe(codec.from_json(action))
    except eh.IllegalActionError:
        text = str(action)
    return f"{who}{' (computer)' if frame.step.by_doctrine else ''}: {text}"
