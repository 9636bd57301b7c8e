"""What a missed deadline chooses for a CAM player (RULINGS "Missed deadline (NMR)"; rulings
CAM50 – CAM56 in docs/rulings.md).

Only the force selection (CAM 2.2) needs a choice made for the player: every other step's
default is to do what the rule book does anyway (roll, confirm as entered, make the CAM 4.2 step
with the requests entered) or to wait for the moderator, which the site decides
(``campaign/cam/actions/deadlines.py``). Pure: no dice, no clock.
"""

from __future__ import annotations

from .scenario import POINTS_RULE, ForceSelection, ForceSelectionError, Nature, Scenario, validate_forces
from .ships import CL_OR_SMALLER, ShipClass
from .state import CamCampaign, ShipStatus

STANDING_FORCE_RULING = f"{POINTS_RULE} (ruling CAM52: the force chosen at a missed deadline)"
_CAPITAL = frozenset({ShipClass.BB, ShipClass.CV, ShipClass.BC})


def standing_force(campaign: CamCampaign, scenario: Scenario, seat: int) -> ForceSelection | None:
    """The force the site chooses for ``seat`` when its player has chosen none by the force
    selection deadline (ruling CAM52), or None when CAM 2.2 allows none (no ready ship fits):

    1. the candidates are the seat's roster ships that are ready and available in the campaign's
       Period, most CAM 2.2 points first, then lowest roster number first; in a convoy battle the
       ships its proportions need come before the others (the defender's merchant ships, TP; the
       attacker's CL-or-smaller ships);
    2. each is taken when the force stays within the scenario's points level;
    3. in a convoy battle, while the force breaks a proportion (ruling CAM11), the most expensive
       ship of the kind in excess is put back (most points, then highest roster number): capital
       ships while they are over 20%; the defender's ships other than merchant ships (TP) while
       those are under 10%; the attacker's ships larger than CL while CL-or-smaller are under 80%;
       then each ship neither taken nor put back is taken, in the order of 1, when the force stays
       within the points level and keeps every proportion;
    4. no extra AC counters, bases or minefields (nothing is bought: no die is rolled), not
       declared already on the table (ruling CAM33); the player's standing edge choice stands.
    The result is checked by ``validate_forces`` like any player's force."""
    player = campaign.player(seat)
    period = campaign.settings.period
    candidates = []
    for ship in player.ships:
        sd = campaign.sd_of(ship)
        if ship.status is ShipStatus.READY and sd.available_in(period):
            candidates.append((sd.points, ship.id, sd.ship_class))
    needed: frozenset = frozenset()  # in a convoy battle the ships its proportions need come first
    if scenario.nature is Nature.CONVOY:
        needed = frozenset({ShipClass.TP}) if seat == scenario.defender else CL_OR_SMALLER
    candidates.sort(key=lambda c: (c[2] not in needed, -c[0], c[1]))
    chosen, total = [], 0
    for points, ship_id, ship_class in candidates:
        if total + points <= scenario.points_level:
            chosen.append((points, ship_id, ship_class))
            total += points
    if scenario.nature is Nature.CONVOY:
        defending = seat == scenario.defender
        kept = _convoy_proportions(chosen, defending=defending)
        put_back = [c for c in chosen if c not in kept]
        for candidate in candidates:  # the rest, in the same order, where everything still holds
            if candidate in kept or candidate in put_back:
                continue
            trial = kept + [candidate]
            if sum(c[0] for c in trial) <= scenario.points_level and _proportions_hold(trial, defending):
                kept = trial
        chosen = kept
    if not chosen:
        return None
    selection = ForceSelection(seat=seat, ships=tuple(sorted(ship_id for _, ship_id, _ in chosen)))
    try:
        validate_forces(campaign, scenario, selection)
    except ForceSelectionError:
        return None
    return selection


def _convoy_proportions(chosen: list, *, defending: bool) -> list:
    chosen = list(chosen)

    def points(test) -> int:
        return sum(p for p, _, c in chosen if test(c))

    def put_back(test) -> bool:
        excess = [c for c in chosen if test(c[2])]
        if not excess:
            return False
        chosen.remove(max(excess, key=lambda c: (c[0], c[1])))
        return True

    while chosen:
        total = points(lambda c: True)
        if 5 * points(lambda c: c in _CAPITAL) > total:
            put_back(lambda c: c in _CAPITAL)
        elif defending and 10 * points(lambda c: c is ShipClass.TP) < total:
            if not put_back(lambda c: c is not ShipClass.TP):
                return []
        elif not defending and 10 * points(lambda c: c in CL_OR_SMALLER) < 8 * total:
            if not put_back(lambda c: c not in CL_OR_SMALLER):
                return []
        else:
            break
    return chosen


def _proportions_hold(chosen: list, defending: bool) -> bool:
    total = sum(p for p, _, _ in chosen)
    capital = sum(p for p, _, c in chosen if c in _CAPITAL)
    if 5 * capital > total:
        return False
    if defending:
        return 10 * sum(p for p, _, c in chosen if c is ShipClass.TP) >= total
    return 10 * sum(p for p, _, c in chosen if c in CL_OR_SMALLER) >= 8 * total
