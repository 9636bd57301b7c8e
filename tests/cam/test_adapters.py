"""Rows <-> engine round trips (campaign/cam/adapters.py)."""

from campaign.cam import actions, adapters
from campaign.cam.models import CamSD
from campaign.rules.cam import ships as sh
from campaign.rules.cam import state as st

from .conftest import make_cam, ship_numbers


def test_sd_round_trip_for_every_starter_sd(db, alice, bob, carol):
    # 000 1.5: every field of every rule-book SD survives a trip through a CamSD row.
    campaign = make_cam(alice, bob, carol)
    for sd in sh.STARTER_SDS:
        row = CamSD(cam=campaign.cam, **adapters.sd_fields(sd))
        assert adapters.sd_from_row(row) == sd


def test_campaign_state_round_trip(cam_campaign):
    # CAM 4.0: the started campaign's rosters, factions and settings as the engine sees them.
    state = adapters.campaign_state(cam_campaign.cam)
    assert state.settings == st.CamSettings(period=2, starting_points=100, scenarios=2)
    bob, carol = state.players
    assert bob.faction.name == "UFP" and bob.faction.preset and carol.faction.break_modifier == +1
    assert [s.sd for s in bob.ships][:4] == ["constitution"] * 4
    assert state.next_ship_id == len(bob.ships) + len(carol.ships) + 1
    adapters.store_campaign(cam_campaign.cam, state)  # writing it back changes nothing
    assert adapters.campaign_state(cam_campaign.cam) == state


def test_scenario_and_battle_round_trip(cam_campaign, bob, carol):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=bob)
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    row = actions.roll_table(campaign_id=c.pk, user=carol)
    row.refresh_from_db()
    state = adapters.campaign_state(c.cam)
    battle = adapters.battle_state(row, state)
    assert adapters.battle_json(battle) == row.battle
    scenario = adapters.scenario_state(row)
    copy = type(row)(cam=c.cam)
    adapters.store_scenario(copy, scenario)
    assert adapters.scenario_state(copy) == scenario
    assert scenario.forces[1].points == 30 and scenario.break_levels[1] == 12  # CAM 2.3: 40% of 30


def test_other_power_best_fit(db, alice, bob, carol):
    # CAM 4.2 "Other powers: Best fit from above"; CAM 3.1 footnote 1 temper.
    assert adapters.faction_fields("Klingons", None, None) == {
        "faction": "Klingons", "wealth": "rich", "temper": "aggressive", "preset": True}
    assert adapters.faction_fields("Cylons", "variable", None)["temper"] == "aggressive"
    assert adapters.faction_fields("Vulcan Splinter", "poor", "cautious") == {
        "faction": "Vulcan Splinter", "wealth": "poor", "temper": "cautious", "preset": False}
