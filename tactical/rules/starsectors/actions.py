"""Star Sectors actions: one frozen dataclass per thing a side may order (004 III–VIII).

Every action names the ``ship`` whose turn it is (its side's first action of a turn names the
ship that takes it, ruling SS1). Tactical phase: ``Crew`` (the command crew's order, first),
``Move``, ``Warp``, ``Transfer``, ``Boost`` (dilithium/trilithium), ``Decloak``, ``Attack``,
``AttackMine``, ``LayMine``, ``SelfDestruct``, ``Ram``; engineering phase: ``Engineer`` (one
duty or resource use) and ``EndTurn``; before a ship's turn, ``Withdraw`` (the whole side leaves,
ruling SS24).
"""

from __future__ import annotations

from dataclasses import dataclass

CREW_OPTIONS = ("command", "helm", "engineering", "science", "tactical")  # VII.B
MOVES = ("forward", "reverse", "port", "starboard")  # IV.A
TRANSFERS = ("cf", "df", "mf", "repair")  # IV.C
BOOSTS = ("dilithium:mf", "trilithium:cf", "trilithium:df")  # VII.B (tactical uses)
TASKS = ("repair", "charge_warp", "charge_bank", "cloak",  # V.A duties (one per engineering phase)
         "bank_repair", "warp_repair", "dilithium_repair", "dilithium_charge", "trilithium_charge",  # V.A
         "mine_resource", "station_repair", "station_dilithium", "station_trilithium")  # V.B


@dataclass(frozen=True)
class Crew:
    ship: int
    option: str


@dataclass(frozen=True)
class Move:
    ship: int
    kind: str


@dataclass(frozen=True)
class Warp:
    ship: int
    hexes: int
    reverse: bool = False


@dataclass(frozen=True)
class Transfer:
    ship: int
    boost: str


@dataclass(frozen=True)
class Boost:
    ship: int
    use: str


@dataclass(frozen=True)
class Decloak:
    ship: int


@dataclass(frozen=True)
class Attack:
    ship: int
    target: int
    roll: bool = True
    banks: tuple[int, ...] = ()


@dataclass(frozen=True)
class AttackMine:
    ship: int
    mine: int


@dataclass(frozen=True)
class LayMine:
    ship: int


@dataclass(frozen=True)
class SelfDestruct:
    ship: int


@dataclass(frozen=True)
class Ram:
    ship: int
    target: int


@dataclass(frozen=True)
class Withdraw:
    """The side withdraws its whole fleet from the battle (ruling SS24), before ``ship`` (one of
    its ships still to take its turn) begins one."""

    ship: int


@dataclass(frozen=True)
class Engineer:
    ship: int
    task: str


@dataclass(frozen=True)
class EndTurn:
    ship: int


Action = (
    Crew
    | Move
    | Warp
    | Transfer
    | Boost
    | Decloak
    | Attack
    | AttackMine
    | LayMine
    | SelfDestruct
    | Ram
    | Engineer
    | EndTurn
    | Withdraw
)
CLASSES = {c.__name__: c for c in (Crew, Move, Warp, Transfer, Boost, Decloak, Attack, AttackMine, LayMine,
                                   SelfDestruct, Ram, Engineer, EndTurn, Withdraw)}

__all__ = ["BOOSTS", "CLASSES", "CREW_OPTIONS", "MOVES", "TASKS", "TRANSFERS", "Action", "Attack", "AttackMine",
           "Boost", "Crew", "Decloak", "EndTurn", "Engineer", "LayMine", "Move", "Ram", "SelfDestruct", "Transfer",
           "Warp", "Withdraw"]
