"""My Trek V online: the ``PlayRules`` hooks and the ``RuleBook`` (pure Python).

Secret orders (ruling MT17): a side's orders are told to that side only (``kit.private``), the
state it is shown holds its own pending orders and never the other side's, and the step is
resolved when every side has given them. Fog of war (ruling MT11): an enemy under its
invisibility device that the seat has not detected is left out of everything the seat is told.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tactical.rules import kit
from tactical.rules.kit import IllegalActionError, evolve, private
from tactical.rules.play import PlayRules, Step, Viewer, action_type, form_value, whole_number

from . import board
from . import doctrine as D
from . import engine as E
from . import fleets as F
from . import tables as T
from .state import Attack, Battle, Move, Orders, Power

FORMAT = f"{T.BOOK} action format"
PLANTED_ID = 9_999
FIELDS = {
    "orders": {
        "ship",
        "engines",
        "fields",
        "weapons",
        "tractor",
        "invisibility",
        "speed",
        "destruct",
        "repair",
        "plot",
    },
    "move": {"ship", "how"},
    "attack": {"ship", "target", "weapon", "system"},
}
NUMBERS = ("ship", "engines", "fields", "weapons", "tractor", "invisibility", "speed", "target")


def to_json(action) -> dict:
    kind = {Orders: "orders", Move: "move", Attack: "attack"}[type(action)]
    return {"type": kind, **vars(action)}


def _bad(message: str) -> IllegalActionError:
    return IllegalActionError(FORMAT, message)


def from_json(data: Any):
    kind = action_type(data, FIELDS, _bad)
    if "ship" not in data:
        raise _bad(f"a {kind} action names its ship")
    values: dict[str, Any] = {}
    for key, raw in data.items():
        if key == "type":
            continue
        if key in NUMBERS:
            value = whole_number(raw, negative=False)
            if value is None:
                raise _bad(f"{key} is a whole number, not {raw!r}")
        elif key == "destruct":
            if not isinstance(raw, bool):
                raise _bad("destruct is true or false")
            value = raw
        else:
            if not isinstance(raw, str) or len(raw) > 20:
                raise _bad(f"{key} is a short word")
            value = raw
        values[key] = value
    return {"orders": Orders, "move": Move, "attack": Attack}[kind](**values)


class MyTrekPlay(PlayRules):
    name = "mytrek"
    format_rule = FORMAT
    turn_rule = T.PHASES
    play_template = "tactical/rulesets/mytrek/play.html"
    late_text = "the computer gives its orders for this step."

    def initial_state(self, setup: Mapping[str, Any], dice) -> Battle:
        return F.new_battle(setup)

    def acting_side(self, state: Battle):
        return E.acting_side(state)

    def acting_sides(self, state: Battle):
        return E.acting_sides(state)

    def is_over(self, state: Battle) -> bool:
        return state.over

    def parse_action(self, data):
        return from_json(data)

    def action_json(self, action) -> dict:
        return to_json(action)

    def describe(self, action_json, state=None) -> str:
        action = from_json(action_json)
        return f"Ship {action.ship}: {E._order_text(action)}"

    def check_owner(self, state: Battle, action, seat: int) -> None:
        ship = state.ship(getattr(action, "ship", None))
        if ship is None or ship.side != seat:
            raise IllegalActionError(T.PHASES, f"there is no ship {getattr(action, 'ship', '?')} of yours")

    def apply(self, state: Battle, action, dice) -> Step:
        res = E.apply(state, action, dice)
        return Step(res.state, res.events)

    def doctrine_action(self, state: Battle, side: int):
        from tactical.rules.kit import fallback

        return fallback(
            state, D.doctrine_action(state, side), check=E.check, instead=lambda s: BOOK.instead(s, side)
        )

    def events(self, state: Battle):
        return state.log

    def result(self, state: Battle) -> dict:
        return E.result(state)

    def summary(self, result, names) -> str:
        winner = kit.result_winner(result)
        return f"{names.get(winner, f'Side {winner}')} wins." if winner else "The battle ends in a draw."

    def late_done(self, state: Battle) -> bool:
        """A late side's decision is done when its ships' orders for the step are all in: the step
        was resolved (nothing pending) or the orders now wait for another side."""
        if not state.pending:
            return True
        last = state.ship(state.pending[-1][0])
        return last is None or last.side not in E.acting_sides(state)

    def clock_restarts(self, state: Battle) -> bool:
        """The decision clock starts afresh with each step, not when one side's orders are in."""
        return not state.pending

    def turn_label(self, state: Battle) -> str:
        return E.step_label(state)

    def your_turn_label(self, state: Battle) -> str:
        return f"the orders for {E.step_label(state)}"

    def legal_json(self, state: Battle, side: int) -> dict:
        out: dict[str, list] = {}
        for action in E.legal_actions(state, side) if side in E.acting_sides(state) else ():
            out.setdefault(str(action.ship), []).append(to_json(action))
        return out

    def state_json(self, state: Battle, viewer: Viewer) -> dict:
        side = viewer.fog_side
        ships = []
        for s in board.visible_ships(state, side):
            row = {
                "id": s.id,
                "side": s.side,
                "name": s.name,
                "at": [s.x, s.y],
                "facing": s.facing,
                "hull": s.hull,
                "max_hull": s.design.hull,
                "size": s.design.size,
                "level": T.damage_level(s.design.size, s.hull),
                "speed": T.speed_name(s.speed),
                "invisible": s.invisible,
                "held": s.held,
                "factors": {k: s.factor(k) for k in T.SYSTEMS_NAMES},
            }
            if side is None or s.side == side:
                row["power"] = vars(s.power)
                row["destruct"] = s.destruct
            ships.append(row)
        mine = {
            str(sid): to_json(a) for sid, a in state.pending if side is None or state.ship(sid).side == side
        }
        return {
            "turn": state.turn,
            "phase": state.phase,
            "step": state.step,
            "label": E.step_label(state),
            "ships": ships,
            "my_orders": mine,
            "over": state.over,
            "winner": state.winner,
        }

    def page_context(self, state: Battle, viewer: Viewer) -> dict:
        side = viewer.fog_side
        waiting = [s.id for s in E.waiting(state, viewer.seat)] if viewer.can_act and viewer.seat else []
        return {
            "svg": board.render(state, side, waiting[0] if waiting else None, dict(viewer.colours)),
            "mt": self.state_json(state, viewer),
            "waiting": waiting,
            "order_form": order_form(state, waiting[0]) if waiting else None,
        }

    def replay_context(self, state: Battle, action_json, viewer: Viewer) -> dict:
        return {
            "svg": board.render(state, viewer.fog_side, None, dict(viewer.colours)),
            "note": E.step_label(state),
        }

    def form_action(self, kind: str, form: Mapping[str, list[str]]):
        if kind not in FIELDS:
            return None
        data: dict[str, Any] = {"type": kind}
        for key in FIELDS[kind]:
            value = form_value(form, key, "")
            if key == "destruct":
                data[key] = value in ("1", "on", "true")
            elif key == "plot":
                data[key] = value.strip().upper()
            elif value != "":
                data[key] = value
        return data


def order_form(state: Battle, ship_id: int) -> dict:
    """What the play page offers for the next ship of the acting side to be given its orders."""
    ship = state.ship(ship_id)
    out: dict[str, Any] = {"ship": ship.id, "label": ship.label, "step": state.step}
    if state.step == "zero":
        out.update(
            pp=T.power_points(ship.design.size, ship.hull),
            device=ship.design.invisibility,
            factors={k: ship.factor(k) for k in T.SYSTEMS_NAMES},
            speeds=[(v, T.speed_name(v)) for v in range(ship.design.top_speed + 1)],
            repairs=[k for k in T.SYSTEMS_NAMES if ship.factor(k) < T.MAX_PER_SYSTEM],
            top={e: T.speed_name(E.max_speed(ship, e)) for e in range(4)},
            suggest=vars(D.suggested_orders(state, ship)),
        )
        return out
    out["options"] = [
        {
            "json": json.dumps(to_json(a)),
            "label": E._order_text(a),
            "how": getattr(a, "how", ""),
            "target": getattr(a, "target", 0),
            "system": getattr(a, "system", ""),
        }
        for a in E.legal_actions_for(state, ship)
    ]
    return out


RULES = MyTrekPlay()


class MyTrekBook(kit.Book):
    key = "mytrek"
    title = "My Trek V"
    rule_book = "002_17a1b1527ce9a678.txt"
    play = RULES
    max_steps = 20_000

    def legal_actions(self, state: Battle):
        return E.legal_actions(state)

    def check(self, state: Battle, action) -> None:
        E.check(state, action)

    def choose(self, state: Battle):
        return D.doctrine_action(state)

    def instead(self, state: Battle, side: int | None = None):
        ship = E.waiting(state, side)[0]
        if state.step == "zero":
            return Orders(ship.id)
        return Move(ship.id, "H") if state.step == "move" else Attack(ship.id)

    def sample_setup(self, rng) -> dict:
        return {
            "sides": {
                "1": [F.design_json(d) for d in F.random_fleet(rng)],
                "2": [F.design_json(d) for d in F.random_fleet(rng)],
            }
        }

    def plant_hidden(self, state: Battle, seat: int):
        """An enemy ship under its invisibility device, more than 3 spaces from every ship of the
        seat (ruling MT11), its orders already given (so the sides' turns are unchanged)."""
        enemy = next((s for s in state.ships if s.side != seat), None)
        mine = [s for s in state.ships if s.side == seat and s.alive]
        if enemy is None or not mine or state.over:
            return
        spot = next(
            (
                (x, y)
                for y in range(state.height)
                for x in range(state.width)
                if all(max(abs(x - s.x), abs(y - s.y)) > E.DETECTION_RANGE + 1 for s in mine)
            ),
            None,
        )
        if spot is None:
            return
        ghost = evolve(
            enemy,
            id=PLANTED_ID,
            x=spot[0],
            y=spot[1],
            hull=enemy.design.hull,
            removed=False,
            power=Power(invisibility=E.INVISIBILITY_PP),
            speed=0,
            invisible=True,
            destruct=False,
        )
        pending = state.pending
        if state.step == "zero":
            pending += ((PLANTED_ID, Orders(PLANTED_ID, invisibility=E.INVISIBILITY_PP)),)
        told = private("move", f"Ship ({PLANTED_ID}) slips away unseen.", (enemy.side,), ship=PLANTED_ID)
        yield evolve(state, ships=state.ships + (ghost,), pending=pending, log=state.log + (told,))

    def probe_actions(self, state: Battle, seat: int):
        mine = next((s.id for s in state.ships if s.side == seat and s.alive), 0)
        yield {"type": "attack", "ship": mine, "target": PLANTED_ID, "weapon": "beams", "system": ""}
        yield {"type": "attack", "ship": mine, "target": PLANTED_ID, "weapon": "tractor", "system": ""}
        yield {"type": "move", "ship": PLANTED_ID, "how": "F"}
        yield {"type": "orders", "ship": PLANTED_ID, "engines": 1}


BOOK = MyTrekBook()
