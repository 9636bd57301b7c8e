"""The CAM campaign as one frozen value (pure Python): settings, the two players' rosters and the
scenarios played so far.

Rule book ``seeds/000_…`` CAM 4.0 "Campaigns" ("Give each fleet a points total with which to begin
the campaign"), CAM 4.1 "Length Of Campaigns" (number of scenarios, a rubber of five; the Period
covered) and CAM 2.2 (the scenario points ceiling, 60 for a quick game). ``new_campaign`` is the
entry point that checks a starting position.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType
from typing import Any

from .factions import Faction
from .ships import FIRST_PERIOD, LAST_PERIOD, SD, STARTER_CATALOGUE

CAMPAIGN_RULE = "000 CAM 4.0 Campaigns"
LENGTH_RULE = "000 CAM 4.1 Length Of Campaigns"
POINTS_RULE = "000 CAM 2.2 Scenario Point Level"

DEFAULT_SCENARIOS = 5  # CAM 4.1 "We recommend a rubber of five games."
DEFAULT_POINTS_LEVEL = 60  # CAM 2.2 "We recommend 60 points for a quick game."
DEFAULT_BREAK_PERCENT = 40  # CAM 2.3 "a 40% loss from the fleet is a good 'threshold' point"
DEFAULT_REPLACEMENT_PERCENT = 10  # CAM 4.2 "no more than 10% of the total points that began the campaign"
BOOK_REPLACEMENT_PERCENT = 10  # the most CAM 4.2 allows without a house rule (ruling CAM34)
MAX_SCENARIOS = 50
MAX_TABLES = 4


class CampaignSetupError(ValueError):
    """Settings or a starting roster that break CAM 4.0/4.1/2.2; names the rule."""


class ShipStatus(str, Enum):
    READY = "ready"
    CRIPPLED = "crippled"  # crippled in the last scenario, waiting for the CAM 4.2 repair roll
    DESTROYED = "destroyed"
    UNAVAILABLE = "unavailable"  # failed its CAM 4.2 repair roll (ruling CAM12: rolls again later)


@dataclass(frozen=True)
class Event:
    """Something that happened, for reports: ``step`` (e.g. "scenario", "break_contact",
    "between_scenarios"), ``kind``, the seats involved, a readable ``text`` naming the CAM
    section, and JSON-friendly ``data`` (dice faces included)."""

    step: str
    kind: str
    seats: tuple[int, ...] = ()
    text: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RosterShip:
    """One ship of a player's campaign fleet. ``sd`` is a catalogue key. ``destroyed_in`` is the
    scenario number that destroyed it; ``replaced_by`` the roster id of its CAM 4.2 replacement."""

    id: int
    sd: str
    name: str = ""
    status: ShipStatus = ShipStatus.READY
    destroyed_in: int | None = None
    replaced_by: int | None = None


@dataclass(frozen=True)
class Player:
    seat: int
    name: str
    faction: Faction
    ships: tuple[RosterShip, ...] = ()
    replacement_points: int = 0  # hoarded CAM 4.2 replacement points
    campaign_points: int = 0  # CAM 4.3 CPs so far

    def ship(self, ship_id: int) -> RosterShip | None:
        for ship in self.ships:
            if ship.id == ship_id:
                return ship
        return None


@dataclass(frozen=True)
class CamSettings:
    """Agreed before the campaign (CAM 4.0, 4.1, 2.2, 2.3; options from RULINGS.md)."""

    period: int
    starting_points: int
    scenarios: int = DEFAULT_SCENARIOS
    points_level: int = DEFAULT_POINTS_LEVEL
    break_percent: int = DEFAULT_BREAK_PERCENT
    replacement_percent: int = DEFAULT_REPLACEMENT_PERCENT
    survival_roll: bool = False  # RULINGS: the 5.7 sidebar's 2D6 survival roll, option, default off
    tables: int = 1  # CAM 2.3 / 11.3 multi-tables: roll each table's nature separately
    # CAM 4.2 "can 'cost' no more than 10% of the total points that began the campaign": a
    # larger share only as a house rule the moderator marks (ruling CAM34).
    replacement_house_rule: bool = False

    def check(self) -> CamSettings:
        def whole(name: str, value: object, low: int, high: int, rule: str) -> None:
            if isinstance(value, bool) or not isinstance(value, int):
                raise CampaignSetupError(f"{rule}: {name} must be a whole number, not {value!r}")
            if not low <= value <= high:
                raise CampaignSetupError(f"{rule}: {name} {value} is outside {low} to {high}")

        whole("period", self.period, FIRST_PERIOD, LAST_PERIOD, LENGTH_RULE)
        whole("starting points", self.starting_points, 1, 100_000, CAMPAIGN_RULE)
        whole("number of scenarios", self.scenarios, 1, MAX_SCENARIOS, LENGTH_RULE)
        whole("scenario points level", self.points_level, 1, 100_000, POINTS_RULE)
        whole("break contact percentage", self.break_percent, 1, 100, "000 CAM 2.3")
        whole("replacement percentage", self.replacement_percent, 0, 100, "000 CAM 4.2")
        if not isinstance(self.replacement_house_rule, bool):
            raise CampaignSetupError("000 CAM 4.2: the replacement house rule is true or false")
        if self.replacement_percent > BOOK_REPLACEMENT_PERCENT and not self.replacement_house_rule:
            raise CampaignSetupError(
                f"000 CAM 4.2: 'Replacements' between scenarios can 'cost' no more than "
                f"{BOOK_REPLACEMENT_PERCENT}% of the total points that began the campaign, not "
                f"{self.replacement_percent}%; a larger share must be marked as a house rule (ruling CAM34)")
        whole("number of tables", self.tables, 1, MAX_TABLES, "000 CAM 2.3 (11.3 multi-tables)")
        if not isinstance(self.survival_roll, bool):
            raise CampaignSetupError("000 5.7 sidebar: survival_roll is true or false")
        return self


@dataclass(frozen=True)
class ScenarioRecord:
    """What a finished scenario left in the campaign's history (CAM 4.1, 4.3)."""

    number: int
    nature: str
    winner: int | None
    victory: str | None
    campaign_points: Mapping[int, int]
    points_left: Mapping[int, int]
    broke_contact: Mapping[int, int | None]  # seat -> turn its break order came, or None


@dataclass(frozen=True)
class CamCampaign:
    settings: CamSettings
    players: tuple[Player, Player]
    catalogue: Mapping[str, SD] = field(default_factory=lambda: STARTER_CATALOGUE)
    history: tuple[ScenarioRecord, ...] = ()
    next_ship_id: int = 1
    replacements_done: int = 0  # the last scenario whose CAM 4.2 step has been made

    @property
    def awaiting_replacements(self) -> bool:
        """A scenario has been recorded but its CAM 4.2 step not yet made (none after the last)."""
        return self.replacements_done < self.scenarios_played and not self.finished

    @property
    def scenarios_played(self) -> int:
        return len(self.history)

    @property
    def finished(self) -> bool:
        return self.scenarios_played >= self.settings.scenarios

    @property
    def seats(self) -> tuple[int, int]:
        return (self.players[0].seat, self.players[1].seat)

    def player(self, seat: int) -> Player:
        for player in self.players:
            if player.seat == seat:
                return player
        raise KeyError(f"no player in seat {seat!r}")

    def opponent(self, seat: int) -> Player:
        self.player(seat)
        return self.players[1] if self.players[0].seat == seat else self.players[0]

    def with_player(self, player: Player) -> CamCampaign:
        return replace(self, players=tuple(player if p.seat == player.seat else p for p in self.players))

    def sd_of(self, ship: RosterShip) -> SD:
        return self.catalogue[ship.sd]


@dataclass(frozen=True)
class StartingShip:
    sd: str
    name: str = ""


@dataclass(frozen=True)
class StartingPlayer:
    seat: int
    name: str
    faction: Faction
    ships: tuple[StartingShip, ...]


def roster_points(catalogue: Mapping[str, SD], ships: Iterable[RosterShip | StartingShip]) -> int:
    return sum(catalogue[s.sd].points for s in ships)


def new_campaign(settings: CamSettings, players: Sequence[StartingPlayer],
                 catalogue: Mapping[str, SD] = STARTER_CATALOGUE) -> CamCampaign:
    """A fresh campaign: two players, each with a fleet costing no more than the starting points
    (CAM 4.0, priced by CAM 2.2) of ships available in the campaign's Period (CAM 4.1, 1.5).
    Roster ids run 1, 2, … through the players in order. Raises ``CampaignSetupError``."""
    settings.check()
    if len(players) != 2:
        raise CampaignSetupError(f"{CAMPAIGN_RULE}: a CAM campaign is fought between two players "
                                 f"(ruling CAM5), not {len(players)}")
    if players[0].seat == players[1].seat:
        raise CampaignSetupError(f"{CAMPAIGN_RULE}: both players sit in seat {players[0].seat}")
    next_id = 1
    built: list[Player] = []
    for start in players:
        if not isinstance(start.faction, Faction):
            raise CampaignSetupError(f"{CAMPAIGN_RULE}: player {start.name!r} needs a faction")
        if not start.ships:
            raise CampaignSetupError(f"{CAMPAIGN_RULE}: player {start.name!r} has no ships")
        ships = []
        for s in start.ships:
            sd = catalogue.get(s.sd)
            if sd is None:
                raise CampaignSetupError(f"000 1.5: player {start.name!r}: no SD {s.sd!r} in the catalogue")
            if not sd.available_in(settings.period):
                raise CampaignSetupError(
                    f"000 1.5 / CAM 4.1: player {start.name!r}: {sd.name} is available in periods "
                    f"{sd.periods[0]}-{sd.periods[1]}, not in the campaign's Period {settings.period}")
            ships.append(RosterShip(id=next_id, sd=s.sd, name=s.name or sd.name))
            next_id += 1
        cost = roster_points(catalogue, ships)
        if cost > settings.starting_points:
            raise CampaignSetupError(
                f"{CAMPAIGN_RULE}: player {start.name!r}'s fleet costs {cost} points, more than the "
                f"campaign's starting {settings.starting_points} (over by {cost - settings.starting_points})")
        built.append(Player(seat=start.seat, name=start.name, faction=start.faction, ships=tuple(ships)))
    return CamCampaign(settings=settings, players=(built[0], built[1]), catalogue=MappingProxyType(dict(catalogue)),
                       next_ship_id=next_id)


def round_half_up(numerator: int, denominator: int = 1) -> int:
    """000 1.1 "Fractions. ½ and above always round up, less than a half, always round down."
    Exact for non-negative integers (no floats)."""
    if denominator <= 0 or numerator < 0:
        raise ValueError("round_half_up takes a non-negative fraction")
    return (2 * numerator + denominator) // (2 * denominator)


def percent_of(points: int, percent: int) -> int:
    """``percent`` % of ``points``, rounded by 000 1.1."""
    return round_half_up(points * percent, 100)
