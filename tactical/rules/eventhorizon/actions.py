"""The actions a side may take in a tactical battle (frozen values; see engine.apply).

Rule book ``seeds/003_…``, "The Turn Sequence" (the list of things an activated ship can do).
Every action names the ship it is for, so a ship not the acting side's is refused by name.
"""

from __future__ import annotations

from dataclasses import dataclass

# Kinds, in the rule book's order; an activation takes them in this order (ruling TC4).
RESTORE_POWER = "restore_power"
REGENERATE = "regenerate"
SCAN = "scan"
MOVE = "move"  # normal movement, or instead: warp out, land, launch
FIRE = "fire"
TELEPORT = "teleport"
ENGAGE_STEALTH = "engage_stealth"
DISENGAGE_STEALTH = "disengage_stealth"
KIND_ORDER = {RESTORE_POWER: 0, REGENERATE: 1, SCAN: 2, MOVE: 3, FIRE: 4, TELEPORT: 5}
ACTIONS_PER_ACTIVATION = 3


@dataclass(frozen=True)
class Activate:
    """Activate ``ship`` for the drawn card; ``evasive`` True/False declares or stops evasive
    manoeuvres ("must be declared immediately upon the activation"), None keeps it as it is."""

    ship: int
    evasive: bool | None = None


@dataclass(frozen=True)
class RestorePower:
    ship: int
    kind = RESTORE_POWER


@dataclass(frozen=True)
class Regenerate:
    ship: int
    kind = REGENERATE


@dataclass(frozen=True)
class Scan:
    ship: int
    target: int
    kind = SCAN


@dataclass(frozen=True)
class Move:
    """Move along ``path``: ``F`` (forward), ``FL``/``FR`` (diagonally forward to port/
    starboard), ``L``/``R`` (turn 90 degrees). ``into_black_hole`` must be set to enter a black
    hole (the ship is pulled in); without it such a path is refused (ruling TC11)."""

    ship: int
    path: tuple[str, ...]
    into_black_hole: bool = False
    kind = MOVE


@dataclass(frozen=True)
class WarpOut:
    ship: int
    kind = MOVE


@dataclass(frozen=True)
class Land:
    ship: int
    kind = MOVE


@dataclass(frozen=True)
class Launch:
    ship: int
    kind = MOVE


@dataclass(frozen=True)
class Fire:
    """Lock on and fire: ``shots`` is ``((weapon key, target), …)``, one entry per weapon system
    (split between targets at will). A target is a ship id, or a planet id (a string) for the
    planetary bombardment array."""

    ship: int
    shots: tuple[tuple[str, int | str], ...]
    kind = FIRE


@dataclass(frozen=True)
class Teleport:
    ship: int
    target: int
    kind = TELEPORT


@dataclass(frozen=True)
class EngageStealth:
    ship: int
    kind = ENGAGE_STEALTH


@dataclass(frozen=True)
class DisengageStealth:
    ship: int
    kind = DISENGAGE_STEALTH


@dataclass(frozen=True)
class EndActivation:
    """End the activation (an ongoing boarding action is resolved first: it is compulsory)."""

    ship: int


@dataclass(frozen=True)
class Pass:
    """The acting side activates no (more) ships for this card."""

    side: int


Action = (Activate | RestorePower | Regenerate | Scan | Move | WarpOut | Land | Launch | Fire | Teleport
          | EngageStealth | DisengageStealth | EndActivation | Pass)
