"""The Star Sectors battle as frozen values (004; pure Python).

A ``Ship`` is a profile card (``cards.Card``) on the hex map with its chips: damage (white), charged
warp engines (green), charged advanced banks (red), cloak (blue), cargo (mines, dilithium,
trilithium) and its command crew; the ``t_*`` fields are what it did in its current turn (reset
when its next turn begins). ``BattleState`` holds the map (``HexGrid`` cells ``(col, row)``), the
terrain tiles, the mines, the sides in their order of play, the round and whose turn it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from campaign.rules.grid import HexGrid
from tactical.rules.geometry import hex as hx
from tactical.rules.kit import Event, IllegalActionError

from .cards import Card

Coord = tuple[int, int]
BLOCKING = frozenset({"asteroid", "planet", "moon", "star", "station"})  # impassable bodies (VII.A, ruling SS9)
NEBULAE = frozenset({"metaphasic", "mutara"})
NO_CLOAK = frozenset({"ion", "metaphasic", "mutara"})  # VI.A, VII.A
ROUND_CAP = 30  # ruling SS1
_HULLS: dict = {}  # (pos, facing, length) -> the hull's hexes (a pure function of the three)
_STEPS: dict = {}


def step(c: Coord, facing: int) -> Coord:
    """``geometry.hex.step``, remembered (the same cell and side always give the same cell)."""
    key = (c, facing % 6)
    found = _STEPS.get(key)
    if found is None:
        found = _STEPS[key] = hx.step(c, facing)
    return found


class Refusal(IllegalActionError):
    pass


def hull_at(pos: Coord, facing: int, length: int) -> tuple[Coord, ...]:
    """The hexes a hull of ``length`` covers with its flight stand at ``pos`` facing ``facing``."""
    key = (pos, facing, length)
    found = _HULLS.get(key)
    if found is None:
        cells, c = [pos], pos
        for _ in range(length - 1):
            c = step(c, facing + 3)
            cells.append(c)
        found = _HULLS[key] = tuple(cells)
    return found


@dataclass(frozen=True)
class Tile:
    id: int
    kind: str
    cells: tuple[Coord, ...]


@dataclass(frozen=True)
class Mine:
    id: int
    cell: Coord
    side: int


@dataclass(frozen=True)
class Ship:
    id: int
    side: int
    card: Card
    pos: Coord
    facing: int
    damage: int = 0
    destroyed: bool = False
    withdrawn: bool = False  # its side withdrew from the battle (ruling SS24)
    cloaked: bool = False
    warp: int = 0  # charged warp engines (green chips)
    banks: tuple[bool, ...] = ()  # charged advanced banks (red chips), one per bank on the card
    mines: int = 0
    dilithium: int = 0
    trilithium: int = 0
    crew: bool = False
    crew_option: str = ""  # VII.B, chosen at the start of its turn, lasts to its next turn (ruling SS12)
    df_drop: int = 0  # VI.B TWC/TBP/EDT, for the rest of the round
    boost: str = ""  # IV.C warp transfer chosen this turn (cf, df, mf, repair)
    tri: str = ""  # VII.B trilithium used this turn (cf, df, charge)
    dil: str = ""  # VII.B dilithium used this turn (mf, repair, charge)
    berth: str = ""  # where it ended its last turn docked (V.B "remain docked … for one turn")
    done: bool = False  # took its turn this round
    t_phase: str = ""  # "", "tactical", "engineering"
    t_mf: int = 0  # movement spent
    t_forward: bool = False
    t_reverse: int = 0
    t_turned: bool = False
    t_warped: bool = False
    t_attacked: bool = False  # rolled an attack (V.A: no duties; VI.B: banks alone do not count)
    t_engaged: bool = False  # engaged a target this turn (IV.E: no other)
    t_cloak: str = ""  # "cloak" / "decloak" this turn
    t_repaired: bool = False
    t_charged_warp: bool = False
    t_fired: tuple[int, ...] = ()  # banks discharged this turn
    t_duties: int = 0
    t_bank_repairs: int = 0
    t_warp_repairs: int = 0
    t_operation: bool = False
    t_stopped: bool = False  # entered orbit: all movement stops (VII.A)
    t_wormhole: bool = False  # left a worm hole: one more space only (VII.A)
    t_nebula: bool = False  # paid the nebula's −1 MF this turn (VII.A)
    t_orbit: bool = False  # began its turn in orbit: half MF (VII.A)

    @property
    def alive(self) -> bool:
        return not (self.destroyed or self.withdrawn)

    def hull(self) -> tuple[Coord, ...]:
        """The hexes its hull covers: the flight stand's hex (``pos``) then astern (ruling SS4)."""
        return hull_at(self.pos, self.facing, self.card.hull)


def _moved_hull(occ: dict, old: Ship, ship: Ship) -> dict | None:
    """``occ`` (no two hulls overlapping) with ``old``'s hull taken off and ``ship``'s put on,
    or None when the new hull would overlap another (then it is built afresh)."""
    sid = ship.id
    out = occ.copy()
    if old.alive:
        for c in old.hull():
            del out[c]
    if ship.alive:
        for c in ship.hull():
            if c in out:
                return None
            out[c] = sid
    return out


@dataclass(frozen=True)
class BattleState:
    width: int
    height: int
    ships: tuple[Ship, ...]
    sides: tuple[int, ...]
    order: tuple[int, ...]  # the order of play (III, ruling SS1)
    tiles: tuple[Tile, ...] = ()
    mines: tuple[Mine, ...] = ()
    round: int = 1
    acting: int = 0  # index into ``order``
    active: int | None = None  # the ship whose turn it is
    stations_used: tuple[int, ...] = ()  # V.B: a station repairs one ship a round
    round_cap: int = ROUND_CAP
    next_mine: int = 1
    log: tuple[Event, ...] = field(default=(), compare=True)

    _cached_from = {
        "width": ("grid", "near", "_fs", "_blocks"),
        "height": ("grid", "near", "_fs", "_blocks"),
        "ships": ("_alive_sides", "_seen", "occupied", "_occ_clean", "_index", "_slot", "_fs", "_nocloak"),
        "tiles": ("terrain", "near", "_fs", "_blocks", "_stations"),
        "round": ("_alive_sides",),
        "round_cap": ("_alive_sides",),
    }

    @cached_property
    def grid(self) -> HexGrid:
        return HexGrid(self.width, self.height)

    @cached_property
    def terrain(self) -> dict[Coord, Tile]:
        return {c: t for t in self.tiles for c in t.cells}

    @cached_property
    def near(self) -> tuple[frozenset, dict]:
        """The hexes next to a star (VII.A) and the planet or moon each orbit hex circles."""
        stars, orbit = set(), {}
        for t in self.tiles:
            if t.kind in ("star", "planet", "moon"):
                for c in t.cells:
                    for n in self.grid.neighbours(c):
                        if t.kind == "star":
                            stars.add(n)
                        else:
                            orbit.setdefault(n, t.id)
        return frozenset(stars), orbit

    @property
    def occupied(self) -> dict[Coord, int]:
        """Each hex a living ship's hull covers, and that ship's id (remembered; ``with_ship``
        carries it over, moving one hull, while no two hulls overlap)."""
        d = self.__dict__
        found = d.get("occupied")
        if found is None:
            found = d["occupied"] = {c: s.id for s in self.ships if s.alive for c in s.hull()}
            d["_occ_clean"] = len(found) == sum(s.card.hull for s in self.ships if s.alive)
        return found

    def ship(self, ship_id: int) -> Ship | None:
        index = self.__dict__.get("_index")
        if index is None:
            index = self.__dict__["_index"] = {s.id: s for s in reversed(self.ships)}  # the first of an id
            if len(index) == len(self.ships):  # each id once: where each ship stands in ``ships``
                self.__dict__["_slot"] = {s.id: i for i, s in enumerate(self.ships)}
        return index.get(ship_id)

    @property
    def side(self) -> int | None:
        return None if self.over else self.order[self.acting]

    @property
    def over(self) -> bool:
        d = self.__dict__
        if "_alive_sides" not in d:
            d["_alive_sides"] = self.round > self.round_cap or len({s.side for s in self.ships if s.alive}) <= 1
        return d["_alive_sides"]

    def with_ship(self, ship: Ship) -> BattleState:
        """The state with ``ship`` in place of the ship of its id. The look-ups that do not depend
        on what changed are carried over (``derive`` would drop every one that reads ``ships``)."""
        old = self.ship(ship.id)
        if old is None:
            return self
        d = self.__dict__
        sid = ship.id
        slot = d["_slot"].get(sid) if "_slot" in d else None
        if slot is not None:  # the one ship of that id: put in its place
            ships = list(self.ships)
            ships[slot] = ship
            ships = tuple(ships)
        else:
            ships = tuple(ship if s.id == sid else s for s in self.ships)
        new = d.copy()  # every look-up below is set anew or dropped
        new["ships"] = ships
        index = d.get("_index")
        if index is not None:
            index = new["_index"] = index.copy()
            index[sid] = ship
        else:
            new.pop("_slot", None)
        alive = ship.alive
        if not (old.alive == alive and old.side == ship.side):
            new.pop("_alive_sides", None)
        same_hull = old.alive == alive and (not alive or (old.pos == ship.pos and old.facing == ship.facing
                                                          and old.card.hull == ship.card.hull))
        occ = d.get("occupied")
        if occ is not None and d.get("_occ_clean"):
            if not same_hull:
                occ = _moved_hull(occ, old, ship)
                if occ is None:
                    del new["occupied"], new["_occ_clean"]
                else:
                    new["occupied"] = occ
        else:
            new.pop("occupied", None)
            new.pop("_occ_clean", None)
        nocloak = d.get("_nocloak")
        if nocloak is None or old.cloaked or ship.cloaked:
            nocloak = not any(s.cloaked for s in ships)
        new["_nocloak"] = nocloak
        fs = d.get("_fs")
        if "_seen" in d and nocloak:
            if fs is not None and same_hull:
                new["_fs"] = {k: v for k, v in fs.items() if sid not in k}
            elif fs is not None:
                del new["_fs"]
        else:
            new.pop("_seen", None)
            new.pop("_fs", None)
        out = object.__new__(BattleState)
        object.__setattr__(out, "__dict__", new)
        return out

    def __repr__(self) -> str:  # every field, deeply (the contract's snapshot), not the caches
        return (f"BattleState({self.width}x{self.height}, ships={self.ships!r}, order={self.order}, "
                f"tiles={self.tiles!r}, mines={self.mines!r}, round={self.round}, acting={self.acting}, "
                f"active={self.active}, stations={self.stations_used}, cap={self.round_cap}, "
                f"next_mine={self.next_mine}, log={len(self.log)}:{self.log[-1:]!r})")


__all__ = ["BLOCKING", "BattleState", "Coord", "Mine", "NEBULAE", "NO_CLOAK", "ROUND_CAP", "Refusal", "Ship",
           "Tile", "hull_at", "step"]
