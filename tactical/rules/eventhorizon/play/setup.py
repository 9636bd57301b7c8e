"""The setup of an Event Horizon battle played online: the fleets, the hex's terrain and its world
(written by tactical/hosts/eventhorizon/lifecycle.py), deployed by ``initial_state`` with the battle's dice; and
deployment by hand (``Campaign.deployment`` "hand", ruling TP8): the order the sides deploy in, their
placements checked against their zones (``check_placements``), and the table previewed with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from campaign.rules.dice import SeededDice
from campaign.rules.eventhorizon.designs import Design as DesignSpec
from campaign.rules.eventhorizon.economy import Damage
from tactical.rules.play import whole_number

from ..deploy import DEPLOY_RULE, CampaignShip, Placement, battlefield_for_world, deploy, zone
from ..geometry import FACING_NAMES
from ..state import BLACK_HOLE, PLANET, SUN, WORMHOLE, BattleState, IllegalActionError, Planet

CLOUD_TERRAIN = "particle_cloud"
WORLD_PLANET_ID = "world"
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
