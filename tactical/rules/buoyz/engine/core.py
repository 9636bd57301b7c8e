"""The values of a ship the whole turn reads (rule book ``seeds/000_…``): its move (4.1, 5.7,
5.8), Turning, shields (1.5, 5.6), weapon systems and their attack dice (5.5), squadrons (11.1),
what it may fire at (5.4, 10.2); and the ``Resolution`` and dice-and-log context every phase
resolves with.
"""

from __future__ import annotations

from campaign.rules.dice import Dice
from tactical.rules import kit
from tactical.rules.kit import Resolution  # the kit's (state, events), the engine's Resolution

from ..geometry import ARCS, arcs_of, distance, halve, inches, round_half_up
from ..sds import SECONDARY, WeaponSystem, has, weapon_systems
from ..state import ARMAMENT, LURKING, MOTIVE, SHIELDS, BattleState, Event, Ship

# The data keys that name a ship an event is about (besides ``about=``): fog of war (10.2, 10.3).
ABOUT_KEYS = ("ship", "shooter", "target", "boarder", "towed")


class _Ctx(kit.EventLog):
    """A step's dice and events as it resolves: the kit's ``EventLog`` with the step's dice. Each
    event is logged with the ships it is about (``about=`` and the ship ids under ``ABOUT_KEYS``
    in its data); ``tagged`` sets its fog-of-war tags from them when the step is done, and
    ``resolution(state)`` is the step's kit ``Resolution`` with the tagged events."""

    def __init__(self, dice: Dice):
        super().__init__()
        self.dice = dice
        self.about: list[frozenset[int]] = []

    def roll(self, count: int, purpose: str) -> tuple[int, ...]:
        """``count`` d6 (the book's only die), through the kit; none for a count of 0 or less."""
        if count <= 0:
            return ()
        return kit.d6(self.dice, purpose, count)

    def log(self, event_kind: str, text: str, *, about: tuple[int, ...] = (), **data) -> None:
        self.note(event_kind, text, data, about)

    def note(self, event_kind: str, text: str, data: dict, about: tuple[int, ...] = ()) -> None:
        """An event with its data as a dict (the CAM layer's events), about ``about`` and the
        ships its data names."""
        self.events.append(Event(event_kind, text, data))
        self.about.append(frozenset(about) | {data[k] for k in ABOUT_KEYS if isinstance(data.get(k), int)})

    def add(self, kind: str, text: str, sides: tuple[int, ...] = (), public: bool = True, **data) -> None:
        """The kit's ``EventLog.add`` (tags given here are kept unless the ship is hidden)."""
        super().add(kind, text, sides, public, **data)
        self.about.append(frozenset(data[k] for k in ABOUT_KEYS if isinstance(data.get(k), int)))

    def resolution(self, state: BattleState) -> Resolution:
        return Resolution(state, self.tagged(state))

    def tagged(self, after: BattleState) -> tuple[Event, ...]:
        """The step's events with their fog-of-war tags (10.2, 10.3; rulings BZP1, BZP2): one
        about a ship still lurking, or cloaked and not detected, once the step is done is that
        ship's side's only; every other is public. Declaring a cloak is seen by every side (its
        counter leaves the table); where the ship goes then is not."""
        hidden = {s.id: s.side for s in after.ships if hidden_ship(s) and after.enemies(s.side)}
        if not hidden:
            return tuple(self.events)
        out = []
        for e, about in zip(self.events, self.about, strict=True):
            owners = {hidden[i] for i in about if i in hidden}
            if owners and not (e.kind == "special" and e.data.get("action") == "cloak"):
                e = Event(e.kind, e.text, e.data, tuple(sorted(owners)), False)
            out.append(e)
        return tuple(out)


def hidden_ship(ship: Ship) -> bool:
    """Whether an enemy may not see ``ship``: lurking, or cloaked and not detected (10.2, 10.3)."""
    return ship.status == LURKING or (ship.cloaked and not ship.detected)


def base_speed(ship: Ship) -> float:
    """The SD's Speed, halved when Crippled (5.7 (1)) and once per Critical Motive (5.8 (2));
    kept in exact inches (ruling BZ5). A station or base (Speed N/A) has none."""
    v = float(ship.sd.speed or 0)
    return v / (2 ** (int(ship.crippled) + ship.crit(MOTIVE) + int(ship.burnt)))


def dead_in_space(ship: Ship) -> bool:
    """4.1 "If its move is reduced below 1\", it is considered to be (effectively) dead in space"."""
    return ship.sd.speed is not None and base_speed(ship) < 1.0


def allowance(ship: Ship) -> float:
    """The most a ship may move this turn (4.1, 7.2 Flank Speed, 7.3 Impulse / Warp)."""
    if ship.sd.speed is None or dead_in_space(ship):
        return 0.0
    if ship.hyperspace:
        return HYPER_MOVE  # 11.8 "Ships in hyperspace may move up to 24\""
    v = base_speed(ship)
    if ship.uses("flank_speed"):
        v = v + max(1.0, v / 2)
    elif has(ship.abilities, "Impulse") and not (has(ship.abilities, "Warp") or has(ship.abilities, "Hyperspace")):
        v = min(v, IMPULSE_LIMIT)  # ruling BZ16: an SD listing neither moves at its Speed
    if ship.uses("engine_doubling"):
        v *= 2  # 7.3 Orion engine doubling: double the move for a turn
    return v / 2 if ship.cloaked else v  # 10.2 a) "up to half their current maximum speed"


def turning(ship: Ship) -> int:
    """Turning points (4.1): +2 for Hard About (7.2); a Crippled ship turns one point at most
    (5.7 (1); ruling BZ11: the cap applies after Hard About)."""
    t = ship.sd.turning or 0
    if ship.uses("hard_about"):
        t += 2
    if ship.crippled:
        t = min(t, 1)
    return t


def agile(ship: Ship) -> bool:
    return has(ship.abilities, "Agile") or ship.sd.ship_class.value == "RB"  # 4.2 sidebar: patrol craft


def shields_facing(ship: Ship, from_pos, drained: bool = False) -> int:
    """The target's current shields toward ``from_pos`` (1.5, 5.6): the facing's value (the
    better one on an arc boundary, ruling BZ2), 0 while lowered, halved when Crippled (5.7 (4)),
    per Critical Shields (5.8 (3)) and by a Borg Shield Drain (7.3)."""
    if ship.shields_lowered or ship.cloaked:  # 10.2 b) a cloaked vessel deploys no shields
        return 0
    facings = arcs_of(ship.pos, ship.heading, from_pos)
    shields = ship.sd.shields
    if ship.uses("attack_shields"):  # 7.3: +1 fore, port, starboard; -2 aft, this turn
        shields = (shields[0] + 1, shields[1] + 1, shields[2] + 1, max(0, shields[3] - 2))
    value = max(shields[ARCS.index(a)] for a in facings)
    return halve(value, int(ship.crippled) + ship.crit(SHIELDS) + int(drained))


def systems(ship: Ship) -> tuple[WeaponSystem, ...]:
    return weapon_systems(ship.sd)


def system_dice(ship: Ship, system: WeaponSystem) -> int:
    """Attack dice now (5.5): halved when Crippled (5.7 (2)) and per Critical Armament (5.8 (1));
    0 once a one-shot weapon is spent (7.3)."""
    if system.key in ship.spent or (system.group == SECONDARY and ship.uses("point_defence")):
        return 0  # spent one-shot (7.3), or secondaries on Point Defence (7.2: "don't otherwise fire")
    dice = halve(system.dice, int(ship.crippled) + ship.crit(ARMAMENT))
    return dice * 2 if ship.uses("engine_doubling") else dice  # 7.3: and fire dice, for a turn


def close_defence(ship: Ship) -> int:
    return halve(ship.sd.close_defence, int(ship.crippled) + ship.crit(ARMAMENT))


SQUADRON_RULE = "000 11.1 Squadrons"
FORMATION = 3  # 11.1 "within 3\" of at least one other ship in the squadron"


def command_of(state: BattleState, ship: Ship) -> int:
    return command(state, ship)


def squadron(state: BattleState, ship: Ship) -> tuple[Ship, ...]:
    """The ship's squadron as it stands (11.1): its active members that are not Crippled (a
    Crippled ship drops out); empty if it is in none, or has dropped out."""
    if not ship.active or ship.crippled:
        return ()
    for members in state.orders_of(ship.side).squadrons:
        if ship.id in members:
            return tuple(s for s in state.ships if s.id in members and s.active and not s.crippled)
    return ()


def command(state: BattleState, ship: Ship) -> int:
    """11.1: ships use the highest Command score of all ships within the squadron."""
    return max((s.sd.command for s in squadron(state, ship)), default=ship.sd.command)


def formation_problem(state: BattleState, ship: Ship, end) -> str | None:
    """11.1 (ruling BZ51): a member ends its move within 3\" of a member that has already moved
    this turn, or at least no farther from the nearest of them than it started (the first to
    move leads)."""
    mates = [s for s in squadron(state, ship) if s.id != ship.id and s.moved]
    if not mates:
        return None
    near_end = min(distance(end, m.pos) for m in mates)
    if round_half_up(round(near_end, 4)) <= FORMATION:
        return None
    if near_end <= min(distance(ship.pos, m.pos) for m in mates) + 1e-6:
        return None
    return (f'a squadron keeps within 3" of each other: {ship.name} ({ship.id}) would end {near_end:.1f}" '
            'from the nearest')


def fires_cloaked(ship: Ship) -> bool:
    """7.3 Klingon Cloaked Firing: 'Superior' Size Class 5 Birds of Prey with the ability."""
    return has(ship.abilities, "Fire cloaked") and ship.sd.command >= 3 and ship.sd.target_size == 5


_SILENT = ("ecm", "cloak", "decloak")


def can_fire(ship: Ship) -> bool:
    """Ruling BZ10: a ship with nothing it could fire (under ECM, 7.2; cloaked, or having cloaked
    or uncloaked this turn, 10.2) is passed over."""
    if not ship.active or ship.fired or ship.sweeping or ship.tractor is not None or ship.hyperspace:
        return False
    if ship.special in _SILENT or (ship.extra_specials and any(ship.uses(x) for x in _SILENT)):
        return False
    if ship.cloaked and not fires_cloaked(ship):
        return False
    return any(system_dice(ship, s) > 0 for s in systems(ship))


def eligible(state: BattleState, ship: Ship, system: WeaponSystem, target: Ship) -> bool:
    """5.4: in the weapon's arc and within its range (rounded, ruling BZ1); every ship is located
    (9.1: 40\" sensor range) unless cloaked and not detected (10.2, 10.3)."""
    if not target.active or target.side == ship.side or target.uses("ecm"):
        return False
    if target.cloaked and not target.detected:
        return False
    if target.hyperspace:  # 11.8 "No combat is possible in hyperspace"
        return False
    if inches(ship.pos, target.pos) > system.range:
        return False
    if not located(state, ship, target):
        return False
    return bool(arcs_of(ship.pos, ship.heading, target.pos) & system.arcs)


IMPULSE_LIMIT = 2.0  # 7.3 Impulse "may not move more than 2\" a turn"


# The other phases of the turn, imported last: the phases call one another (the sequence
# calls each phase; a phase hands the turn back to the sequence), and by now every name
# of this module is defined for them.
from .specials import HYPER_MOVE  # noqa: E402
from .terrain import located  # noqa: E402
