"""Setting up a tactical battle from campaign fleets, with the AEWA deployment rule.

Rule book ``seeds/003_…``: "Table" (3" squares, a 4ft × 4ft table: 16 × 16), "Use of BP in a
Campaign: Advanced Early Warning Array" ("the invading player must deploy all his vessels on the
tabletop before you do"), "Result of a Tactical Battle". Rulings TC24–TC26 in docs/rulings.md.

A campaign ship becomes a tactical ship through its ``Design`` (designs.py), the ``Damage`` it
carries (economy.py) and its hero crew; ``engine.outcome`` gives the damage to carry back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from campaign.rules.dice import Dice
from campaign.rules.eventhorizon.designs import Design, validate_design
from campaign.rules.eventhorizon.economy import NO_DAMAGE, Damage, _check_damage

from .cards import full_deck, shuffle
from .geometry import AFT, FORWARD, PORT, STARBOARD, Coord, E, N, S, W, distance, parse_facing
from .state import (
    BLACK_HOLE,
    PLANET,
    SUN,
    WORMHOLE,
    Battlefield,
    BattleState,
    IllegalActionError,
    Planet,
    TacticalShip,
    ship_from_design,
)

DEPLOY_RULE = "003 Use of BP in a Campaign: Advanced Early Warning Array"
TABLE_RULE = "003 Table"
DEFAULT_CARD_CAP = 540  # ruling TC23: ten decks
ZONE_DEPTH = 2
# Ruling TC25: lost force field generators carried from the campaign are the aft one first,
# then port, starboard and forward.
GENERATOR_LOSS_ORDER = (AFT, PORT, STARBOARD, FORWARD)


@dataclass(frozen=True)
class CampaignShip:
    """A campaign ship entering battle: its id, design, carried damage and hero crew."""

    id: int
    design: Design
    damage: Damage = NO_DAMAGE
    hero_crew: bool = False
    name: str = ""


@dataclass(frozen=True)
class Placement:
    """A side's own placement of one ship (square and facing), inside its deployment zone."""

    ship: int
    pos: Coord
    facing: int | str


def tactical_ship(ship: CampaignShip, side: int, pos: Coord, facing: int) -> TacticalShip:
    """The campaign ship on the table, its carried damage applied."""
    validate_design(ship.design)
    _check_damage(ship.design, ship.damage)
    t = ship_from_design(ship.id, side, ship.design, pos, facing, hero_crew=ship.hero_crew, name=ship.name)
    d = ship.damage
    if not d.any:
        return t
    weapons = list(t.weapons)
    for key in d.weapons:
        weapons.remove(key)
    gens = list(t.generators)
    fields = list(t.force_fields)
    for arc in GENERATOR_LOSS_ORDER[: d.force_field_generators]:
        gens[arc] = False
        fields[arc] = 0
    return replace(t, hull=t.hull - d.hull, movement=t.movement - d.engine, weapons=tuple(weapons),
                   weapons_lost=tuple(d.weapons), generators=tuple(gens), force_fields=tuple(fields),
                   stealth_operable=t.stealth_operable and not d.stealth,
                   boarding_parties=t.boarding_parties - d.boarding_parties, parties_lost=d.boarding_parties)


# Deployment zones (ruling TC24): side 0 along the top edge facing south, side 1 along the
# bottom facing north, side 2 the left edge facing east, side 3 the right edge facing west.
_EDGE_FACING = (S, N, E, W)


def zone(battlefield: Battlefield, index: int, depth: int = ZONE_DEPTH) -> list[Coord]:
    """The squares of deployment zone ``index``, front row (nearest the enemy) first, each row
    from the middle of the edge outwards."""
    w, h = battlefield.width, battlefield.height
    rows: list[list[Coord]] = []
    for k in range(depth - 1, -1, -1):
        if index == 0:
            row = [(x, k) for x in range(w)]
        elif index == 1:
            row = [(x, h - 1 - k) for x in range(w)]
        elif index == 2:
            row = [(k, y) for y in range(h)]
        else:
            row = [(w - 1 - k, y) for y in range(h)]
        rows.append(row)
    return [c for row in rows for c in row]


def _free(battlefield: Battlefield, c: Coord, taken: set[Coord]) -> bool:
    return c not in taken and battlefield.terrain.get(c) not in (SUN, BLACK_HOLE, WORMHOLE, PLANET)


def _auto_place(battlefield: Battlefield, index: int, ships: Sequence[CampaignShip], taken: set[Coord],
                centre: float | None) -> list[tuple[CampaignShip, Coord]]:
    """Place ships in the zone, front row first, nearest ``centre`` (the column/row the line is
    centred on) first; the zone deepens if it is full."""
    along = 0 if index in (0, 1) else 1
    size = battlefield.width if along == 0 else battlefield.height
    mid = (size - 1) / 2 if centre is None else centre
    depth = ZONE_DEPTH
    while True:
        squares = zone(battlefield, index, depth)
        front = [c for c in squares]
        free = [c for c in front if _free(battlefield, c, taken)]
        if len(free) >= len(ships) or depth >= (battlefield.height if along == 0 else battlefield.width) // 2:
            break
        depth += 1
    rank = {c: i for i, c in enumerate(squares)}
    row_of = {c: rank[c] // size for c in squares}
    free.sort(key=lambda c: (row_of[c], abs(c[along] - mid), c[along]))
    if len(free) < len(ships):
        raise IllegalActionError(TABLE_RULE, f"no room to deploy {len(ships)} ships in deployment zone {index}")
    out = []
    for ship, c in zip(sorted(ships, key=lambda s: s.id), free):
        taken.add(c)
        out.append((ship, c))
    return out


def deploy(
    fleets: Mapping[int, Sequence[CampaignShip]],
    dice: Dice,
    *,
    invader: int | None = None,
    aewa: bool = False,
    battlefield: Battlefield | None = None,
    planets: Sequence[Planet] = (),
    placements: Mapping[int, Sequence[Placement]] | None = None,
    card_cap: int = DEFAULT_CARD_CAP,
) -> BattleState:
    """Put the fleets on the table and shuffle the deck.

    ``fleets`` maps each side (a campaign seat) to its ships, in card order: with two fleets the
    first is red. Deployment (ruling TC24): without an AEWA the defenders deploy first and the
    invader, having seen them, centres its line on theirs; with an AEWA in the hex ("the invading
    player must deploy all his vessels on the tabletop before you do") the invader deploys first
    and the defenders centre on it. A side's own ``placements`` (every ship, inside its zone)
    replace its automatic line.
    """
    sides = tuple(fleets)
    if not 2 <= len(sides) <= 4:
        raise IllegalActionError(TABLE_RULE, f"a battle needs 2 to 4 fleets, not {len(sides)}")
    if aewa and invader is None:
        raise IllegalActionError(DEPLOY_RULE, "an AEWA needs to know the invading side")
    if invader is not None and invader not in fleets:
        raise IllegalActionError(DEPLOY_RULE, f"the invader {invader} has no fleet in this battle")
    ids = [s.id for ships in fleets.values() for s in ships]
    if len(ids) != len(set(ids)):
        raise IllegalActionError(TABLE_RULE, "ship ids must be unique across the fleets")
    if isinstance(card_cap, bool) or not isinstance(card_cap, int) or card_cap < 1:
        raise IllegalActionError(CAP_RULE_TEXT, f"the card cap must be a whole number of at least 1, not {card_cap!r}")
    battlefield = battlefield or Battlefield()
    for p in planets:
        for sq in p.squares:
            if battlefield.terrain.get(sq) != PLANET:
                raise IllegalActionError("003 Spatial Anomalies", f"planet {p.id}'s square {sq} is not a planet square")
    placements = placements or {}
    defenders = [s for s in sides if s != invader]
    order = ([invader] + defenders) if (aewa and invader is not None) else (
        defenders + ([invader] if invader is not None else []))
    taken: set[Coord] = set()
    placed: dict[int, list[tuple[CampaignShip, Coord, int]]] = {}
    for side in order:
        index = sides.index(side)
        facing = _EDGE_FACING[index]
        ships = list(fleets[side])
        if side in placements:
            placed[side] = _own_placement(battlefield, index, side, ships, placements[side], taken)
            continue
        centre = None
        if placed:  # deploying later: line up on the centre of the ships already on the table
            along = 0 if index in (0, 1) else 1
            coords = [c[along] for done in placed.values() for _, c, _ in done]
            centre = sum(coords) / len(coords)
        placed[side] = [(s, c, facing) for s, c in _auto_place(battlefield, index, ships, taken, centre)]
    ships_out = []
    for side in sides:
        for ship, c, facing in placed[side]:
            ships_out.append(tactical_ship(ship, side, c, facing))
    ships_out.sort(key=lambda s: s.id)
    deck = shuffle(full_deck(), dice)
    return BattleState(field=battlefield, sides=sides, ships=tuple(ships_out), deck=deck, planets=tuple(planets),
                       card_cap=card_cap)


CAP_RULE_TEXT = "site ruling TC23 (card cap)"


def _own_placement(battlefield: Battlefield, index: int, side: int, ships: list[CampaignShip],
                   given: Sequence[Placement], taken: set[Coord]) -> list[tuple[CampaignShip, Coord, int]]:
    by_id = {s.id: s for s in ships}
    allowed = set(zone(battlefield, index))
    out = []
    for p in given:
        if p.ship not in by_id:
            raise IllegalActionError(DEPLOY_RULE, f"ship {p.ship} is not in side {side}'s fleet")
        c = (int(p.pos[0]), int(p.pos[1]))
        if c not in allowed:
            raise IllegalActionError(DEPLOY_RULE, f"ship {p.ship} at {c} is outside side {side}'s deployment zone")
        if not _free(battlefield, c, taken):
            raise IllegalActionError(DEPLOY_RULE, f"ship {p.ship} cannot deploy at {c}: occupied or an anomaly")
        taken.add(c)
        out.append((by_id.pop(p.ship), c, parse_facing(p.facing)))
    if by_id:
        raise IllegalActionError(DEPLOY_RULE, f"side {side}'s placement leaves ship(s) {sorted(by_id)} unplaced")
    return out


def battlefield_for_world(size: int = 16, planet: bool = True, cloud: bool = False) -> Battlefield:
    """Ruling TC26: a battle in a campaign hex with a planet or colony has it as one planet
    square at the middle of the table; a particle-cloud hex scatters cloud squares across the
    middle rows (every third square)."""
    terrain = {}
    mid = size // 2
    if cloud:
        for y in range(mid - 2, mid + 2):
            for x in range((y % 3), size, 3):
                terrain[(x, y)] = "cloud"
    if planet:
        terrain[(mid, mid)] = PLANET
    return Battlefield(size, size, terrain)


__all__ = ["CampaignShip", "Placement", "deploy", "tactical_ship", "zone", "battlefield_for_world", "distance"]
