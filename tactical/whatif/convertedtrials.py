"""What-if battles of a campaign's battle on the rule book its moderator chose (issue 31; pure
Python, no Django: run in the worker processes of ``pool.py`` too).

A job is ``{"layer": "cam" | "eventhorizon", "book": name, "setup": the book's setup (the
converter's ``to_book``), "layer_setup": the layer's side, "seats": [attacker, defender]}``.
Battle ``i`` is the book's own battle from that setup (``RuleBook.new_battle``, the state online
play starts from), fought doctrine against doctrine with its own dice (``derive_seed(
"what-if/converted/<seed>/<i>")``); its result goes back through the converter's ``result_back``,
so the winner counted is the one the campaign would take up (CAM: the side that held the table;
Event Horizon: the holder of the field). The tally is ``kit.trial.WinTally`` over the two seats,
with the mean number of the layer's units (CAM) or ships (Event Horizon) each side lost.

Not one rule book's ``Trial``: ``pool.trial_of("converted")`` finds ``TRIAL`` here (``pool.OTHER_TRIALS``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tactical.rules.kit.trial import Trial, WinTally

KEY = "converted"
LOST_FATES = ("destroyed", "captured")


def lost_by_seat(layer: str, layer_setup: Mapping[str, Any], back: Mapping[str, Any]) -> dict[str, int]:
    """The layer's losses in a result converted back: CAM units destroyed per seat; Event Horizon
    ships destroyed or captured per seat (each ship's seat read from the layer's setup)."""
    if layer == "cam":
        return {str(seat): len(uids) for seat, uids in (back.get("destroyed") or {}).items()}
    seat_of = {int(s["id"]): str(seat) for seat, side in (layer_setup.get("sides") or {}).items()
               for s in (side or {}).get("ships") or []}
    out: dict[str, int] = {}
    for ship in back.get("ships") or []:
        seat = seat_of.get(int(ship.get("ship", -1)))
        if ship.get("fate") in LOST_FATES and seat is not None:
            out[seat] = out.get(seat, 0) + 1
    return out


def play_job(job: Mapping[str, Any], seed: str, index: int) -> dict[str, Any]:
    """One battle of the job on its book, its result as the layer's: the winner and the losses."""
    from campaign.rules.dice import SeededDice, derive_seed  # the dice service (pure, standard library)
    from tactical.rules import registry
    from tactical.rules.kit import result_winner

    book = registry.find_resolver(job["book"]).book
    converter = registry.find_converter(job["layer"], job["book"])
    dice = SeededDice(derive_seed(f"what-if/converted/{seed}/{index}"))
    end = book.simulate(book.new_battle(job["setup"], dice), dice)
    out = book.outcome(end)
    back = converter.result_back(job["layer_setup"], job["setup"], out)
    winner = result_winner(back)
    lost = lost_by_seat(job["layer"], job["layer_setup"], back)
    return {"winner": winner if winner in job["seats"] else None, "lost": lost}


class Tally(WinTally):
    """Wins per seat (``WinTally``: the generic page's shape) and the mean losses per seat."""

    def __init__(self, seats) -> None:
        super().__init__(seats)
        self.lost = {str(s): 0 for s in seats}

    def add(self, result) -> None:  # type: ignore[override]
        super().add(result["winner"])
        for seat, n in (result.get("lost") or {}).items():
            if seat in self.lost:
                self.lost[seat] += int(n)

    def result(self) -> dict:
        out = super().result()
        n = out["trials"] or 1
        out["mean_lost"] = {seat: round(total / n, 2) for seat, total in self.lost.items()}
        return out


def tally_for(job: Mapping[str, Any]) -> Tally:
    return Tally(job["seats"])


def same(value):
    return value


TRIAL = Trial(KEY, "tactical.whatif.convertedtrials:play_job", "tactical.whatif.convertedtrials:same",
              "tactical.whatif.convertedtrials:same", "tactical.whatif.convertedtrials:tally_for",
              api="tactical.whatif.converted:run_json", page="tactical.whatif.converted:detail_page",
              title="A campaign's battle on its chosen book")

__all__ = ["KEY", "TRIAL", "Tally", "lost_by_seat", "play_job", "tally_for"]
