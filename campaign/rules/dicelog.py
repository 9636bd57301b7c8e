"""The hash-chained dice log and its verification (pure Python; see docs/dice.md).

Each log entry is hashed over a canonical JSON form of its fields together with the hash of the
entry before it. The first entry chains from the campaign's published seed hash, so a log is
bound to its campaign's seed and cannot be moved to another campaign or reordered unnoticed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

from .dice import DiceError, DiceStream, parse_expression, seed_hash


@dataclass(frozen=True)
class LogEntry:
    seq: int
    turn: int
    phase: str
    purpose: str
    expression: str
    faces: tuple[int, ...]
    total: int
    offset: int
    words: int
    prev_hash: str
    hash: str = ""


def entry_hash(entry: LogEntry) -> str:
    """SHA-256 of the canonical JSON of every field but ``hash`` itself."""
    body = {
        "seq": entry.seq,
        "turn": entry.turn,
        "phase": entry.phase,
        "purpose": entry.purpose,
        "expression": entry.expression,
        "faces": list(entry.faces),
        "total": entry.total,
        "offset": entry.offset,
        "words": entry.words,
        "prev_hash": entry.prev_hash,
    }
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def chain(
    rolls: Iterable, *, first_seq: int, prev_hash: str, turn: int, phase: str
) -> list[LogEntry]:
    """Turn ``LoggedRoll``s (from ``SeededDice.log``) into chained entries."""
    entries = []
    seq = first_seq
    for logged in rolls:
        roll = logged.roll
        entry = LogEntry(
            seq=seq, turn=turn, phase=phase, purpose=roll.purpose, expression=roll.expression,
            faces=tuple(roll.faces), total=roll.total, offset=logged.offset, words=logged.words,
            prev_hash=prev_hash,
        )
        entry = LogEntry(**{**entry.__dict__, "hash": entry_hash(entry)})
        entries.append(entry)
        prev_hash = entry.hash
        seq += 1
    return entries


@dataclass(frozen=True)
class Mismatch:
    seq: int | None
    problem: str

    def __str__(self) -> str:
        where = "the seed" if self.seq is None else f"roll #{self.seq}"
        return f"{where}: {self.problem}"


def verify(seed: bytes, published_hash: str, entries: Iterable[LogEntry]) -> Mismatch | None:
    """Recompute every roll and the chain; return the first mismatch, or None if all agree."""
    if seed_hash(seed) != published_hash:
        return Mismatch(None, "sha256(seed) does not equal the campaign's published seed hash")
    try:
        stream = DiceStream(seed)
    except DiceError as exc:
        return Mismatch(None, str(exc))
    prev = published_hash
    expected_seq = 1
    for entry in entries:
        if entry.seq != expected_seq:
            return Mismatch(entry.seq, f"sequence number is {entry.seq}, expected {expected_seq}")
        if entry.prev_hash != prev:
            return Mismatch(entry.seq, "does not chain to the roll before it (prev_hash differs)")
        if entry_hash(entry) != entry.hash:
            return Mismatch(entry.seq, "its hash does not match its contents (the row was altered)")
        if entry.offset != stream.offset:
            return Mismatch(
                entry.seq, f"starts at stream word {entry.offset}, expected {stream.offset}"
            )
        try:
            count, sides = parse_expression(entry.expression)
        except DiceError as exc:
            return Mismatch(entry.seq, str(exc))
        faces = stream.faces(count, sides)
        if faces != tuple(entry.faces):
            return Mismatch(
                entry.seq, f"faces {list(entry.faces)} differ from the stream's {list(faces)}"
            )
        if sum(faces) != entry.total:
            return Mismatch(entry.seq, f"total {entry.total} is not the sum of its faces")
        if stream.offset - entry.offset != entry.words:
            return Mismatch(entry.seq, "used a different number of stream words")
        prev = entry.hash
        expected_seq += 1
    return None
