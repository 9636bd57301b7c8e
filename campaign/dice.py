"""The campaign dice service: the Django side of ``campaign.rules.dice``.

Engines get a ``CampaignDice`` (it satisfies the pure ``Dice`` protocol); once the step is done,
the action calls ``commit()`` inside its transaction to append the rolls to the hash-chained log
and advance the campaign's stream offset. The caller must hold the campaign row lock
(``select_for_update``) so two steps cannot interleave their rolls.
"""

from __future__ import annotations

import json

from django.utils import timezone

from .bulk import insert_rows
from .models import Campaign, DiceRoll
from .rules import dicelog
from .rules.dice import Roll, SeededDice


class CampaignDice:
    def __init__(self, campaign: Campaign, *, phase: str, turn: int | None = None):
        self.campaign = campaign
        self.phase = phase
        self.turn = campaign.turn if turn is None else turn
        self._dice = SeededDice(seed=bytes.fromhex(campaign.dice_seed), offset=campaign.dice_offset)
        self._committed = 0

    def roll(self, count: int, sides: int, purpose: str) -> Roll:
        return self._dice.roll(count, sides, purpose)

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
            first_seq=(last["seq"] + 1) if last else 1,
            prev_hash=last["hash"] if last else self.campaign.seed_hash,
            turn=self.turn,
            phase=self.phase,
        )
        now = timezone.now()
        fields = ["campaign", "seq", "turn", "phase", "purpose", "expression", "faces", "total", "offset",
                  "words", "prev_hash", "hash", "created_at"]
        insert_rows(DiceRoll, fields, [
            (self.campaign.pk, e.seq, e.turn, e.phase, e.purpose, e.expression, json.dumps(list(e.faces)),
             e.total, e.offset, e.words, e.prev_hash, e.hash, now)
            for e in entries
        ])
        self._committed = len(self._dice.log)
        self.campaign.dice_offset = self._dice.offset
        Campaign.objects.filter(pk=self.campaign.pk).update(dice_offset=self._dice.offset)
        return len(entries)


def entry_fields(entry: dicelog.LogEntry) -> dict:
    return {
        "seq": entry.seq, "turn": entry.turn, "phase": entry.phase, "purpose": entry.purpose,
        "expression": entry.expression, "faces": list(entry.faces), "total": entry.total,
        "offset": entry.offset, "words": entry.words, "prev_hash": entry.prev_hash,
        "hash": entry.hash,
    }


def log_entries(campaign: Campaign):
    """The campaign's log as pure entries, in order (streamed, for long logs)."""
    fields = ["seq", "turn", "phase", "purpose", "expression", "faces", "total", "offset",
              "words", "prev_hash", "hash"]
    for row in DiceRoll.objects.filter(campaign=campaign).order_by("seq").values(*fields).iterator(2000):
        yield dicelog.LogEntry(**{**row, "faces": tuple(row["faces"])})


HIDDEN_BATTLE_PURPOSE = "a roll in a battle you are not fighting (shown when the campaign ends)"


def battle_roll_masker(campaign: Campaign, user):
    """``purpose(row) -> str`` for showing the dice log to ``user``: rolls of an embedded battle
    (phase ``battle <id>``) name ships, so until the campaign ends only the battle's two sides and
    the moderator see their purpose (docs/rulings.md FW7, C21). Faces, totals and hashes stay."""
    from . import access

    if campaign.status == Campaign.Status.FINISHED or access.is_moderator(user, campaign):
        return lambda row: row.purpose
    from tactical.actions import visible_battles

    mine = {f"battle {pk}" for pk in visible_battles(user).filter(campaign=campaign).values_list("pk", flat=True)}

    def purpose(row) -> str:
        if row.phase.startswith("battle ") and row.phase not in mine:
            return HIDDEN_BATTLE_PURPOSE
        return row.purpose

    return purpose
