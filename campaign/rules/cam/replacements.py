"""Between CAM scenarios (pure Python): CAM 4.2 "Replacing Losses Between Scenarios".

``between_scenarios(campaign, dice, requests)`` makes, in this order (ruling CAM21):

1. the repair roll for every crippled survivor — and every ship still unavailable from an earlier
   failed roll (ruling CAM12) — d6, 4+ repaired, otherwise unavailable;
2. with the campaign option on, the 5.7 sidebar's 2D6 for every ship destroyed in the scenario
   just played: on a 12 it "miraculously survived to the next game" (ruling CAM22: ready);
3. the replacement points: 10% of the points that began the campaign, hoarded;
4. each replacement request, in the order given: its points must be on hand; d6 + the wealth
   modifier of the ship's group, −1 for a Size Class 0 ship (ruling CAM23); 4+ delivers the ship
   and spends the points, otherwise the points are kept (RULINGS.md) and the lost ship can be
   tried again later.

Requests are all checked before any die is rolled; a bad request raises ``ReplacementError``
naming it, and nothing changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from campaign.rules.dice import Dice

from .ships import SizeGroup
from .state import CamCampaign, Event, Player, RosterShip, ShipStatus, percent_of

RULE = "000 CAM 4.2 Replacing Losses Between Scenarios"
REPAIR_PURPOSE = f"{RULE}: crippled ship repaired on 4+"
SURVIVAL_PURPOSE = "000 5.7 sidebar (campaign game): destroyed ship survives on 2D6 = 12"
REPLACEMENT_PURPOSE = {
    SizeGroup.CAPITAL: f"{RULE}: Capital Ship Replacement Limitation (4+)",
    SizeGroup.MEDIUM: f"{RULE}: Medium Ship Replacement Limitation (4+)",
    SizeGroup.SMALL: f"{RULE}: Small Ship Flexibility (4+)",
}
NEEDED = 4
SURVIVES_ON = 12
SIZE_CLASS_0_PENALTY = -1


class ReplacementError(ValueError):
    """A replacement request CAM 4.2 does not allow; names the request and the reason."""

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(message)


@dataclass(frozen=True)
class ReplacementRequest:
    """Replace the destroyed roster ship ``replaces`` with a new ship of SD ``sd``."""

    replaces: int
    sd: str
    name: str = ""


@dataclass(frozen=True)
class Resolution:
    campaign: CamCampaign
    events: tuple[Event, ...]


def replacement_modifier(player: Player, group: SizeGroup, size_class_0: bool) -> int:
    return player.faction.replacement_modifier(group) + (SIZE_CLASS_0_PENALTY if size_class_0 else 0)


def _check_requests(campaign: CamCampaign, seat: int, requests: Sequence[ReplacementRequest], accrual: int) -> None:
    player = campaign.player(seat)
    seen: set[int] = set()
    cost = 0
    for i, req in enumerate(requests, start=1):
        where = f"{RULE}: {player.name}'s request {i}"
        lost = player.ship(req.replaces) if isinstance(req.replaces, int) else None
        if lost is None:
            raise ReplacementError("unknown_ship", f"{where}: {player.name} has no ship {req.replaces!r}")
        if req.replaces in seen:
            raise ReplacementError("duplicate", f"{where}: ship {req.replaces} is already being replaced")
        seen.add(req.replaces)
        if lost.status is not ShipStatus.DESTROYED:
            raise ReplacementError("not_destroyed", f"{where}: {lost.name} is {lost.status.value}, not destroyed; "
                                   "only a destroyed ship is replaced (ruling CAM24)")
        if lost.replaced_by is not None:
            raise ReplacementError("already_replaced", f"{where}: {lost.name} was already replaced by ship "
                                   f"{lost.replaced_by}")
        new_sd = campaign.catalogue.get(req.sd)
        if new_sd is None:
            raise ReplacementError("unknown_sd", f"{where}: no SD {req.sd!r} in the catalogue")
        if not new_sd.available_in(campaign.settings.period):
            raise ReplacementError("wrong_period", f"{where}: {new_sd.name} is available in periods "
                                   f"{new_sd.periods[0]}-{new_sd.periods[1]}, not in Period {campaign.settings.period}")
        old_sd = campaign.sd_of(lost)
        if new_sd.group is not old_sd.group:
            raise ReplacementError("wrong_group", f"{where}: a {old_sd.group.value} ship ({old_sd.ship_class.value}) "
                                   f"is replaced by a {old_sd.group.value} ship, not a {new_sd.ship_class.value} "
                                   "(ruling CAM24)")
        if new_sd.group is SizeGroup.SMALL and new_sd.ship_class is not old_sd.ship_class:
            raise ReplacementError(
                "not_like_for_like",
                f"{where}: small ships are replaced like for like: "
                f"{old_sd.ship_class.value} by {old_sd.ship_class.value}, not {new_sd.ship_class.value}",
            )
        cost += new_sd.points
    balance = player.replacement_points + accrual
    if cost > balance:
        raise ReplacementError("over_points", f"{RULE}: {player.name}'s requests cost {cost} replacement points; "
                               f"{balance} are on hand after this scenario's {accrual} (ruling CAM25)")


def between_scenarios(campaign: CamCampaign, dice: Dice,
                      requests: Mapping[int, Sequence[ReplacementRequest]] | None = None) -> Resolution:
    """CAM 4.2 after the scenario just recorded (see the module docstring for the order)."""
    if not campaign.history:
        raise ReplacementError("too_early", f"{RULE}: no scenario has been played yet")
    if campaign.finished:
        raise ReplacementError("finished", f"{RULE}: the campaign is over; there is no next scenario "
                               "(ruling CAM21)")
    if not campaign.awaiting_replacements:
        raise ReplacementError("done", f"{RULE}: the step after scenario {campaign.scenarios_played} was already made")
    requests = dict(requests or {})
    for seat in requests:
        if seat not in campaign.seats:
            raise ReplacementError("unknown_seat", f"{RULE}: seat {seat!r} is not in this campaign")
    accrual = percent_of(campaign.settings.starting_points, campaign.settings.replacement_percent)
    for seat, reqs in requests.items():
        _check_requests(campaign, seat, reqs, accrual)

    last = campaign.scenarios_played
    events: list[Event] = []
    next_id = campaign.next_ship_id
    for seat in campaign.seats:
        player = campaign.player(seat)
        ships = list(player.ships)
        # 1. repair rolls
        for i, ship in enumerate(ships):
            if ship.status not in (ShipStatus.CRIPPLED, ShipStatus.UNAVAILABLE):
                continue
            face = dice.roll(1, 6, REPAIR_PURPOSE).faces[0]
            repaired = face >= NEEDED
            was = ship.status.value
            ships[i] = replace(ship, status=ShipStatus.READY if repaired else ShipStatus.UNAVAILABLE)
            events.append(Event("between_scenarios", "repair", (seat,),
                                f"{ship.name} ({was}) rolls {face}: "
                                f"{'repaired' if repaired else 'unavailable'} ({RULE}).",
                                {"seat": seat, "ship": ship.id, "was": was, "roll": face, "repaired": repaired}))
        # 2. survival rolls (option)
        if campaign.settings.survival_roll:
            for i, ship in enumerate(ships):
                if ship.status is not ShipStatus.DESTROYED or ship.destroyed_in != last:
                    continue
                roll = dice.roll(2, 6, SURVIVAL_PURPOSE)
                survived = roll.total >= SURVIVES_ON
                if survived:
                    ships[i] = replace(ship, status=ShipStatus.READY, destroyed_in=None)
                events.append(Event("between_scenarios", "survival", (seat,),
                                    f"{ship.name} (destroyed) rolls {roll.total} on 2D6: "
                                    f"{'miraculously survives to the next game' if survived else 'lost'} "
                                    f"(000 5.7 sidebar).",
                                    {"seat": seat, "ship": ship.id, "faces": list(roll.faces), "survived": survived}))
        # 3. replacement points
        points = player.replacement_points + accrual
        events.append(Event("between_scenarios", "replacement_points", (seat,),
                            f"{player.name} gains {accrual} replacement points, {points} on hand ({RULE}).",
                            {"seat": seat, "gained": accrual, "balance": points}))
        # 4. replacement rolls
        by_id = {s.id: i for i, s in enumerate(ships)}
        for req in requests.get(seat, ()):
            lost = ships[by_id[req.replaces]]
            if lost.status is not ShipStatus.DESTROYED:  # it survived its 2D6 roll above
                events.append(Event("between_scenarios", "replacement_not_needed", (seat,),
                                    f"{lost.name} survived; no replacement is made for it.",
                                    {"seat": seat, "replaces": lost.id}))
                continue
            sd = campaign.catalogue[req.sd]
            modifier = replacement_modifier(player, sd.group, sd.size_class_0)
            face = dice.roll(1, 6, REPLACEMENT_PURPOSE[sd.group]).faces[0]
            score = face + modifier
            delivered = score >= NEEDED
            data = {"seat": seat, "replaces": lost.id, "sd": sd.key, "group": sd.group.value, "cost": sd.points,
                    "roll": face, "modifier": modifier, "score": score, "delivered": delivered}
            if delivered:
                points -= sd.points
                new = RosterShip(id=next_id, sd=sd.key, name=req.name or sd.name)
                next_id += 1
                ships[by_id[req.replaces]] = replace(lost, replaced_by=new.id)
                ships.append(new)
                by_id[new.id] = len(ships) - 1
                data["new_ship"] = new.id
                text = (f"{player.name} replaces {lost.name} with {new.name} for {sd.points} points: rolled {face} "
                        f"{modifier:+d} = {score}, delivered ({REPLACEMENT_PURPOSE[sd.group]}).")
            else:
                text = (f"{player.name}'s replacement for {lost.name} ({sd.name}): rolled {face} {modifier:+d} = "
                        f"{score}, not delivered; the {sd.points} points are kept ({REPLACEMENT_PURPOSE[sd.group]}).")
            events.append(Event("between_scenarios", "replacement", (seat,), text, data))
        campaign = campaign.with_player(replace(player, ships=tuple(ships), replacement_points=points))
    campaign = replace(campaign, next_ship_id=next_id, replacements_done=last)
    return Resolution(campaign, tuple(events))
