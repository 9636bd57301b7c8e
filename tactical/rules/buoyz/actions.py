"""The actions of a Buoyz 'N Da 'Hood battle (frozen values; see ``engine.apply``).

Rule book ``seeds/000_…`` 2.2. Each names the ship it is for; the engine refuses a ship that is
not the nominating side's, or one already nominated in this phase.
"""

from __future__ import annotations

from dataclasses import dataclass

# Special Actions (7.2) the engine resolves, with their Command Check.
SPECIAL_ACTIONS = {
    "red_alert": 4,
    "ecm": 5,
    "evasive": 5,
    "hard_about": 5,
    "self_destruct": 5,
    "flank_speed": 4,
    "maximum_warp": 3,
    "point_defence": 3,
    "ramming": 7,
    "attack_shields": 0,  # 7.3 Klingon Attack Shields: declared, no Command Check printed (ruling BZ30)
    "cloak_hunter": 3,
    "no_win": 6,  # 'I Don't Believe In The No Win Scenario…'
    "use_the_force": 6,  # 'Use The Force, Luke!': Superior crews only
    "engine_doubling": 0,  # 7.3 Orion / Pirate Engine Doubling (or one of a No Win Scenario's two)
    "saucer_separation": 0,  # 7.3 Federation Saucer Separation (declared, ruling BZ47)
    "hyperspace": 0,  # 11.8: after a successful Flank Speed, with the Hyperspace ability
    "land": 0,  # 7.3 Landing on a planet or moon within 1" (ruling BZ48)
    "take_off": 0,  # 7.3 taking off again from a planet or moon (ruling BZ48)
    "tractor_hold": 3,  # Tractor!: hold in place,
    "tractor_tow": 3,  # tow,
    "tractor_pull": 3,  # or pull ½" toward it, a smaller ship within 1"
    "cloak": 0,  # 10.2: "before a player moves his cloaked ships, he may choose to … cloak" (ruling BZ32)
    "decloak": 0,
}


@dataclass(frozen=True)
class Begin:
    """Roll the first turn's initiative (3.0); every later turn rolls it by itself after the
    End Phase."""


@dataclass(frozen=True)
class Special:
    """Nominate ``ship`` to move and attempt a Special Action first (7.1: "chosen and attempted
    before the ship begins to move"). Its Move must follow, unless the action took the ship away
    (Self-Destruct!, Ramming Speed!, Maximum Warp!). Maximum Warp! may follow a successful Flank
    Speed! of the same ship (7.2)."""

    ship: int
    action: str
    target: int | None = None  # Ramming Speed!'s enemy vessel, a Tractor!'s ship


@dataclass(frozen=True)
class Move:
    """Nominate (if not yet) and move ``ship`` (4.1): ``before`` inches ahead, a turn of ``turn``
    points (negative: to port) on Template 2, then ``after`` inches. An Agile ship (7.3) turns
    ``turn`` at the very start (``before`` must be 0) and ``turn_end`` at the very end; any other
    ship leaves ``turn_end`` 0. ``lower_shields`` lowers its shields until the End Phase (2.2)."""

    ship: int
    before: float = 0.0
    turn: int = 0
    after: float = 0.0
    turn_end: int = 0
    lower_shields: bool = False
    lay_mine: bool = False  # 5.10: lay one notional mine behind it as it moves (or a Pursuit Mine, 7.3)
    sweep: bool = False  # 5.10: a Minesweeper moving 2" or less sweeps the minefields it passes through
    # 9.0: the planet or moon (Celestial id) within 1" it orbits: 1/2" around it, no other move
    orbit: int | None = None
    web: bool = False  # 7.3 Tholian Web: spin a web from this ship's end position to a web-laying ship of its side


@dataclass(frozen=True)
class Fire:
    """Nominate ``ship`` to fire (5.3): ``shots`` are ``(weapon key, target id, dice)``; a main
    weapon system or torpedo fires whole at one target, the secondary battery may split its dice
    (5.2). Empty ``shots``: nominated and does nothing (2.1: it waives its fire). ``board``
    names an enemy ship within ½" to board by transporter (7.3 Transporters, 11.4), resolved in
    the End Phase (ruling BZ38)."""

    ship: int
    shots: tuple[tuple[str, int, int], ...] = ()
    board: int | None = None


@dataclass(frozen=True)
class Detect:
    """10.3: a ship that chose Cloak Hunter! and moved no more than 4\" rolls to detect cloaked
    enemies within 2\" before it declares its attacks; its Fire follows (a failure ends its
    attacks for the turn)."""

    ship: int


@dataclass(frozen=True)
class FlyAC:
    """Move AC counter ``flight`` (4.2) in any direction to ``to`` (at most 5\", 8\" or 10\" by
    its dogfight value), declaring ``attack``: an enemy ship for a bomber's or shuttle's
    torpedo run, an enemy flight for a fighter's dogfight (8.4, 8.6; ruling BZ35)."""

    flight: int
    to: tuple[float, float]
    attack: int | None = None
    cap: bool = False  # a fighter flies Combat Air Patrol from ``to`` (4.2, 8.6)
    loiter: bool = False  # 8.2: a shuttle loiters over the table as a patrol counter (3.0); it never attacks again
    home: bool = False  # 8.3: an off-table base's flight leaves by its side's edge to rearm (``to`` is where)


@dataclass(frozen=True)
class Reveal:
    """10.2: reveal a lurking ship at the start of a Movement Phase (ruling BZ53: when its side
    nominates it to move), placing it anywhere in its 2' square zone, ``heading`` as given; it
    is cloaked, and must then move (its Special Action may come first)."""

    ship: int
    at: tuple[float, float]
    heading: float = 0.0


@dataclass(frozen=True)
class Lurk:
    """10.2 / 11.8: nominated to move, ``ship`` stays lurking unseen in its zone this turn, or,
    in hyperspace, lurks stationary there instead of dropping out (ruling BZ53, BZ55)."""

    ship: int


Action = Begin | Special | Move | Fire | Detect | FlyAC | Reveal | Lurk


def named_ships(action: Action) -> set[int]:
    """The ships ``action`` names as its targets (a Special Action's, a shot's, a boarding's, an
    AC flight's attack): online play refuses a target a side cannot see exactly as one that is
    not in the battle (ruling BZP2)."""
    out = {getattr(action, name, None) for name in ("target", "attack", "board")}
    if isinstance(action, Fire):
        out |= {shot[1] for shot in action.shots if isinstance(shot, (tuple, list)) and len(shot) > 1}
    return {i for i in out if isinstance(i, int) and not isinstance(i, bool)}
