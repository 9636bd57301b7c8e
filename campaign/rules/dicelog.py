"""The hash-chained dice log, its verification and who sees which roll (pure Python; see
docs/dice.md).

Each log entry is hashed over a canonical JSON form of its fields together with the hash of the
entry before it. The first entry chains from the campaign's published seed hash, so a log is
bound to its campaign's seed and cannot be moved to another campaign or reordered unnoticed.

Since hash version 2 each row's hash also covers a salt drawn from the secret seed
(``row_salt``), so the hash of a roll withheld by fog of war does not give its faces away: without
the seed nobody can try the six faces of a d6 against it. Once the seed is revealed anyone
recomputes the salts, and with them every hash.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .dice import DiceError, DiceStream, parse_expression, seed_hash

HASH_UNSALTED = 1  # rows logged before salts (and concerns) existed: the fields alone are hashed
HASH_SALTED = 2  # the fields, the seats the roll concerns and a salt from the seed are hashed
SALT_DOMAIN = b"sector-command/dice-salt/v1"

# Every field of a row, in the order pages and the API show them.
FIELDS = ("seq", "turn", "phase", "purpose", "expression", "faces", "total", "offset", "words", "concerns",
          "hash_version", "prev_hash", "hash")


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
    concerns: tuple[int, ...] = ()  # seats of the empires the roll was made for; () public
    hash_version: int = HASH_UNSALTED  # documents from before version 2 carry neither field


def row_salt(seed: bytes, seq: int) -> str:
    """The secret salt of row ``seq``: HMAC-SHA256 of the seed over its own domain and the
    sequence number (the dice stream uses another domain, so salts reveal nothing of the
    stream, and one row's salt nothing of another's)."""
    return hmac.new(seed, SALT_DOMAIN + seq.to_bytes(8, "big"), hashlib.sha256).hexdigest()


def entry_hash(entry: LogEntry, seed: bytes | None = None) -> str:
    """SHA-256 of the canonical JSON of every field but ``hash`` itself; from hash version 2 on
    also of the row's salt, so the seed is needed (raises DiceError without it)."""
    body: dict[str, Any] = {
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
    if entry.hash_version == HASH_SALTED:
        if seed is None:
            raise DiceError(f"roll #{entry.seq}'s hash covers a salt drawn from the seed: it needs the seed")
        body.update(concerns=list(entry.concerns), hash_version=HASH_SALTED, salt=row_salt(seed, entry.seq))
    elif entry.hash_version != HASH_UNSALTED:
        raise DiceError(f"roll #{entry.seq} has hash version {entry.hash_version!r}, not 1 or 2")
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def chain(
    rolls: Iterable, *, seed: bytes, first_seq: int, prev_hash: str, turn: int, phase: str
) -> list[LogEntry]:
    """Turn ``LoggedRoll``s (from ``SeededDice.log``) into chained, salted entries."""
    entries = []
    seq = first_seq
    for logged in rolls:
        roll = logged.roll
        entry = LogEntry(
            seq=seq, turn=turn, phase=phase, purpose=roll.purpose, expression=roll.expression,
            faces=tuple(roll.faces), total=roll.total, offset=logged.offset, words=logged.words,
            prev_hash=prev_hash, concerns=tuple(roll.concerns), hash_version=HASH_SALTED,
        )
        entry = LogEntry(**{**entry.__dict__, "hash": entry_hash(entry, seed)})
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


def check_links(published_hash: str, links: Iterable[tuple[int, str, str]]) -> Mismatch | None:
    """Check the chain without the seed, as any reader can while a campaign runs: ``links`` are
    ``(seq, prev_hash, hash)`` of every row in order, withheld rows included. Each row must
    follow the one before and carry its hash; the first carries the published seed hash."""
    prev = published_hash
    expected_seq = 1
    for seq, prev_hash, hash_ in links:
        if seq != expected_seq:
            return Mismatch(seq, f"sequence number is {seq}, expected {expected_seq}")
        if prev_hash != prev:
            return Mismatch(seq, "does not chain to the roll before it (prev_hash differs)")
        if not isinstance(hash_, str) or len(hash_) != 64:
            return Mismatch(seq, "its hash is not a SHA-256 in hex")
        prev = hash_
        expected_seq += 1
    return None


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
    salted = False
    for entry in entries:
        if entry.seq != expected_seq:
            return Mismatch(entry.seq, f"sequence number is {entry.seq}, expected {expected_seq}")
        if entry.prev_hash != prev:
            return Mismatch(entry.seq, "does not chain to the roll before it (prev_hash differs)")
        if salted and entry.hash_version != HASH_SALTED:
            return Mismatch(entry.seq, "an unsalted row after a salted one (hash versions only go up)")
        try:
            if entry_hash(entry, seed) != entry.hash:
                return Mismatch(entry.seq, "its hash does not match its contents (the row was altered)")
        except DiceError as exc:
            return Mismatch(entry.seq, str(exc))
        salted = entry.hash_version == HASH_SALTED
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


# --- who sees what of a roll (fog of war: docs/rulings.md FW7, C21) ---------------------------

# A withheld roll shows only what links the chain: its place in it and its hash.
CHAIN_FIELDS = ("seq", "prev_hash", "hash")
# Where each roll began in the stream, and how many words it read, is shown only with the whole
# log: the gaps between the rolls a reader sees would count the dice of the rolls withheld (a
# battle's dice count is its BP ratio). Before the seed is revealed nobody could use them anyway.
STREAM_FIELDS = ("offset", "words")
# What a reader is shown for the purpose of a roll it may see but whose purpose would name what
# fog of war still hides from it (a running battle's hidden step, ruling DL5).
HIDDEN_PURPOSE = "(a hidden action)"


@dataclass(frozen=True)
class LogReader:
    """Who reads the log. ``whole``: the moderator, and everyone once the campaign has ended and
    its seed is revealed. Otherwise ``seat`` is the reader's own empire (None: an observer)."""

    whole: bool
    seat: int | None = None
    # Rolls (by ``seq``) this reader sees but whose purposes it may not read yet: the dice of a
    # step of a battle being fought that is hidden from it (a cloaked or lurking ship, DL5).
    masked: frozenset[int] = frozenset()
    # Rolls (by ``seq``) made for other seats that every reader sees now: the campaign layer has
    # revealed what they were for (CAM's blind force purchases once the table is rolled, CAM 2.3).
    revealed: frozenset[int] = frozenset()

    def sees(self, concerns: Iterable[int], seq: int | None = None) -> bool:
        """May this reader see a roll made for ``concerns`` (empty: a public roll)?"""
        concerns = tuple(concerns)
        return self.whole or not concerns or self.seat in concerns or (seq is not None and seq in self.revealed)


def shown(row: Mapping[str, Any], reader: LogReader) -> dict[str, Any]:
    """What ``reader`` is shown of a log row (a mapping with every name of ``FIELDS``): every
    field with ``withheld`` False, or — a roll made for other empires while the campaign runs —
    only ``CHAIN_FIELDS``, the rest None and ``withheld`` True. The stream position is shown
    only to readers of the whole log; the purpose of a roll in ``reader.masked`` is
    ``HIDDEN_PURPOSE`` (its dice and faces stay)."""
    out = {name: row[name] for name in FIELDS}
    if reader.whole:
        return {**out, "faces": list(out["faces"]), "concerns": list(out["concerns"]), "withheld": False}
    if not reader.sees(row["concerns"], row["seq"]):
        return {**{name: (out[name] if name in CHAIN_FIELDS else None) for name in FIELDS}, "withheld": True}
    if row["seq"] in reader.masked:
        out["purpose"] = HIDDEN_PURPOSE
    return {**out, **dict.fromkeys(STREAM_FIELDS), "faces": list(out["faces"]),
            "concerns": list(out["concerns"]), "withheld": False}
