"""The engineering phase (004 V.A, V.B, VI.A, VI.B, VII.A, VII.B): one ``Engineer`` task at a time,
then ``EndTurn``.

Duties ("repair", "charge_warp", "charge_bank", "cloak"): one per engineering phase (two for a
ship with three or more nacelles, V.A), only if the ship did not attack. Power transfers and
resources ("bank_repair", "warp_repair", "dilithium_repair", "dilithium_charge",
"trilithium_charge") beside them; operations (V.B: "mine_resource", "station_repair",
"station_dilithium", "station_trilithium") only if the ship did not attack, is not cloaked, and
stayed docked since its last turn.
"""

from __future__ import annotations

from tactical.rules.kit import evolve

from . import actions as A
from . import core as C
from .engine import Resolver, _Ctx, _end_turn
from .state import NO_CLOAK, BattleState, Refusal, Ship

_DUTIES = ("repair", "charge_warp", "charge_bank", "cloak")


def _uncharged_bank(ship: Ship) -> int | None:
    """The first uncharged bank not discharged this turn (VI.B)."""
    return next((i for i, c in enumerate(ship.banks) if not c and i not in ship.t_fired), None)


def _repair_ok(ship: Ship) -> None:
    if ship.damage == 0:
        raise Refusal("004 V.A", f"ship {ship.id} has no damage to repair")
    if ship.t_cloak:
        raise Refusal("004 VI.A", "a cloaked ship cannot repair the turn it cloaks or de-cloaks")


def _duty(state: BattleState, ship: Ship, task: str) -> dict:
    if ship.t_attacked:
        raise Refusal("004 V.A", "these duties only if the ship did not attack this turn")
    if ship.t_duties >= 1 + ship.card.extra_phases:
        raise Refusal("004 V.A", "one duty per engineering phase (three or more nacelles: two phases)")
    if task == "repair":
        _repair_ok(ship)
        return {"damage": ship.damage - 1, "t_repaired": True}
    if task == "charge_warp":
        _charge_warp_ok(ship)
        return {"warp": ship.warp + 1, "t_charged_warp": True}
    if task == "charge_bank":
        i = _uncharged_bank(ship)
        if i is None:
            raise Refusal("004 VI.B", "no advanced weapon bank to charge (none empty, or discharged this turn)")
        return {"banks": tuple(True if k == i else c for k, c in enumerate(ship.banks))}
    if ship.card.cloaks == 0:
        raise Refusal("004 VI.A", f"ship {ship.id} has no cloaking device")
    if ship.t_engaged:
        raise Refusal("004 VI.A", "a ship cannot attack and then cloak during the same turn")
    if ship.cloaked or ship.t_cloak:
        raise Refusal("004 VI.A", "no ship can cloak and de-cloak the same turn, nor cloak twice")
    if C.damaged_mf(ship) < 2:
        raise Refusal("004 VI.A", "a ship whose damage leaves it 1 MF cannot cloak until repaired to 2 MF")
    if any(C.kind_at(state, c) in NO_CLOAK for c in ship.hull()):
        raise Refusal("004 VI.A", "cloaking devices do not work inside ion storms and nebulae")
    return {"cloaked": True, "t_cloak": "cloak"}


def _charge_warp_ok(ship: Ship) -> None:
    if ship.card.nacelles == 0:
        raise Refusal("004 IV.B", "only ships with nacelles have warp engines")
    if ship.warp >= ship.card.nacelles:
        raise Refusal("004 IV.B", "every warp engine is charged")
    if ship.t_charged_warp or ship.t_warped or ship.boost:
        raise Refusal("004 IV.B", "only one engine can be charged or used per turn, and not after a jump")
    if ship.t_attacked or ship.t_repaired or ship.t_cloak:
        raise Refusal("004 IV.B", "no charging on a turn the ship attacked, repaired, cloaked or de-cloaked")


def _power(state: BattleState, ship: Ship, task: str) -> dict:
    phases = 1 + ship.card.extra_phases
    if task == "bank_repair":
        _repair_ok(ship)
        if ship.t_bank_repairs >= phases:
            raise Refusal("004 V.A", "one bank transfer per engineering phase")
        i = next((k for k, c in enumerate(ship.banks) if c), None)
        if i is None:
            raise Refusal("004 VI.B", "no charged advanced weapon bank")
        return {"damage": ship.damage - 1, "t_bank_repairs": ship.t_bank_repairs + 1, "t_repaired": True,
                "banks": tuple(False if k == i else c for k, c in enumerate(ship.banks))}
    if task == "warp_repair":
        _repair_ok(ship)
        if ship.t_warp_repairs >= phases or ship.boost or ship.t_warped:
            raise Refusal("004 V.A", "one warp transfer per engineering phase, one engine used per turn")
        if ship.warp == 0:
            raise Refusal("004 V.A", "no charged warp engine")
        return {"damage": ship.damage - 1, "warp": ship.warp - 1, "t_warp_repairs": ship.t_warp_repairs + 1,
                "t_repaired": True}
    stuff = "dilithium" if task.startswith("dilithium") else "trilithium"
    if getattr(ship, stuff) == 0:
        raise Refusal("004 VII.B", f"ship {ship.id} carries no {stuff}")
    if (ship.dil if stuff == "dilithium" else ship.tri) or ship.boost:
        raise Refusal("004 VII.B", f"one unit of {stuff} per turn, never with a warp power transfer")
    left = {stuff: getattr(ship, stuff) - 1, "dil" if stuff == "dilithium" else "tri": task.split("_")[1]}
    if task == "dilithium_repair":
        _repair_ok(ship)
        return dict(left, damage=ship.damage - 1, t_repaired=True)
    if task == "dilithium_charge":
        if ship.card.nacelles == 0 or ship.warp >= ship.card.nacelles or ship.t_charged_warp or ship.t_warped:
            raise Refusal("004 IV.B", "no warp engine to charge now (one per turn, not after a jump)")
        return dict(left, warp=ship.warp + 1, t_charged_warp=True)
    i = _uncharged_bank(ship)
    if i is None:
        raise Refusal("004 VI.B", "no advanced weapon bank to charge")
    return dict(left, banks=tuple(True if k == i else c for k, c in enumerate(ship.banks)))


def _operation(state: BattleState, ship: Ship, task: str) -> dict:
    if ship.t_engaged:
        raise Refusal("004 V.B", "cargo, mining and repair operations only if the ship did not attack")
    if ship.cloaked:
        raise Refusal("004 VI.A", "a cloaked ship cannot conduct mining or cargo transfer operations")
    place = C.place_of(state, ship)
    if not place or place != ship.berth:
        raise Refusal("004 V.B", "the ship must remain docked (or in the nebula) for one turn first")
    cargo = ship.mines + ship.dilithium + ship.trilithium
    if task == "station_repair":
        st = C.docked_station(state, ship)
        if st is None:
            raise Refusal("004 V.B", "no space station alongside")
        if st in state.stations_used:
            raise Refusal("004 V.B", "the station repairs only one ship at a time (one a round, ruling SS21)")
        if ship.damage == 0:
            raise Refusal("004 V.A", f"ship {ship.id} has no damage to repair")
        return {"damage": max(0, ship.damage - 2), "_station": st}
    if ship.t_operation:
        raise Refusal("004 V.B", "it takes one complete turn to on- or off-load cargo")
    if cargo >= ship.card.cargo:
        raise Refusal("004 III", "cargo is limited to the ship's cargo factor")
    if task == "mine_resource":
        if C.kind_at(state, ship.pos) == "metaphasic":
            return {"trilithium": ship.trilithium + 1, "t_operation": True}
        if C.orbiting(state, ship.pos) is not None:
            return {"dilithium": ship.dilithium + 1, "t_operation": True}
        raise Refusal("004 VII.A", "nothing to mine here (a planet or moon in orbit, a metaphasic nebula)")
    if C.docked_station(state, ship) is None:
        raise Refusal("004 V.B", "no space station alongside")
    stuff = task.split("_")[1]
    return {stuff: getattr(ship, stuff) + 1, "t_operation": True}


def engineer(state: BattleState, ship: Ship, a: A.Engineer) -> Resolver:
    if a.task not in A.TASKS:
        raise Refusal("004 V.A", f"an engineering task is one of {', '.join(A.TASKS)}")
    if a.task in _DUTIES:
        changes = _duty(state, ship, a.task)
        changes["t_duties"] = ship.t_duties + 1
    elif a.task.startswith(("station", "mine_")):
        changes = _operation(state, ship, a.task)
    else:
        changes = _power(state, ship, a.task)
    station = changes.pop("_station", None)

    def run(ctx: _Ctx) -> None:
        if station is not None:
            ctx.state = evolve(ctx.state, stations_used=ctx.state.stations_used + (station,))
        s = ctx.change(ship.id, t_phase="engineering", **changes)
        ctx.log("engineer", f"Ship {s.id}, engineering: {a.task.replace('_', ' ')}.", s.id, task=a.task)
    return run


def end_turn(state: BattleState, ship: Ship, a: A.EndTurn) -> Resolver:
    def run(ctx: _Ctx) -> None:
        ctx.log("end", f"Ship {ship.id} ends its turn.", ship.id)
        _end_turn(ctx, ship.id)
    return run


__all__ = ["end_turn", "engineer"]
