"""Star Sectors online play: the ``PlayRules`` hooks (``tactical/play/`` reaches the engine only
through them). Fog of war: a cloaked enemy (VI.A), unless a science order detects it (VII.B), is
not shown, not named in any answer, and what it does is told to its own side only (the events'
tags, ruling SS13)."""

from __future__ import annotations

import json

from tactical.rules.play import PlayRules, Step

from . import actions as A
from . import codec
from . import core as C
from .engine import seen_by
from .sequence import apply, result
from .setup import new_battle
from .state import BattleState, Refusal


def ship_row(state: BattleState, s) -> dict:
    return {"id": s.id, "side": s.side, "card": s.card.key, "name": s.card.name, "at": list(s.pos),
            "facing": s.facing, "hull": [list(c) for c in s.hull()], "damage": s.damage, "ss": s.card.ss,
            "cf": C.cf(state, s), "df": C.df(state, s), "mf": C.mf(state, s), "destroyed": s.destroyed,
            "withdrawn": s.withdrawn, "cloaked": s.cloaked, "done": s.done}


class StarSectorsPlay(PlayRules):
    name = "starsectors"
    illegal = Refusal
    format_rule = codec.FORMAT_RULE
    turn_rule = "004 III"
    setup_label = "Set-up: the fleets deploy on their first rows (004 III)"
    play_template = "tactical/rulesets/starsectors/play.html"
    replay_ships_template = "tactical/rulesets/starsectors/_replay_ships.html"

    def initial_state(self, setup, dice):
        return new_battle(setup, dice)

    def acting_side(self, state):
        return None if state.over else state.side

    def is_over(self, state):
        return state.over

    def parse_action(self, data):
        return codec.from_json(data)

    def action_json(self, action):
        return codec.to_json(action)

    def describe(self, action_json, state=None):
        return codec.describe(action_json, state)

    def check_owner(self, state, action, seat):
        ship = state.ship(getattr(action, "ship", None))
        if ship is None or ship.id not in seen_by(state, seat):
            raise Refusal("004 III", f"there is no ship {getattr(action, 'ship', None)} of yours")
        if ship.side != seat:
            raise Refusal("004 III", f"ship {ship.id} is not yours to order")

    def apply(self, state, action, dice):
        res = apply(state, action, dice)
        return Step(res.state, res.events)

    def doctrine_action(self, state, side):
        from .book import BOOK

        return BOOK.doctrine_action(state)

    def events(self, state):
        return state.log

    def result(self, state):
        return result(state)

    def summary(self, result, names):
        w = result.get("winner")
        return "The battle is over: a draw." if w is None else f"The battle is over: {names.get(w, f'side {w}')} wins."

    def late_done(self, state):
        return state.active is None

    def turn_label(self, state):
        return f"round {state.round}, side {state.side}'s ship turn"

    def legal_json(self, state, side):
        from .sequence import legal_actions

        if state.over or state.side != side:
            return {}
        out: dict[str, list] = {}
        for a in legal_actions(state):
            out.setdefault(str(a.ship), []).append(codec.to_json(a))
        return out

    def state_json(self, state, viewer):
        seen = seen_by(state, viewer.fog_side)
        active = state.active if state.active in seen else None
        return {"round": state.round, "acting": state.side, "active": active, "order": list(state.order),
                "width": state.width, "height": state.height,
                "terrain": [{"id": t.id, "kind": t.kind, "cells": [list(c) for c in t.cells]} for t in state.tiles],
                "mines": [{"id": m.id, "at": list(m.cell)} for m in state.mines],
                "ships": [ship_row(state, s) for s in state.ships if s.id in seen]}

    def _plan(self, state, viewer) -> dict:
        """The viewer's ships that may take an order now, each with its legal actions."""
        from .sequence import legal_actions

        if not viewer.can_act or state.over or viewer.seat is None or state.side != viewer.seat:
            return {}
        plan: dict[int, list] = {}
        for a in legal_actions(state):
            plan.setdefault(a.ship, []).append(a)
        return plan

    def page_context(self, state, viewer):
        from .board import board_svg

        plan = self._plan(state, viewer)
        seen = seen_by(state, viewer.fog_side)
        selected = state.active if state.active in seen else None
        if selected is None and plan:
            selected = min(plan)
        return {"svg": board_svg(state, viewer.fog_side, plan, selected, viewer.colours),
                "state": self.state_json(state, viewer), "ss_groups": groups(state, plan),
                "ss_selected": selected, "ss_ships": self.ship_rows(state, viewer.fog_side),
                "ss_round": state.round, "ss_round_cap": state.round_cap,
                "ss_active": state.ship(selected) if selected is not None else None}

    def ship_rows(self, state, side) -> list[dict]:
        seen = seen_by(state, side)
        rows = []
        for s in state.ships:
            if s.id not in seen:
                continue
            row = ship_row(state, s)
            row.update(warp=s.warp, banks=[f"{b}{'*' if c else ''}" for b, c in zip(s.card.banks, s.banks)],
                       cargo={"mines": s.mines, "dilithium": s.dilithium, "trilithium": s.trilithium},
                       crew=s.crew_option or ("aboard" if s.crew else ""), arc=s.card.arc)
            if side is not None and s.side != side:  # the enemy's cargo and charges are not on show
                row.update(warp=None, banks=list(s.card.banks), cargo=None, crew="")
            rows.append(row)
        return rows

    def replay_context(self, state, action_json, viewer):
        from .board import board_svg

        seen = seen_by(state, viewer.fog_side)
        selected = state.active if state.active in seen else None
        return {"svg": board_svg(state, viewer.fog_side, None, selected, viewer.colours),
                "ships": self.ship_rows(state, viewer.fog_side), "note": f"Round {min(state.round, state.round_cap)}"}


SECTIONS = (("Move and warp", (A.Move, A.Warp)), ("Attack", (A.Attack, A.AttackMine, A.Ram)),
            ("Tactical", (A.Crew, A.Transfer, A.Boost, A.Decloak, A.LayMine)),
            ("Engineering", (A.Engineer,)), ("Last resort", (A.SelfDestruct, A.Withdraw)))


def groups(state: BattleState, plan) -> list[dict]:
    """The order buttons beside the board, by ship and kind (every order works without the board)."""
    from .board import label

    out = []
    for sid in sorted(plan):
        ship = state.ship(sid)
        sections = []
        for title, kinds in SECTIONS:
            items = [{"label": label(a, ship), "json": json.dumps(codec.to_json(a))} for a in plan[sid]
                     if isinstance(a, kinds)]
            if items:
                sections.append({"title": title, "items": items})
        end = next((a for a in plan[sid] if isinstance(a, A.EndTurn)), None)
        out.append({"ship": sid, "label": f"Ship {sid} {ship.card.name}", "sections": sections,
                    "end": json.dumps(codec.to_json(end)) if end else "",
                    "phase": ship.t_phase or "not begun", "mf_left": C.mf(state, ship) - ship.t_mf})
    return out


RULES = StarSectorsPlay()

__all__ = ["RULES", "StarSectorsPlay", "ship_row"]
