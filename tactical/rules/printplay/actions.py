"""One frozen dataclass per action a side may take (001 Turns Sequence, Activation)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Activate:
    """The drawn side picks one of its ships not yet activated (001 Initiative)."""
    ship: int


@dataclass(frozen=True)
class Boost:
    """001 Action: power transferred (4 shields = 1 weapon point), or emergency power spent at 50%
    hull (001 Dashboards). ``source``/``target``: a shield side, "wps", "sensors", "ecm";
    ``source`` may be "emergency"."""
    ship: int
    source: str
    target: str


@dataclass(frozen=True)
class Cloak:
    """001 Cloaking Device, as the action; ``on=False`` drops the cloak (ruling PP9)."""
    ship: int
    on: bool = True


@dataclass(frozen=True)
class Regenerate:
    """001 Regenerate: 1D6 hull as the action."""
    ship: int


@dataclass(frozen=True)
class Special:
    """001 Special Orders given in place of the action (an "A" order)."""
    ship: int
    order: str


@dataclass(frozen=True)
class Hold:
    """No action (``stage="action"``) or no attack (``stage="attack"``)."""
    ship: int
    stage: str


@dataclass(frozen=True)
class Move:
    """001 Movement: turn ``turn1``°, go ``go1``", turn ``turn2``°, go ``go2``", turn ``turn3``°
    (negative: to port); a cloaked ship then slides ``slide_x``/``slide_y``" along the mat;
    ``order``: an "M" special order."""
    ship: int
    go1: int
    turn1: int = 0
    turn2: int = 0
    go2: int = 0
    turn3: int = 0
    slide_x: int = 0
    slide_y: int = 0
    order: str = ""


@dataclass(frozen=True)
class Attack:
    """001 Attack: ``shots`` are (mount, target ship, side of the target: "fore", …) ;
    ``order``: an "ATT" special order."""
    ship: int
    shots: tuple[tuple[int, int, str], ...]
    order: str = ""


ACTIONS = (Activate, Boost, Cloak, Regenerate, Special, Hold, Move, Attack)

__all__ = ["ACTIONS", "Activate", "Attack", "Boost", "Cloak", "Hold", "Move", "Regenerate", "Special"]
