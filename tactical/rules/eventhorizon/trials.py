"""What-if battles, pure (no Django): one doctrine-against-doctrine battle between two fleets,
and its result as JSON, so battles can be fought in worker processes (tactical/whatif/worker.py)
and added up in the same order whatever process fought them. Rulings WI1–WI4 in docs/rulings.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from campaign.rules.dice import SeededDice, derive_seed
from campaign.rules.eventhorizon.designs import Design as DesignSpec
from campaign.rules.eventhorizon.economy import NO_DAMAGE, Damage

from . import CampaignShip, deploy, outcome, simulate

SIDES = ("a", "b")
SEATS = {"a": 1, "b": 2}  # the engine's sides: fleet A is red (the first listed, ruling TC2)
HERO_CREW_BP = 30  # RULINGS.md "Auto-resolve odds": a hero crew adds 30 BP
LOST_FATES = ("destroyed", "captured")
KEPT_FATES = ("survived", "warped_out")
FATES = ("destroyed", "captured", "warped_out", "survived")


@dataclass(frozen=True)
class TrialShip:
    """One ship of a what-if fleet as the engine needs it, with what the tally counts."""

    design: DesignSpec
    damage: Damage = NO_DAMAGE
    hero_crew: bool = False
    name: str = ""

    @property
    def bp(self) -> int:
        return self.design.bp + (HERO_CREW_BP if self.hero_crew else 0)


@dataclass(frozen=True)
class TrialResult:
    """One battle: who holds the field (``"a"``, ``"b"`` or None), each side's ships by fate and
    BP lost (destroyed or captured), the cards drawn and whether the card cap ended it."""

    holder: str | None
    fates: Mapping[str, Mapping[str, int]]
    bp_lost: Mapping[str, int]
    cards: int
    capped: bool


def _ship_id(side: str, index: int) -> int:
    return (1 if side == "a" else 1001) + index


def play_trial(fleets: Mapping[str, Sequence[TrialShip]], seed: str, index: int) -> TrialResult:
    """Fight battle ``index`` of a run: deploy both fleets on an open 16 × 16 table (fleet A
    red, no invader, no AEWA) and let the doctrine play both sides to the end."""
    dice = SeededDice(derive_seed(f"what-if/{seed}/{index}"))
    engine_fleets = {
        SEATS[side]: [CampaignShip(_ship_id(side, i), s.design, s.damage, s.hero_crew, s.name)
                      for i, s in enumerate(fleets[side])]
        for side in SIDES
    }
    end = outcome(simulate(deploy(engine_fleets, dice), dice))
    by_seat = {seat: side for side, seat in SEATS.items()}
    bp = {_ship_id(side, i): s.bp for side in SIDES for i, s in enumerate(fleets[side])}
    fates: dict[str, dict[str, int]] = {side: dict.fromkeys(FATES, 0) for side in SIDES}
    bp_lost = dict.fromkeys(SIDES, 0)
    for ship in end.ships:
        side = by_seat.get(ship.side)
        if side is None or ship.ship not in bp:
            continue
        fates[side][ship.fate] = fates[side].get(ship.fate, 0) + 1
        if ship.fate in LOST_FATES:
            bp_lost[side] += bp[ship.ship]
    return TrialResult(holder=by_seat.get(end.holder) if end.holder is not None else None, fates=fates,
                       bp_lost=bp_lost, cards=end.cards_drawn, capped=end.capped)


def trial_to_json(trial: TrialResult) -> dict[str, Any]:
    return {"holder": trial.holder, "fates": {s: dict(f) for s, f in trial.fates.items()},
            "bp_lost": dict(trial.bp_lost), "cards": trial.cards, "capped": trial.capped}


def trial_from_json(raw: Mapping[str, Any]) -> TrialResult:
    return TrialResult(holder=raw["holder"], fates=raw["fates"], bp_lost=raw["bp_lost"], cards=raw["cards"],
                       capped=bool(raw["capped"]))


def fleets_from_sides(sides: Sequence[Mapping[str, Any]]) -> dict[str, list[TrialShip]]:
    """The two fleets a run stored (``params["sides"]``) as engine input."""
    fleets: dict[str, list[TrialShip]] = {}
    for entry in sides:
        fleets[entry["key"]] = [
            TrialShip(design=DesignSpec.from_dict(s["design"]),
                      damage=Damage.from_json(s.get("damage")),
                      hero_crew=bool(s.get("hero_crew")), name=s.get("name", ""))
            for s in entry["ships"]
        ]
    return fleets


@dataclass
class Tally:
    """The sums of a run's battles; ``result()`` turns them into rates and means."""

    ships: Mapping[str, int]
    trials: int = 0
    wins: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SIDES, 0))
    draws: int = 0
    capped: int = 0
    cards: int = 0
    fates: dict[str, dict[str, int]] = field(default_factory=lambda: {s: dict.fromkeys(FATES, 0) for s in SIDES})
    bp_lost: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SIDES, 0))
    survivors: dict[str, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.survivors:
            self.survivors = {side: [0] * (self.ships[side] + 1) for side in SIDES}

    def add(self, trial: TrialResult) -> None:
        self.trials += 1
        if trial.holder is None:
            self.draws += 1
        else:
            self.wins[trial.holder] += 1
        self.capped += trial.capped
        self.cards += trial.cards
        for side in SIDES:
            for fate, n in trial.fates[side].items():
                self.fates[side][fate] = self.fates[side].get(fate, 0) + n
            self.bp_lost[side] += trial.bp_lost[side]
            kept = sum(trial.fates[side].get(f, 0) for f in KEPT_FATES)
            self.survivors[side][kept] += 1

    def result(self) -> dict[str, Any]:
        k = max(self.trials, 1)
        return {
            "trials": self.trials,
            "wins": dict(self.wins),
            "draws": self.draws,
            "capped": self.capped,
            "win_rate": {**{side: self.wins[side] / k for side in SIDES}, "draw": self.draws / k},
            "mean_ships_lost": {side: sum(self.fates[side][f] for f in LOST_FATES) / k for side in SIDES},
            "mean_bp_lost": {side: self.bp_lost[side] / k for side in SIDES},
            "mean_fates": {side: {f: self.fates[side][f] / k for f in FATES} for side in SIDES},
            "survivors": {side: list(self.survivors[side]) for side in SIDES},
            "mean_cards": self.cards / k,
        }


# --- the registry's what-if record (tactical.rules.kit.trial.Trial; job = {"sides": [...]}) -------

@lru_cache(maxsize=8)
def _fleets(key: str) -> dict[str, list[TrialShip]]:
    return fleets_from_sides(json.loads(key))


def play_job(job: Mapping[str, Any], seed: str, index: int) -> TrialResult:
    """Battle ``index`` of a run whose job is ``{"sides": params["sides"]}``."""
    return play_trial(_fleets(json.dumps(job["sides"], sort_keys=True)), seed, index)


def tally_for(job: Mapping[str, Any]) -> Tally:
    fleets = _fleets(json.dumps(job["sides"], sort_keys=True))
    return Tally(ships={side: len(fleets[side]) for side in SIDES})
