"""The campaign dice service: the Django side of ``campaign.rules.dice``.

Engines get a ``CampaignDice`` (it satisfies the pure ``Dice`` protocol); once the step is done,
the action calls ``commit()`` inside its transaction to append the rolls to the hash-chained log
and advance the campaign's stream offset. The caller must hold the campaign row lock
(``select_for_update``) so two steps cannot interleave their rolls.

Every place that shows the log reads it through ``shown_rows`` with the reader from
``log_reader``: a roll made for other empires is withheld until the campaign ends (docs/dice.md
"Who sees which roll", docs/rulings.md FW7).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from django.utils import timezone

from .access import empire_of, is_moderator
from .bulk import insert_rows
from .models import Campaign, DiceRoll
from .rules import dicelog
from .rules.dice import PUBLIC, Roll, SeededDice, seats_of


class CampaignDice:
    """The campaign's dice for one step. ``concerns``: seats every roll of this step is made for
    (an embedded battle's two sides); a call site adds its own with ``rules.dice.concerning``."""

    def __init__(self, campaign: Campaign, *, phase: str, turn: int | None = None,
                 concerns: Iterable[int] = PUBLIC):
        self.campaign = campaign
        self.phase = phase
        self.turn = campaign.turn if turn is None else turn
        self.concerns = seats_of(concerns)
        self._dice = SeededDice(seed=bytes.fromhex(campaign.dice_seed), offset=campaign.dice_offset)
        self._committed = 0

    def roll(self, count: int, sides: int, purpose: str) -> Roll:
        return self._dice.roll_for(self.concerns, count, sides, purpose)

    def roll_for(self, concerns: tuple[int, ...], count: int, sides: int, purpose: str) -> Roll:
        return self._dice.roll_for(seats_of((*self.concerns, *concerns)), count, sides, purpose)

    def commit(self) -> int:
        """Append the rolls made since the last commit to the log; returns how many."""
        pending = self._dice.log[self._committed :]
        if not pending:
            return 0
        last = (
            DiceRoll.objects.filter(campaign=self.campaign).order_by("-seq").values("seq", "hash").first()
        )
        entries = dicelog.chain(
            pending,
            seed=self._dice.seed,
            first_seq=(last["seq"] + 1) if last else 1,
            prev_hash=last["hash"] if last else self.campaign.seed_hash,
            turn=self.turn,
            phase=self.phase,
        )
        now = timezone.now()
        fields = ["campaign", "seq", "turn", "phase", "purpose", "expression", "faces", "total", "offset",
                  "words", "concerns", "hash_version", "prev_hash", "hash", "created_at"]
        insert_rows(DiceRoll, fields, [
            (self.campaign.pk, e.seq, e.turn, e.phase, e.purpose, e.expression, json.dumps(list(e.faces)),
             e.total, e.offset, e.words, json.dumps(list(e.concerns)), e.hash_version, e.prev_hash, e.hash, now)
            for e in entries
        ])
        self._committed = len(self._dice.log)
        self.campaign.dice_offset = self._dice.offset
        Campaign.objects.filter(pk=self.campaign.pk).update(dice_offset=self._dice.offset)
        return len(entries)


def entry_fields(entry: dicelog.LogEntry) -> dict:
    return {name: getattr(entry, name) for name in dicelog.FIELDS} | {
        "faces": list(entry.faces), "concerns": list(entry.concerns)}


def log_entries(campaign: Campaign):
    """The campaign's log as pure entries, in order (streamed, for long logs)."""
    for row in DiceRoll.objects.filter(campaign=campaign).order_by("seq").values(*dicelog.FIELDS).iterator(2000):
        yield dicelog.LogEntry(**{**row, "faces": tuple(row["faces"]), "concerns": tuple(row["concerns"])})


def log_reader(campaign: Campaign, user) -> dicelog.LogReader:
    """How ``user`` reads the campaign's dice log: whole for the moderator and, once the seed is
    revealed, for everyone; otherwise through their own empire's eyes (an observer's: none)."""
    if campaign.revealed_seed is not None or is_moderator(user, campaign):
        return dicelog.LogReader(whole=True)
    from . import layers

    hook = layers.of(campaign).revealed_dice
    revealed = frozenset(hook(campaign)) if hook else frozenset()
    empire = empire_of(user, campaign)
    seat = empire.seat if empire else None
    if seat is None:
        # A layer whose seats are not Empire rows (CAM: its battles fought online roll for both
        # seats, docs/dice.md) registers them with the platform's seat registry.
        from .press import seats

        seat = next((s.number for s in seats.seats_of_user(campaign, user)), None)
    if seat is None:
        return dicelog.LogReader(whole=False, revealed=revealed)
    # A battle being fought shows its sides its dice, but not what a step hidden from the
    # reader rolled them for (ruling DL5): the battle app knows which steps those are.
    from .battles import handler

    return dicelog.LogReader(whole=False, seat=seat, masked=frozenset(handler().hidden_dice(campaign, seat)),
                             revealed=revealed)


def shown_rows(rows: Iterable[DiceRoll], reader: dicelog.LogReader) -> list[dict]:
    """The rows as ``reader`` may see them (``dicelog.shown``): the one way pages, the API and
    anything else that prints rolls read the log."""
    return [dicelog.shown({name: getattr(row, name) for name in dicelog.FIELDS}, reader) for row in rows]


def _truncate_dice_log(campaign: Campaign, after_seq: int) -> dict:
    """Delete the campaign's logged rolls after ``after_seq``: the ONE privileged path around the
    dice log's append-only guard (``DiceRollQuerySet.delete`` raises), used by the roll-backs
    (an Event Horizon turn's in ``campaign/eventhorizon/snapshots.py``, a CAM step's in
    ``campaign/cam/snapshots.py``) and nothing else (docs/dice.md,
    "Roll-back"). What remains is a prefix of the chain, so it
    still verifies from the published seed hash; with ``dice_offset`` restored, re-processing
    re-reads the same stream words and rolls the same dice. Returns the deleted rows whole, which
    ``roll_back_turn`` keeps in the audit log: anyone can check them against the chain later."""
    rows = DiceRoll.objects.filter(campaign=campaign, seq__gt=after_seq).order_by("seq")
    gone = list(rows.values(*dicelog.FIELDS))
    deleted = rows._raw_delete(rows.db) if gone else 0  # bypasses the append-only guard on purpose
    return {
        "after_seq": after_seq, "deleted": deleted, "first_seq": gone[0]["seq"] if gone else None,
        "last_seq": gone[-1]["seq"] if gone else None, "last_hash": gone[-1]["hash"] if gone else None,
        "rows": gone,
    }
