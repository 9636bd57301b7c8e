"""Online play of Print&Play (pure Python): the ``PlayRules`` hooks ``tactical/play/`` calls.

Fog of war (ruling PP7): a cloaked ship farther than 8" from every ship of a side is hidden from
that side — not drawn, not listed, not nameable (refused as a ship that is not there); events
about it are tagged for the sides that see it where the engine makes them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from tactical.rules.kit import IllegalActionError, visible_to
from tactical.rules.play import PlayRules, Step

from . import board, codec, engine
from .actions import Activate, Attack, Boost, Cloak, Hold, Move, Regenerate, Special
from .dashboards import SIDES
from .state import SPECIALS, State, dashboard_of, deploy, hidden_from, mounts_of

TURN_RULE = "001 Turns Sequence"
STAGES = {"choose": "choosing a ship", "action": "action", "move": "movement", "attack": "attack"}


def label(action, state: State | None = None) -> str:
    """A short English label of an action."""
    ship = state.ship(action.ship) if state is not None else None
    name = ship.name if ship is not None else f"ship {action.ship}"
    if isinstance(action, Activate):
        return f"Activate {name}"
    if isinstance(action, Hold):
        return "No action" if action.stage == "action" else "Hold fire"
    if isinstance(action, Boost):
        return f"Power: {action.source} → {action.target}"
    if isinstance(action, Cloak):
        return "Cloak" if action.on else "Drop the cloak"
    if isinstance(action, Regenerate):
        return "Regenerate 1D6 hull"
    if isinstance(action, Special):
        return f"Special order: {_order_name(action.order)}"
    if isinstance(action, Move):
        bits = []
        if action.turn1:
            bits.append(f"turn {action.turn1:+d}°")
        bits.append(f"{action.go1}\"")
        if action.turn2:
            bits.append(f"turn {action.turn2:+d}°")
        if action.go2:
            bits.append(f"{action.go2}\"")
        if action.turn3:
            bits.append(f"turn {action.turn3:+d}°")
        if action.slide_x or action.slide_y:
            bits.append(f"slide ({action.slide_x:+d}, {action.slide_y:+d})")
        if action.order:
            bits.append(f"[{_order_name(action.order)}]")
        return "Move " + ", ".join(bits)
    if isinstance(action, Attack):
        targets = sorted({(t, s) for _, t, s in action.shots})
        text = "; ".join(f"ship {t}'s {s}" for t, s in targets)
        return f"Fire {len(action.shots)} mount(s) at {text}" + (
            f" [{_order_name(action.order)}]" if action.order else ""
        )
    return repr(action)


def _order_name(order: str) -> str:
    return next((name for key, _, name in SPECIALS.values() if key == order), order)


def setup_for(fleets: Mapping[int, list], names: Mapping[int, str] | None = None, mat: str = "4x6",
              terrain: list | None = None, colours: Mapping[int, str] | None = None) -> dict:
    """The stored set-up of a battle: ``fleets`` maps a seat to roster keys or dashboard JSON;
    each ship is stored with its id, name and dashboard (``dash``); each side with its name and
    colour (the pickup's, else the board's palette: the play page's swatches read it)."""
    names, colours = names or {}, colours or {}
    seats = sorted(fleets)
    sides, number = {}, 0
    for seat in seats:
        ships = []
        for spec in fleets[seat]:
            number += 1
            dash = dashboard_of(spec)
            # the battle pages' ship table (tactical/battles/forms.py side_rows) reads "design"
            ships.append({"id": number, "name": f"{dash.name} #{number}", "dash": spec,
                          "design": {"name": dash.name, "ship_type": dash.type, "hull": dash.hull}})
        colour = colours.get(seat) or board.COLOURS[(len(sides)) % len(board.COLOURS)]
        sides[str(seat)] = {"name": names.get(seat) or f"Side {seat}", "colour": colour, "ships": ships}
    setup = {"mat": mat, "terrain": list(terrain or []), "attacker": seats[0], "defender": seats[1], "sides": sides}
    if len(seats) > 2:
        setup["seats"] = seats  # tactical.models.Battle.seats: every side of a battle of more than two
    return setup


class PrintPlayRules(PlayRules):
    name = "printplay"
    illegal = IllegalActionError
    format_rule = codec.FORMAT
    turn_rule = TURN_RULE
    play_template = "tactical/rulesets/printplay/play.html"
    replay_ships_template = "tactical/rulesets/printplay/_replay_ships.html"
    setup_label = "Set-up: the fleets deploy 8\" from the mat's edges"

    def initial_state(self, setup, dice):
        return deploy(setup, dice)

    def acting_side(self, state):
        return engine.acting_side(state)

    def is_over(self, state):
        return engine.over(state)

    def automatic_step(self, state, dice):
        res = engine.advance(state, dice)
        return Step(res.state, res.events), {"type": "advance"}

    def replay_step(self, state, action_json, dice):
        if isinstance(action_json, Mapping) and action_json.get("type") == "advance":
            res = engine.advance(state, dice)
            return Step(res.state, res.events)
        return self.apply(state, self.parse_action(action_json), dice)

    def parse_action(self, data):
        return codec.from_json(data)

    def action_json(self, action):
        return codec.to_json(action)

    def describe(self, action_json, state=None):
        if isinstance(action_json, Mapping) and action_json.get("type") == "advance":
            return "The rules: a die is drawn (or a round begins or ends)"
        return label(codec.from_json(action_json))

    def check_owner(self, state, action, seat):
        if isinstance(action, Activate):
            if state.drawn != seat:
                raise IllegalActionError("001 Initiative", "it is not your die that was drawn")
        ship = engine._named(state, getattr(action, "ship", None), seat)
        if ship.side != seat:
            raise IllegalActionError(TURN_RULE, f"ship {ship.id} is not yours")

    def apply(self, state, action, dice):
        res = engine.apply(state, action, dice)
        return Step(res.state, res.events)

    def doctrine_action(self, state, side):
        from .book import BOOK

        return BOOK.doctrine_action(state)

    def events(self, state):
        return state.log

    def hides_step(self, events, side):
        return not events or not all(visible_to(e, side) for e in events)

    def late_done(self, state):
        return state.active is None  # ruling PP20: the doctrine finishes the late ship's activation

    def turn_label(self, state):
        return f"round {state.round}'s {STAGES.get(state.stage, state.stage)}"

    def your_turn_label(self, state):
        return self.turn_label(state)

    def result(self, state):
        w = engine.winner(state)
        return {"winner": w, "over": engine.over(state), "rounds": min(state.round, state.round_cap),
                "ships": [{"ship": s.id, "side": s.side, "fate": engine.fate(s), "class": s.dash.name,
                           "points": s.dash.points, "hull": max(s.hull, 0), "shields": list(s.shields),
                           "crits": s.crits} for s in state.ships]}

    def summary(self, result, names):
        w = result.get("winner")
        return (f"The battle is over after {result.get('rounds')} round(s): "
                + (f"{names.get(w, f'side {w}')} holds the field." if w is not None else "no side holds the field."))

    # --- pages and the API -----------------------------------------------------------------

    def legal_json(self, state, side):
        if engine.acting_side(state) != side:
            return {}
        out: dict[str, list[dict]] = {}
        for a in engine.legal_actions(state):
            out.setdefault(str(a.ship), []).append(codec.to_json(a))
        return out

    def _ship_rows(self, state: State, side):
        rows = []
        for s in state.ships:
            if not s.alive or hidden_from(state, s, side):
                continue
            rows.append({"id": s.id, "side": s.side, "class": s.dash.name, "faction": s.dash.faction,
                         "type": s.dash.type, "points": s.dash.points, "hull": s.hull, "hull_max": s.dash.hull,
                         "shields": dict(zip(SIDES, s.shields)), "shield_max": s.dash.shield_max,
                         "ablative": s.ablative, "emergency": s.emergency, "impulse": s.impulse,
                         "sensors": s.sensors, "wps": s.wps + s.surge, "ecm": s.ecm, "cloaked": s.cloaked,
                         "power": s.power, "activated": s.activated, "at": list(s.pos), "heading": s.heading,
                         "torpedoes": list(s.torpedoes),
                         "weapons": [{"mount": i, "name": s.dash.weapons[m.line].name, "arc": m.letter,
                                      "qty": m.qty} for i, m in enumerate(mounts_of(s.dash))]})
        return rows

    def state_json(self, state, viewer):
        side = viewer.fog_side
        active = state.ship(state.active) if state.active is not None else None
        return {"round": state.round, "round_cap": state.round_cap, "stage": state.stage, "mode": state.mode,
                "drawn": state.drawn, "order": list(state.order), "bag": len(state.bag),
                "active": active.id if active is not None and not hidden_from(state, active, side) else None,
                "mat": {"width": state.mat[0], "height": state.mat[1], "units": "inches"},
                "terrain": [{"kind": t.kind, "at": list(t.at), "radius": t.radius, "nebula": t.nebula}
                            for t in state.terrain],
                "ships": self._ship_rows(state, side)}

    def _groups(self, state: State, seat):
        if engine.acting_side(state) != seat:
            return [], []
        buttons, moves = [], []
        for a in engine.legal_actions(state):
            item = {"label": label(a, state), "json": json.dumps(codec.to_json(a))}
            (moves if isinstance(a, Move) else buttons).append(item)
        return buttons, moves

    def page_context(self, state, viewer):
        side = viewer.fog_side
        buttons, moves = self._groups(state, viewer.seat) if viewer.can_act else ([], [])
        active = state.ship(state.active) if state.active is not None else None
        if active is not None and hidden_from(state, active, side):
            active = None
        dots = _dots(state, moves) if moves else ()
        return {"svg": board.render(state, side, active.id if active else None, viewer.colours, dots),
                "pp": state, "pp_stage": STAGES.get(state.stage, state.stage),
                "pp_active": active, "pp_buttons": buttons, "pp_moves": moves,
                "pp_ships": self._ship_rows(state, side), "pp_bag": len(state.bag),
                "pp_drawn": state.side_name(state.drawn) if state.drawn is not None else ""}

    def replay_context(self, state, action_json, viewer):
        return {"svg": board.render(state, viewer.fog_side, None, viewer.colours),
                "ships": self._ship_rows(state, viewer.fog_side),
                "note": f"Round {min(state.round, state.round_cap)}"}


def _dots(state: State, moves) -> list:
    """Where each move without a last turn or a slide ends (collisions aside): the mat's dots."""
    from tactical.rules.geometry import inches as geo

    ship = state.ship(state.active)
    out, seen = [], set()
    for item in moves:
        m = codec.from_json(json.loads(item["json"]))
        if m.turn3 or m.slide_x or m.slide_y:
            continue
        heading = geo.norm(ship.heading + m.turn1)
        pos = geo.advance(ship.pos, heading, m.go1)
        heading = geo.norm(heading + m.turn2)
        pos = geo.advance(pos, heading, m.go2)
        key = (round(pos[0], 2), round(pos[1], 2))
        if key not in seen:
            seen.add(key)
            out.append((pos[0], pos[1], item["json"], item["label"]))
    return out


RULES = PrintPlayRules()

__all__ = ["RULES", "PrintPlayRules", "label", "setup_for"]
