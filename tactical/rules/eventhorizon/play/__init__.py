"""Online play of the Event Horizon Quick Play engine (pure Python): the ``PlayRules`` hooks
``tactical/play/`` calls for a battle whose ruleset is ``"eventhorizon"`` (issue 5 "Playing it
online"; rulings TP1… in docs/rulings.md).

A battle's ``setup`` (written by tactical/hosts/eventhorizon/lifecycle.py) gives the fleets, the hex's
terrain and its world; ``initial_state`` deploys them with the battle's dice. A stored step is a
card drawn (``{"type": "draw"}``) or an action (``codec.py``). The fleets may be deployed by
hand (``Campaign.deployment`` "hand", ruling TP8): ``placements`` checks a side's squares and
facings against its zone. The board is ``board.py``'s SVG; the play page is the template
``tactical/rulesets/eventhorizon/play.html``.
"""

from __future__ import annotations

import json

from tactical.rules.kit import fallback
from tactical.rules.play import AUTOMATIC, PlayRules, Step, form_value

from .. import actions as A
from .. import board as boardsvg
from ..deploy import DEPLOY_RULE
from ..doctrine import doctrine_action
from ..engine import apply, check, draw_card, is_over, legal_actions, outcome
from ..geometry import FACING_NAMES
from ..state import IllegalActionError
from . import codec, fog
from .fog import TURN_RULE
from .page import (
    _ship_label,  # noqa: F401
    action_choices,
    outcome_to_result,
    ship_rows,
)

# re-exported: importers name them from here, as they did from play.py
from .setup import (  # noqa: F401
    BLOCKING,
    CLOUD_TERRAIN,
    DEPLOY_PREVIEW_SEED,
    WORLD_PLANET_ID,
    SetupError,
    _seat_key,
    _whole,
    campaign_ship,
    check_placements,
    deploy_order,
    deployed,
    initial_state,
    next_to_deploy,
    placement_json,
    placements_of,
    preview,
    sides_of,
    zone_of,
)

DRAW = {"type": "draw"}


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
        ship = fog.ship_in_sight(state, action.ship, seat)
        if ship.side != seat:
            raise IllegalActionError(TURN_RULE, f"ship {ship.id} is not yours (it is side {ship.side}'s)")

    def apply(self, state, action, dice):
        return apply(state, action, dice)

    def doctrine_action(self, state, side):
        """doctrine.simulate's fallback: a move the engine would refuse ends the activation (or
        passes) instead, so a computer side never stalls."""
        return fallback(state, doctrine_action(state, side) or A.Pass(side), check=check,
                        instead=lambda st: A.EndActivation(st.activation.ship) if st.activation else A.Pass(side))

    def events(self, state):
        return state.log

    def visible_events(self, events, side):
        return fog.visible_events(events, side)

    def hides_step(self, events, side):
        return fog.hides_step(events, side)

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
        moved = fog.seen_move(state, action_json, viewer.fog_side)
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
