"""Online play of the Event Horizon Quick Play engine (pure Python): the ``PlayRules`` hooks
``tactical/play/`` calls for a battle whose ruleset is ``"eventhorizon"`` (issue 5 "Playing it
online"; rulings TP1… in docs/rulings.md).

A battle's ``setup`` (written by tactical/battles/lifecycle.py) gives the fleets, the hex's
terrain and its world; ``initial_state`` deploys them with the battle's dice. A stored step is a
card drawn (``{"type": "draw"}``) or an action (``codec.py``). The fleets may be deployed by
hand (``Campaign.deployment`` "hand", ruling TP8): ``placements`` checks a side's squares and
facings against its zone. The board is ``board.py``'s SVG; the play page is the template
``tactical/rulesets/eventhorizon/play.html``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from campaign.rules.dice import SeededDice
from campaign.rules.eventhorizon.designs import Design as DesignSpec
from campaign.rules.eventhorizon.economy import Damage
from tactical.rules.play import AUTOMATIC, PlayRules, Step, Viewer, form_value, whole_number

from . import actions as A
from . import board as boardsvg
from . import codec
from .deploy import DEPLOY_RULE, CampaignShip, Placement, battlefield_for_world, deploy, zone
from .doctrine import doctrine_action
from .engine import BattleOutcome, apply, check, draw_card, is_over, legal_actions, outcome, trace_path
from .geometry import FACING_NAMES
from .state import BLACK_HOLE, PLANET, SUN, WORMHOLE, BattleState, IllegalActionError, Planet, hidden_from

DRAW = {"type": "draw"}
CLOUD_TERRAIN = "particle_cloud"
WORLD_PLANET_ID = "world"
TURN_RULE = "003 The Turn Sequence"
BLOCKING = (SUN, BLACK_HOLE, WORMHOLE, PLANET)  # no ship deploys there (deploy._free)
DEPLOY_PREVIEW_SEED = b"sector-command deployment preview"  # never rolls for the battle itself


class SetupError(IllegalActionError):
    """The battle's setup JSON cannot be put on the table."""

    def __init__(self, message: str):
        super().__init__(DEPLOY_RULE, message)


def _seat_key(sides: Mapping, seat: int) -> Mapping:
    for key in (str(seat), seat):
        if key in sides:
            return sides[key]
    raise SetupError(f"the setup has no side for seat {seat}")


def campaign_ship(data: Mapping[str, Any]) -> CampaignShip:
    try:
        design = DesignSpec.from_dict(data["design"])
        damage = Damage.from_json(data.get("damage"))
        return CampaignShip(id=int(data["id"]), design=design, damage=damage,
                            hero_crew=bool(data.get("hero_crew", False)), name=str(data.get("name") or ""))
    except (KeyError, TypeError, ValueError) as exc:
        raise SetupError(f"ship {data.get('id', '?')} of the setup cannot be read: {exc}") from exc


def sides_of(setup: Mapping[str, Any]) -> tuple[int, int]:
    """The engine's side order (ruling TP1): the attacker (the invader, red) first."""
    return int(setup["attacker"]), int(setup["defender"])


def initial_state(setup: Mapping[str, Any], dice) -> BattleState:
    """Deploy the setup's fleets (003 AEWA: the invader deploys first when the defender has one)
    on a table for the hex (ruling TC26) and shuffle the deck with ``dice``."""
    attacker, defender = sides_of(setup)
    sides = setup.get("sides") or {}
    fleets = {seat: [campaign_ship(s) for s in _seat_key(sides, seat).get("ships", [])]
              for seat in (attacker, defender)}
    world = setup.get("world")
    field = battlefield_for_world(planet=bool(world), cloud=setup.get("terrain") == CLOUD_TERRAIN)
    planets = ()
    if world:
        mid = field.width // 2
        owner = world.get("owner")
        planets = (Planet(id=WORLD_PLANET_ID, squares=((mid, mid),), owner=None if owner is None else int(owner),
                          defences=bool(world.get("defences"))),)
    return deploy(fleets, dice, invader=attacker, aewa=bool(setup.get("aewa")), battlefield=field,
                  planets=planets, placements=placements_of(setup))


# --- deployment by hand (Campaign.deployment "hand"; ruling TP8) ---------------------------------

def deploy_order(setup: Mapping[str, Any]) -> list[int]:
    """Who deploys first (ruling TC24, 003 AEWA): the defender, then the invader; against the
    defender's AEWA the invader first."""
    attacker, defender = sides_of(setup)
    return [attacker, defender] if setup.get("aewa") else [defender, attacker]


def deployed(setup: Mapping[str, Any]) -> dict[int, Any]:
    """Seats that have deployed: their placements (a list) or ``AUTOMATIC``."""
    return {int(k): v for k, v in (setup.get("placements") or {}).items()}


def next_to_deploy(setup: Mapping[str, Any]) -> int | None:
    done = deployed(setup)
    return next((seat for seat in deploy_order(setup) if seat not in done), None)


def placements_of(setup: Mapping[str, Any]) -> dict[int, list[Placement]]:
    """The engine placements of the seats that placed their ships by hand."""
    out = {}
    for seat, given in deployed(setup).items():
        if isinstance(given, list):
            out[seat] = [Placement(int(p["ship"]), (int(p["x"]), int(p["y"])), p["facing"]) for p in given]
    return out


def _whole(value) -> int | None:
    """A ship number or a square's coordinate: a whole number of 0 or more (``whole_number``)."""
    return whole_number(value, negative=False)


def placement_json(raw) -> list[dict]:
    """A side's placements as sent by a page or the API: a list of {ship, x, y, facing}. Raises
    SetupError naming what is wrong."""
    if not isinstance(raw, list) or not raw:
        raise SetupError("placements must be a list of {ship, x, y, facing}, one per ship")
    out = []
    for i, p in enumerate(raw):
        if not isinstance(p, Mapping):
            raise SetupError(f"placement {i + 1} must be an object with ship, x, y and facing")
        ship, x, y = (_whole(p.get(k)) for k in ("ship", "x", "y"))
        if ship is None or x is None or y is None:
            raise SetupError(f"placement {i + 1} needs whole numbers ship, x and y")
        facing = p.get("facing")
        if not isinstance(facing, str) or facing.upper() not in FACING_NAMES:
            raise SetupError(f"placement {i + 1}: the facing is one of {', '.join(FACING_NAMES)}, not {facing!r}")
        out.append({"ship": ship, "x": x, "y": y, "facing": facing.upper()})
    return out


def preview(setup: Mapping[str, Any]) -> BattleState:
    """The table as it stands during deployment: every fleet that has deployed, in place; the
    others not yet on it. Built with dice of its own (the deck's order is not shown and not
    used), so looking at it rolls nothing for the battle."""
    state = initial_state(setup, SeededDice(DEPLOY_PREVIEW_SEED))
    done = set(deployed(setup))
    return replace(state, ships=tuple(s for s in state.ships if s.side in done))


def zone_of(setup: Mapping[str, Any], seat: int, state: BattleState | None = None) -> list[tuple[int, int]]:
    """The squares where ``seat`` may place its ships (its deployment zone, anomalies and the
    squares already taken left out); ``state``: the setup's ``preview`` if already built."""
    state = state or preview(setup)
    index = list(sides_of(setup)).index(seat)
    taken = {s.pos for s in state.ships}
    return [c for c in zone(state.field, index)
            if c not in taken and state.field.terrain.get(c) not in BLOCKING]


def check_placements(setup: Mapping[str, Any], seat: int, placements) -> None:
    """Refuse (IllegalActionError, with the rule) placements the table does not allow: a
    square outside the zone or taken, a ship missing or not the side's."""
    trial = {**setup, "placements": {**(setup.get("placements") or {}), str(seat): placements}}
    try:
        preview(trial)
    except ValueError as exc:  # a facing the engine does not know
        raise IllegalActionError(DEPLOY_RULE, str(exc)) from None


def outcome_to_result(result: BattleOutcome) -> dict[str, Any]:
    """The campaign-level result JSON handed to ``tactical.battles.lifecycle.record_result``."""
    ships = []
    for s in result.ships:
        ships.append({
            "ship": s.ship,
            "fate": s.fate,
            "damage": None if s.damage is None else s.damage.to_json(),
            "captured_by": s.captured_by,
        })
    return {"holder": result.holder, "ships": ships, "cards_drawn": result.cards_drawn, "capped": result.capped}


# --- what the acting player may do -----------------------------------------------------------

def _ship_label(state: BattleState, ship_id: int) -> str:
    s = state.find(ship_id)
    return f"ship {ship_id}" + (f" ({s.name})" if s is not None and s.name else "")


def action_choices(state: BattleState, seat: int) -> dict:
    """The acting side's legal actions, shaped for the page: ``buttons`` (one action each),
    ``moves`` (reachable squares and facings), ``weapons`` (per weapon system, its targets, so
    fire can be split), ``ship`` (the activated ship)."""
    out = {"buttons": [], "moves": [], "weapons": [], "ship": None, "activate": []}
    if state.acting_side != seat or is_over(state):
        return out
    if state.activation is None:
        for ship in state.ships_of(seat):
            for action in legal_actions(state, ship.id):
                if isinstance(action, A.Activate):
                    out["activate"].append({"label": codec.describe(action), "json": json.dumps(codec.to_json(action)),
                                            "ship": ship})
        out["buttons"].append({"label": codec.describe(A.Pass(seat)), "json": json.dumps(codec.to_json(A.Pass(seat)))})
        return out
    ship = state.ship(state.activation.ship)
    out["ship"] = ship
    fires = []
    for action in legal_actions(state, ship.id):
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


def ship_rows(state: BattleState, viewer: Viewer) -> list[dict]:
    """The ships' table (fog of war: an enemy ship hidden by its stealth field is left out,
    003 "Stealth Fields"; rulings TP5–TP6)."""
    rows = []
    for s in state.ships:
        hidden = s.stealth_engaged and viewer.fog_side is not None and s.side != viewer.fog_side and s.in_play
        if hidden:
            continue
        rows.append({
            "id": s.id, "side": s.side, "side_name": viewer.names.get(s.side, s.side), "name": s.name,
            "design": s.design.name,
            "pos": s.pos, "facing": FACING_NAMES[s.facing], "hull": s.hull, "max_hull": boardsvg.max_hull(s),
            "condition": boardsvg.condition(s)[0], "condition_text": boardsvg.condition(s)[1],
            "movement": s.movement, "force_fields": list(s.force_fields), "weapons": [w.replace("_", " ") for w in s.weapons],
            "status": s.status, "evasive": s.evasive, "stealth": s.stealth_engaged, "shuttle": s.shuttle,
            "power": s.power, "captured_by": s.captured_by, "original_side": s.original_side,
            "mine": s.side == viewer.seat, "colour": viewer.colours.get(s.side, "#999"),
        })
    return rows


# --- the hooks -------------------------------------------------------------------------------

class EventHorizonPlay(PlayRules):
    name = "eventhorizon"
    illegal = IllegalActionError
    format_rule = codec.FORMAT_RULE
    turn_rule = TURN_RULE
    play_template = "tactical/rulesets/eventhorizon/play.html"
    replay_ships_template = "tactical/rulesets/eventhorizon/_replay_ships.html"
    battle_ships_template = "tactical/rulesets/eventhorizon/_battle_ships.html"  # engine, systems, damage carried in
    hand_deployment = True
    deploy_rule = DEPLOY_RULE
    late_text = "the computer doctrine plays its ships for this card."

    def initial_state(self, setup, dice):
        return initial_state(setup, dice)

    def acting_side(self, state):
        return None if is_over(state) else state.acting_side

    def is_over(self, state):
        return is_over(state)

    def automatic_step(self, state, dice):
        return draw_card(state, dice), dict(DRAW)

    def replay_step(self, state, action_json, dice):
        if action_json.get("type") == "draw":
            return draw_card(state, dice)
        return apply(state, codec.from_json(action_json), dice)

    def parse_action(self, data):
        return codec.from_json(data)

    def action_json(self, action):
        return codec.to_json(action)

    setup_label = "Set-up: the fleets deploy and the deck is shuffled"

    def describe(self, action_json, state=None):
        if action_json.get("type") == "draw":
            return f"A card is drawn (card {state.cards_drawn})" if state is not None else "A card is drawn"
        return codec.describe(codec.from_json(action_json))

    def check_owner(self, state, action, seat):
        if isinstance(action, A.Pass):
            if action.side != seat:
                raise IllegalActionError(TURN_RULE, f"side {action.side} is not yours: you command side {seat}")
            return
        ship = state.find(action.ship)
        if ship is None or hidden_from(ship, seat):  # ruling TC29: a hidden ship is refused as one not there
            raise IllegalActionError(TURN_RULE, f"there is no ship {action.ship} in this battle")
        if ship.side != seat:
            raise IllegalActionError(TURN_RULE, f"ship {ship.id} is not yours (it is side {ship.side}'s)")

    def apply(self, state, action, dice):
        return apply(state, action, dice)

    def doctrine_action(self, state, side):
        """doctrine.simulate's fallback: a move the engine would refuse ends the activation (or
        passes) instead, so a computer side never stalls."""
        action = doctrine_action(state, side) or A.Pass(side)
        try:
            check(state, action)
        except IllegalActionError:
            action = A.EndActivation(state.activation.ship) if state.activation else A.Pass(side)
        return action

    def events(self, state):
        return state.log

    def visible_events(self, events, side):
        return [e for e in events if side is None or e.public or side in e.sides]

    def hides_step(self, events, side):
        return not any(e.public for e in events)

    def result(self, state):
        return outcome_to_result(outcome(state))

    def summary(self, result, names):
        holder = result["holder"]
        return (f"The battle is over after {result['cards_drawn']} cards: "
                + (f"{names.get(holder, holder)} holds the field." if holder is not None
                   else "neither side holds the field.")
                + (" (card cap reached)" if result["capped"] else ""))

    def clock_restarts(self, state):
        # Ruling TP4: the clock restarts whenever a side is to choose its next ship to activate
        # (a card drawn, an activation ended); it keeps running through an activation.
        return state.activation is None

    def turn_label(self, state):
        return f"the card in play ({state.card.label if state.card else '-'})"

    def your_turn_label(self, state):
        return f"card {state.cards_drawn} ({state.card.label if state.card else ''})"

    # --- pages and the API ---------------------------------------------------------------

    def legal_json(self, state, side):
        if self.acting_side(state) != side:
            return {}
        ids = [state.activation.ship] if state.activation else [s.id for s in state.ships_of(side)]
        return {str(i): [codec.to_json(a) for a in legal_actions(state, i)] for i in ids}

    def state_json(self, state, viewer):
        ships = ship_rows(state, viewer)
        for row in ships:
            row["pos"] = list(row["pos"])
        return {
            "cards_drawn": state.cards_drawn, "card": state.card.label if state.card else None, "storm": state.storm,
            "acting_side": state.acting_side, "activations_left": state.activations_left,
            "activation": None if state.activation is None else {"ship": state.activation.ship,
                                                                 "actions": list(state.activation.actions)},
            "board": {"width": state.field.width, "height": state.field.height,
                      "terrain": [{"x": c[0], "y": c[1], "kind": k} for c, k in sorted(state.field.terrain.items())],
                      "planets": [{"id": p.id, "squares": [list(c) for c in p.squares], "owner": p.owner,
                                   "defences": p.defences, "status": p.status} for p in state.planets]},
            "ships": ships, "facings": list(FACING_NAMES),
        }

    def page_context(self, state, viewer):
        choices = action_choices(state, viewer.seat) if viewer.can_act else None
        reach = [(m["x"], m["y"]) for m in choices["moves"]] if choices else []
        return {
            "choices": choices,
            "svg": boardsvg.render(state, viewer_side=viewer.fog_side, colours=viewer.colours, names=viewer.names,
                                   highlight=reach),
            "ships": ship_rows(state, viewer), "outcome": outcome(state) if is_over(state) else None,
            "moves_json": json.dumps(choices["moves"]) if choices else "[]", "move_squares": len(set(reach)),
        }

    def form_action(self, kind, form):
        """``kind=fire`` with ``ship`` and one ``shot`` per weapon (``key|target``)."""
        if kind != "fire":
            return None
        shots = []
        for value in form.get("shot", []):
            if not value:
                continue
            weapon, _, target = value.partition("|")
            shots.append([weapon, int(target) if target.isdigit() else target])
        if not shots:
            raise IllegalActionError("003 Lock On", "choose a target for at least one weapon system")
        return {"type": "fire", "ship": form_value(form, "ship"), "shots": shots}

    def replay_context(self, state, action_json, viewer):
        moved = None
        if action_json and action_json.get("type") == "move":
            s = state.find(action_json.get("ship"))
            if s is not None and (viewer.fog_side is None or not s.stealth_engaged or s.side == viewer.fog_side):
                moved = s.pos
        return {
            "svg": boardsvg.render(state, viewer_side=viewer.fog_side, colours=viewer.colours, names=viewer.names,
                                   last_move=moved),
            "ships": ship_rows(state, viewer),
            "note": f"Card {state.cards_drawn}" + (f" ({state.card.label})" if state.card else ""),
        }

    # --- deployment by hand --------------------------------------------------------------

    def deploy_order(self, setup):
        return deploy_order(setup)

    def placements(self, setup, seat, raw):
        given = placement_json(raw)
        check_placements(setup, seat, given)
        return given

    def placements_from_form(self, form):
        """``square_<ship>`` ("x,y") and ``facing_<ship>`` per ship."""
        out = []
        for key in form:
            if not key.startswith("square_"):
                continue
            ship = key.removeprefix("square_")
            x, _, y = form_value(form, key).partition(",")
            if _whole(ship) is None or _whole(x) is None or _whole(y) is None:
                raise IllegalActionError(DEPLOY_RULE, f"choose a square for ship {ship}"[:200])
            out.append({"ship": _whole(ship), "x": _whole(x), "y": _whole(y),
                        "facing": form_value(form, f"facing_{ship}")})
        return out

    def deployment_page(self, setup, viewer):
        """Who deploys now, the table with the fleets already placed (the later side sees them:
        003 AEWA), and for the deploying side its zone and ships."""
        seat = next_to_deploy(setup)
        state = preview(setup)
        mine = viewer.seat is not None and viewer.seat == seat
        zone_squares = zone_of(setup, seat, state) if mine else []
        sides = setup.get("sides") or {}
        ships = []
        if mine:
            # Offered first: where the automatic line would put each ship.
            line = preview({**setup, "placements": {**(setup.get("placements") or {}), str(seat): AUTOMATIC}})
            where = {s.id: s for s in line.ships if s.side == seat}
            for data in (sides.get(str(seat)) or {}).get("ships", []):
                ship = where.get(int(data["id"]))
                ships.append({"id": int(data["id"]), "name": data.get("name") or f"ship {data['id']}",
                              "design": (data.get("design") or {}).get("name", ""),
                              "square": f"{ship.pos[0]},{ship.pos[1]}" if ship else "",
                              "facing": FACING_NAMES[ship.facing] if ship else "N"})
        done = deployed(setup)
        return {
            "seat": seat, "name": viewer.names.get(seat), "mine": mine, "order": deploy_order(setup),
            "done": {s: ("automatically" if v == AUTOMATIC else "by hand") for s, v in done.items()},
            "svg": boardsvg.render(state, viewer_side=None, colours=viewer.colours, names=viewer.names,
                                   highlight=zone_squares),
            "zone": [f"{x},{y}" for x, y in zone_squares], "ships": ships, "facings": list(FACING_NAMES),
        }

    def deployment_json(self, setup, viewer):
        seat = next_to_deploy(setup)
        yours = viewer.seat is not None and viewer.seat == seat
        table = preview(setup)
        return {
            "seat": seat, "yours": yours, "order": deploy_order(setup),
            "done": {str(s): ("automatic" if v == AUTOMATIC else "hand") for s, v in deployed(setup).items()},
            # The fleets already on the table: the side deploying later sees them (003 AEWA).
            "placed": [{"ship": s.id, "side": s.side, "pos": list(s.pos), "facing": FACING_NAMES[s.facing]}
                       for s in table.ships],
            "zone": [list(c) for c in zone_of(setup, seat, table)] if yours else [],
            "ships": [int(d["id"]) for d in ((setup.get("sides") or {}).get(str(seat)) or {}).get("ships", [])]
                     if yours else [],
            "facings": list(FACING_NAMES),
        }


RULES = EventHorizonPlay()

__all__ = ["DRAW", "RULES", "EventHorizonPlay", "SetupError", "Step", "action_choices", "campaign_ship",
           "check_placements", "deploy_order", "deployed", "initial_state", "next_to_deploy", "outcome_to_result",
           "placement_json", "placements_of", "preview", "ship_rows", "sides_of", "zone_of"]
