"""The standing force a missed force-selection deadline chooses (000 CAM 2.2; ruling CAM52)."""

from __future__ import annotations

import pytest

from campaign.rules.cam.scenario import ForceSelection, generate_scenario, validate_forces
from campaign.rules.cam.standing import standing_force
from campaign.rules.cam.state import RosterShip, ShipStatus
from campaign.rules.dice import FixedDice
from tests.rules.cam.builders import campaign_of

# Seat 1: BB 20, CV 20, CA 10, CL 7, DD 5, DE 3, TP 2, TP 2, SS 3, CVE 15 (ids 1-10); seat 2 the same (11-20)
FLEET = ["t_bb", "t_cv", "t_ca", "t_cl", "t_dd", "t_de", "t_tp", "t_tp", "t_ss", "t_cve"]


@pytest.fixture
def campaign():
    return campaign_of(FLEET, FLEET, starting_points=200, period=3)


def scenario(campaign, nature="open_battle", defender=None, level=60):
    from dataclasses import replace

    s = generate_scenario(campaign, FixedDice([]), nature=nature, defender=defender).scenario
    return replace(s, points_level=level)


def test_most_points_first_within_the_level(campaign):  # 000 CAM 2.2 "Select a force to an agreed points total"
    # BB 20 + CV 20 + CVE 15 = 55; the CA (10) and CL (7) would go over 60, the DD (5) fits.
    selection = standing_force(campaign, scenario(campaign), 1)
    assert selection == ForceSelection(seat=1, ships=(1, 2, 5, 10))
    assert validate_forces(campaign, scenario(campaign), selection).points == 60


def test_only_ready_ships_and_nothing_bought(campaign):  # 000 CAM 4.2: destroyed, crippled, unavailable
    player = campaign.player(1)
    ships = tuple(RosterShip(s.id, s.sd, s.name, ShipStatus.DESTROYED if s.id in (1, 2) else
                             ShipStatus.CRIPPLED if s.id == 10 else s.status) for s in player.ships)
    from dataclasses import replace

    hurt = campaign.with_player(replace(player, ships=ships))
    selection = standing_force(hurt, scenario(hurt), 1)
    assert not {1, 2, 10} & set(selection.ships)
    assert selection.extra_ac == 0 and selection.bases == () and selection.minefields == ()
    assert not selection.on_table


def test_no_ship_fits_gives_none(campaign):
    assert standing_force(campaign, scenario(campaign, level=1), 1) is None  # the cheapest ship costs 2


@pytest.mark.parametrize("seat", [1, 2])
def test_convoy_proportions_hold(campaign, seat):  # 000 CAM 2.2 convoy (ruling CAM11)
    s = scenario(campaign, nature="convoy", defender=1)
    selection = standing_force(campaign, s, seat)
    force = validate_forces(campaign, s, selection)  # raises if CAM 2.2 refuses it
    ids = set(selection.ships)
    if seat == 1:  # the defender's merchant ships come first; capital ships put back to keep 20%
        assert {7, 8} <= ids and not {1, 2} & ids and force.points > 19
    else:  # the attacker keeps 80% CL or smaller: every light ship, no capital ship
        assert {14, 15, 16, 17, 18, 19} <= ids and not {11, 12} & ids
