"""Embedded (online) tactical battles: from a ``Battle`` row to the engine's state and back.

A battle's ``setup`` (written by tactical/battles/lifecycle.py) gives the fleets, the hex's terrain and
its world; ``initial_state`` deploys them with the campaign's dice. Every card drawn and every
action taken is a ``BattleStep`` row; every die rolled is in the campaign's dice log under the
phase ``battle <id>``. ``current_state`` rebuilds the battle by replaying the steps with those
logged dice (``tactical.rules.replay.ReplayDice``, which refuses any mismatch), and ``states``
gives the state after every step for the replay page. Rulings TP1… in docs/rulings.md.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from campaign.adapters import design_from_spec
from campaign.rules.dice import Dice
from campaign.rules.eventhorizon.economy import Damage
from tactical.rules import eventhorizon as eh
from tactical.rules.eventhorizon import codec
from tactical.rules.eventhorizon.deploy import DEPLOY_RULE, zone
from tactical.rules.eventhorizon.geometry import FACING_NAMES
from tactical.rules.eventhorizon.state import BLACK_HOLE, PLANET, SUN, WORMHOLE
from tactical.rules.replay import LoggedDie, ReplayDice

DRAW = {"type": "draw"}
CLOUD_TERRAIN = "particle_cloud"
WORLD_PLANET_ID = "world"
_CACHE: OrderedDict = OrderedDict()
CACHE_SIZE = 32


class SetupError(ValueError):
    """The battle's setup JSON cannot be put on the table."""


def _seat_key(sides: Mapping, seat: int) -> Mapping:
    for key in (str(seat), seat):
        if key in sides:
            return sides[key]
    raise SetupError(f"the setup has no side for seat {seat}")


def campaign_ship(data: Mapping[str, Any]) -> eh.CampaignShip:
    try:
        design = design_from_spec(data["design"])
        damage = Damage.from_json(data.get("damage"))
        return eh.CampaignShip(id=int(data["id"]), design=design, damage=damage,
                               hero_crew=bool(data.get("hero_crew", False)), name=str(data.get("name") or ""))
    except (KeyError, TypeError, ValueError) as exc:
        raise SetupError(f"ship {data.get('id', '?')} of the setup cannot be read: {exc}") from exc


def sides_of(setup: Mapping[str, Any]) -> tuple[int, int]:
    """The engine's side order (ruling TP1): the attacker (the invader, red) first."""
    return int(setup["attacker"]), int(setup["defender"])


def initial_state(setup: Mapping[str, Any], dice: Dice) -> eh.BattleState:
    """Deploy the setup's fleets (003 AEWA: the invader deploys first when the defender has one)
    on a table for the hex (ruling TC26) and shuffle the deck with ``dice``."""
    attacker, defender = sides_of(setup)
    sides = setup.get("sides") or {}
    fleets = {seat: [campaign_ship(s) for s in _seat_key(sides, seat).get("ships", [])]
              for seat in (attacker, defender)}
    world = setup.get("world")
    field = eh.battlefield_for_world(planet=bool(world), cloud=setup.get("terrain") == CLOUD_TERRAIN)
    planets = ()
    if world:
        mid = field.width // 2
        owner = world.get("owner")
        planets = (eh.Planet(id=WORLD_PLANET_ID, squares=((mid, mid),), owner=None if owner is None else int(owner),
                             defences=bool(world.get("defences"))),)
    return eh.deploy(fleets, dice, invader=attacker, aewa=bool(setup.get("aewa")), battlefield=field,
                     planets=planets, placements=placements_of(setup))


# --- deployment by hand (Campaign.deployment "hand"; ruling TP8) ---------------------------------

AUTOMATIC = "auto"
BLOCKING = (SUN, BLACK_HOLE, WORMHOLE, PLANET)  # no ship deploys there (deploy._free)
DEPLOY_PREVIEW_SEED = b"sector-command deployment preview"  # never rolls for the battle itself


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


def placements_of(setup: Mapping[str, Any]) -> dict[int, list[eh.Placement]]:
    """The engine placements of the seats that placed their ships by hand."""
    out = {}
    for seat, given in deployed(setup).items():
        if isinstance(given, list):
            out[seat] = [eh.Placement(int(p["ship"]), (int(p["x"]), int(p["y"])), p["facing"]) for p in given]
    return out


def placement_json(raw) -> list[dict]:
    """A side's placements as sent by a page or the API: a list of {ship, x, y, facing}. Raises
    SetupError naming what is wrong."""
    if not isinstance(raw, list) or not raw:
        raise SetupError("placements must be a list of {ship, x, y, facing}, one per ship")
    out = []
    for i, p in enumerate(raw):
        if not isinstance(p, Mapping):
            raise SetupError(f"placement {i + 1} must be an object with ship, x, y and facing")
        try:
            ship, x, y = (int(p[k]) for k in ("ship", "x", "y"))
        except (KeyError, TypeError, ValueError):
            raise SetupError(f"placement {i + 1} needs whole numbers ship, x and y") from None
        facing = p.get("facing")
        if not isinstance(facing, str) or facing.upper() not in FACING_NAMES:
            raise SetupError(f"placement {i + 1}: the facing is one of {', '.join(FACING_NAMES)}, not {facing!r}")
        out.append({"ship": ship, "x": x, "y": y, "facing": facing.upper()})
    return out


def preview(setup: Mapping[str, Any]) -> eh.BattleState:
    """The table as it stands during deployment: every fleet that has deployed, in place; the
    others not yet on it. Built with dice of its own (the deck's order is not shown and not
    used), so looking at it rolls nothing for the battle."""
    from campaign.rules.dice import SeededDice

    state = initial_state(setup, SeededDice(DEPLOY_PREVIEW_SEED))
    done = set(deployed(setup))
    return replace(state, ships=tuple(s for s in state.ships if s.side in done))


def zone_of(setup: Mapping[str, Any], seat: int, state: eh.BattleState | None = None) -> list[tuple[int, int]]:
    """The squares where ``seat`` may place its ships (its deployment zone, anomalies and the
    squares already taken left out); ``state``: the setup's ``preview`` if already built."""
    state = state or preview(setup)
    index = list(sides_of(setup)).index(seat)
    taken = {s.pos for s in state.ships}
    return [c for c in zone(state.field, index)
            if c not in taken and state.field.terrain.get(c) not in BLOCKING]


def check_placements(setup: Mapping[str, Any], seat: int, placements) -> None:
    """Refuse (eh.IllegalActionError, with the rule) placements the table does not allow: a
    square outside the zone or taken, a ship missing or not the side's."""
    trial = {**setup, "placements": {**(setup.get("placements") or {}), str(seat): placements}}
    try:
        preview(trial)
    except ValueError as exc:  # a facing the engine does not know
        raise eh.IllegalActionError(DEPLOY_RULE, str(exc)) from None


def outcome_to_result(outcome: eh.BattleOutcome) -> dict[str, Any]:
    """The campaign-level result JSON handed to ``tactical.battles.lifecycle.record_result``."""
    ships = []
    for s in outcome.ships:
        ships.append({
            "ship": s.ship,
            "fate": s.fate,
            "damage": None if s.damage is None else s.damage.to_json(),
            "captured_by": s.captured_by,
        })
    return {"holder": outcome.holder, "ships": ships, "cards_drawn": outcome.cards_drawn, "capped": outcome.capped}


# --- replaying the steps -------------------------------------------------------------------

def step_to_engine(state: eh.BattleState, action_json: Mapping, dice: Dice) -> eh.Resolution:
    """Play one stored step: a card drawn or an action."""
    if action_json.get("type") == "draw":
        return eh.draw_card(state, dice)
    return eh.apply(state, codec.from_json(action_json), dice)


def logged_dice(battle) -> list[LoggedDie]:
    from campaign.models import DiceRoll

    rows = (DiceRoll.objects.filter(campaign_id=battle.campaign_id, phase=battle.dice_phase)
            .order_by("seq").values_list("expression", "purpose", "faces"))
    return [LoggedDie.from_log(e, p, f) for e, p, f in rows]


def _steps(battle) -> list[tuple[int, dict, object]]:
    return list(battle.steps.order_by("seq").values_list("id", "action", "created_at"))


def _key(battle, count: int, last) -> tuple:
    """(battle, its creation time, number of steps, the last step's id and time): a step rolled
    back with its transaction can never match a later one (its time differs)."""
    return (battle.pk, battle.created_at, count, (last[0], last[2]) if last else None)


def current_state(battle) -> eh.BattleState:
    """The battle now: its setup replayed through every stored step with its logged dice.
    Cached per process by (battle, number of steps) — states are frozen, so sharing is safe."""
    count = battle.steps.count()
    last = battle.steps.order_by("-seq").values_list("id", "action", "created_at").first()
    key = _key(battle, count, last)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    steps = _steps(battle)
    key = _key(battle, len(steps), steps[-1] if steps else None)
    dice = ReplayDice(logged_dice(battle))
    state = initial_state(battle.setup, dice)
    for _, action, _ in steps:
        state = step_to_engine(state, action, dice).state
    if battle.status == "playing":
        dice.finish()
    remember(key, state)
    return state


def remember(key: tuple, state: eh.BattleState) -> None:
    _CACHE[key] = state
    _CACHE.move_to_end(key)
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)


def cache_key_after(battle, last_step, count: int) -> tuple:
    """The cache key of the state after ``count`` steps, the last of them ``last_step``."""
    return (battle.pk, battle.created_at, count, (last_step.pk, last_step.created_at))


@dataclass(frozen=True)
class Frame:
    """One frame of the replay: the state after ``step`` (None: the set-up), the events that
    step logged and the dice it rolled."""

    index: int
    step: Any
    action: Mapping | None
    state: eh.BattleState
    events: tuple[eh.BattleEvent, ...]
    dice: tuple[LoggedDie, ...]


def states(battle, upto: int | None = None) -> list[Frame]:
    """The set-up and the state after each step (up to step ``upto``), with each step's events
    and dice, for the replay page."""
    rows = list(battle.steps.order_by("seq"))
    if upto is not None:
        rows = rows[:upto]
    dice = ReplayDice(logged_dice(battle))
    state = initial_state(battle.setup, dice)
    frames = [Frame(0, None, None, state, state.log, dice.served(0))]
    for i, row in enumerate(rows, 1):
        start = dice.position
        res = step_to_engine(state, row.action, dice)
        state = res.state
        frames.append(Frame(i, row, row.action, state, res.events, dice.served(start)))
    return frames


def visible_events(events, side: int | None):
    """The events one side may read (``side`` None: everything, for the moderator or after the
    battle)."""
    return [e for e in events if side is None or e.public or side in e.sides]


__all__ = ["DRAW", "Frame", "SetupError", "current_state", "initial_state", "outcome_to_result", "states",
           "visible_events", "campaign_ship", "sides_of", "logged_dice", "step_to_engine"]
