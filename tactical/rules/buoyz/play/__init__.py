"""Online play of Buoyz 'N Da 'Hood (pure Python): the ``PlayRules`` hooks ``tactical/play/``
calls for a battle whose ruleset is ``"buoyz"`` (issue 17 item 2, first part).

**The setup** (``Battle.setup``; ``setup_for`` writes one from two fleets of SDs)::

    {"attacker": 1, "defender": 2, "table": [72, 48], "turn_cap": 40,
     "sides": {"1": {"name": "…", "colour": "#cc3333", "ships": [{"sd": "constitution"}, …]},
               "2": {…, "ships": [{"sd": "war_talon", "x": 30, "y": 40, "heading": 180, "cloaked": true},
                                  {"sd": "b_rel", "lurking": [1, 1]}]}},
     "objects": [{"kind": "planet", "x": 36, "y": 24, "radius": 3}]}

With more than two sides (3.0, rulings BZ83-BZ89) ``"seats": [1, 2, 3]`` lists every seat in
order (the attacker and defender among them; by default just those two) and ``sides`` has one
entry per seat; each seat lines up on its own edge (BZ87) and sees its own fog of war.

Ships are SDs of the catalogue by key (``sds.CATALOGUE``) or whole SDs as JSON (a custom design,
held to T'Corr's limits: ``sd_from_json``), numbered 1, 2, … in order (the
attacker's first) and lined up by ``deploy.deploy`` (ruling BZ4) unless a ship gives its own
``x``, ``y``, ``heading`` (and ``cloaked``, for an SD with a cloaking device: it starts the
battle cloaked; or ``lurking``, the 2' square [column, row] it lurks in unseen: 10.2, BZ53).

**The state** is ``PlayState``: the engine's ``BattleState`` and the battle's log, each event
tagged with the sides that may read it. **Fog of war** (10.2, 10.3): an enemy ship that is
lurking, or cloaked and not detected, is left out of the board, the ship rows and the JSON a side receives,
and every event naming it (its moves, its mines, …) is its own side's only, as is any legal
action that would point at it. Declaring the cloak is seen by both sides (its counter leaves the
table); where it goes then is not.

**The action JSON** (``to_json`` / ``from_json``)::

    {"type": "begin"}                                    (taken by itself: nobody decides it)
    {"type": "special", "ship": 3, "action": "evasive", "target": null}
    {"type": "move", "ship": 3, "before": 0, "turn": 1, "after": 4.5, "turn_end": 0,
     "lower_shields": false, "lay_mine": false, "sweep": false, "orbit": null, "web": false}
    {"type": "fire", "ship": 3, "shots": [["main0", 7, 4], ["secondary", 8, 2]], "board": null}
    {"type": "detect", "ship": 3}
    {"type": "fly", "flight": 2, "to": [30.5, 12], "attack": 7, "cap": false, "loiter": false, "home": false}
    {"type": "reveal", "ship": 3, "at": [20, 30], "heading": 90}     {"type": "lurk", "ship": 3}
"""

from __future__ import annotations

from tactical.rules.kit import fallback, visible_to
from tactical.rules.play import PlayRules, Step

from .. import actions as A
from .. import board, plans
from ..doctrine import doctrine_action
from ..engine import TURN_RULE, apply, check, legal_actions, outcome
from ..state import AC_MOVEMENT, INITIATIVE, MOVEMENT, IllegalActionError
from .codec import (  # noqa: F401
    _FIELDS,
    ACTION_TYPES,
    FORMAT_RULE,
    MAX_INCHES,
    MAX_SHOTS,
    ActionFormatError,
    _flag,
    _inches,
    _int,
    _point,
    _turn_words,
    describe,
    from_json,
    to_json,
)

# re-exported: importers name them from here, as they did from play.py
from .fog import PlayState, _points_at, hidden_ships, side_actions  # noqa: F401
from .page import (  # noqa: F401
    _DECIDING,
    PHASE_NAMES,
    _choice_groups,
    _deciding,
    _fly_category,
    _list_order,
    _px,
    _selected,
    _special_label,
    board_plan,
    flight_plan,
    ship_rows,
)
from .setup import (  # noqa: F401
    MAX_SD_TEXT,
    MAX_SHIPS,
    OBJECT_KINDS,
    SD_FIELDS,
    SD_INTS,
    SETUP_RULE,
    SetupError,
    _number,
    _sd_int,
    _sd_text,
    entry_sd,
    initial_state,
    sd_entry,
    sd_from_json,
    sd_to_json,
    setup_for,
)


class BuoyzPlay(PlayRules):
    name = "buoyz"
    illegal = IllegalActionError
    format_rule = FORMAT_RULE
    turn_rule = TURN_RULE
    play_template = "tactical/rulesets/buoyz/play.html"
    replay_ships_template = "tactical/rulesets/buoyz/_replay_ships.html"
    setup_label = "Set-up: the fleets line up on the table (2.2 Pre-Game)"
    late_text = "the computer doctrine plays its nominations until the next phase."

    def initial_state(self, setup, dice):
        return initial_state(setup, dice)

    def acting_side(self, state):
        return None if state.battle.over else state.battle.acting

    def is_over(self, state):
        return state.battle.over

    def automatic_step(self, state, dice):
        if state.battle.phase != INITIATIVE:
            raise IllegalActionError(TURN_RULE, "nobody is to nominate and the battle is not over")
        return self.apply(state, A.Begin(), dice), {"type": "begin"}

    def parse_action(self, data):
        return from_json(data)

    def action_json(self, action):
        return to_json(action)

    def describe(self, action_json, state=None):
        return describe(action_json)

    def check_owner(self, state, action, seat):
        battle = state.battle
        if isinstance(action, A.Begin):
            raise IllegalActionError(TURN_RULE, "the battle begins by itself")
        if isinstance(action, A.FlyAC):
            owner = battle.flight(action.flight).side
            what = f"AC flight {action.flight}"
        else:
            owner = board.ship_in_sight(battle, action.ship, seat).side
            what = f"ship {action.ship}"
        if owner != seat:
            raise IllegalActionError(TURN_RULE, f"{what} is not yours (it is side {owner}'s)")
        hidden = hidden_ships(battle, seat) | (A.named_ships(action) - {s.id for s in battle.ships})
        if hidden and _points_at(action, hidden, battle):
            # Ruling BZP2: a ship a side cannot see cannot be named; the same refusal as a ship
            # that is not there, so the answer gives nothing away.
            raise IllegalActionError(TURN_RULE, "there is no such target in sight")

    def apply(self, state, action, dice):
        res = apply(state.battle, action, dice)  # its events carry their fog-of-war tags
        return Step(PlayState(res.state, state.log + res.events), res.events)

    def doctrine_action(self, state, side):
        battle = state.battle  # the kit's fallback: a refused choice becomes the first legal action
        return fallback(battle, doctrine_action(battle), check=check, instead=lambda b: legal_actions(b)[0])

    def late_done(self, state):
        # Ruling BZP3: the doctrine makes the late side's one nomination (a Special Action and
        # the move that must follow it are one), then its player decides again.
        return state.battle.nominated is None

    def events(self, state):
        return state.log

    def hides_step(self, events, side):
        # A step with any line the side may not read is "a hidden action" to it in the replay
        # (ruling BZP1): its label would name the hidden ship.
        return not all(visible_to(e, side) for e in events) or not events


    def result(self, state):
        o = outcome(state.battle)
        crits = {s.id: list(s.crits) for s in state.battle.ships}  # 5.8, for a converted battle's result (XC9)
        return {"winner": o.winner, "turns": o.turns, "over": o.over,
                "ships": [{"ship": f.ship, "side": f.side, "fate": f.fate, "points": f.points, "hull": f.hull,
                           "crippled": f.crippled, "crits": crits.get(f.ship, [0, 0, 0])} for f in o.ships],
                "points_destroyed": {str(k): v for k, v in o.points_destroyed.items()}}

    def summary(self, result, names):
        winner = result["winner"]
        return (f"The battle is over after {result['turns']} turn(s): "
                + (f"{names.get(winner, winner)} holds the field." if winner is not None
                   else "neither side holds the field."))

    def turn_label(self, state):
        b = state.battle
        return f"turn {b.turn}'s {PHASE_NAMES.get(b.phase, b.phase)} phase nomination"

    def your_turn_label(self, state):
        return self.turn_label(state)

    # --- pages and the API ---------------------------------------------------------------

    def legal_json(self, state, side):
        out: dict[str, list[dict]] = {}
        for a in side_actions(state.battle, side):
            key = f"flight:{a.flight}" if isinstance(a, A.FlyAC) else str(getattr(a, "ship", ""))
            out.setdefault(key, []).append(to_json(a))
        return out

    def state_json(self, state, viewer):
        b = state.battle
        hidden = hidden_ships(b, viewer.fog_side)
        own = viewer.fog_side is None or b.acting == viewer.fog_side
        return {
            "turn_number": b.turn, "phase": b.phase, "initiative": b.initiative, "turn_cap": b.turn_cap,
            "nominated": b.nominated if (own or b.nominated not in hidden) else None,
            "squadron_next": list(b.squadron_next) if own else [],
            "table": {"width": b.table[0], "height": b.table[1], "units": "inches"},
            "objects": [{"id": o.id, "kind": o.kind, "centre": list(o.centre), "radius": o.radius} for o in b.objects],
            "minefields": [{"id": m.id, "side": m.side, "centre": list(m.centre), "heading": m.heading,
                            "length": m.length, "width": m.width, "rows": m.rows} for m in b.minefields],
            "flights": [{"id": f.id, "side": f.side, "carrier": f.carrier, "kind": f.kind, "status": f.status,
                         "pos": list(f.pos) if f.pos is not None else None, "armed": f.armed, "dogfight": f.dogfight}
                        for f in b.flights if f.carrier not in hidden or f.flying],
            "torpedoes": [{"target": t.target, "kind": t.kind, "side": t.side} for t in b.torpedoes
                          if t.target not in hidden],
            "webs": [{"id": w.id, "side": w.side, "a": list(w.a), "b": list(w.b)} for w in b.webs
                     if not hidden & set(w.anchors)],
            "ships": ship_rows(b, viewer), "winner": b.winner,
        }

    def page_context(self, state, viewer):
        b = state.battle
        selected = _selected(b, viewer)
        acting = viewer.can_act and b.acting == viewer.seat
        groups = _choice_groups(b, viewer.seat) if acting else []
        return {
            "buoyz": b, "phase_name": PHASE_NAMES.get(b.phase, b.phase),
            "svg": board.render(b, viewer_side=viewer.fog_side, colours=viewer.colours, names=viewer.names,
                                selected=selected, also=[g["ship"] for g in groups if g["ship"] is not None]),
            "ships": ship_rows(b, viewer), "selected": selected,
            "groups": groups,
            "board_plan": board_plan(b, viewer.seat) if acting and b.phase in (MOVEMENT, AC_MOVEMENT) else None,
            "deciding": _deciding(b),
            "outcome": outcome(b) if b.over else None,
        }

    def form_action(self, kind, form):
        # The fire form (plans.fire_from_form): dice per weapon and target, split fire included.
        return plans.fire_from_form(form) if kind == "fire" else None

    def replay_context(self, state, action_json, viewer):
        b = state.battle
        return {"svg": board.render(b, viewer_side=viewer.fog_side, colours=viewer.colours, names=viewer.names),
                "ships": ship_rows(b, viewer),
                "note": _replay_note(b)}


def _replay_note(b) -> str:
    """Where a replay step stands: game turns count from 1 (000 CAM 3.0); before it, the set-up."""
    if b.over:
        return "Over"
    if b.turn < 1:
        return "Set-up, before game turn 1"
    return f"Turn {b.turn}, {PHASE_NAMES.get(b.phase, b.phase)} phase"


RULES = BuoyzPlay()
__all__ = [
    "ACTION_TYPES",
    "RULES",
    "BuoyzPlay",
    "PlayState",
    "SetupError",
    "describe",
    "from_json",
    "hidden_ships",
    "initial_state",
    "sd_entry",
    "sd_from_json",
    "sd_to_json",
    "setup_for",
    "ship_rows",
    "side_actions",
    "to_json",
]
