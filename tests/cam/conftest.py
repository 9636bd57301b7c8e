"""CAM fixtures: alice moderates, bob (UFP, seat 1) and carol (Klingons, seat 2) play; mallory is
an outsider. Period 2, 100 starting points, a rubber of two scenarios at 60 points (CAM 2.2)."""

import pytest

from campaign.cam import actions
from campaign.cam.models import CamShip

BOB_FLEET = ["constitution", "constitution", "constitution", "constitution", "firecat", "firecat",
             "kobayashi_maru", "kobayashi_maru",
             "runabouts", "runabouts"]  # 70 points (CAM 2.2)
CAROL_FLEET = ["d7", "d7", "war_talon", "war_talon", "firecat"]  # 54 points


def make_cam(alice, bob, carol, *, scenarios=2, start=True, seed="cam-test", **settings):
    campaign = actions.create_cam_campaign(
        user=alice, name="Rubber at Organia", period=settings.pop("period", 2),
        starting_points=settings.pop("starting_points", 100), scenarios=scenarios, seed=seed,
        players=[
            {"username": bob.username, "name": "Bob's Squadron", "faction": "UFP", "fleet": BOB_FLEET},
            {"username": carol.username, "name": "Carol's Raiders", "faction": "Klingons", "fleet": CAROL_FLEET},
        ], **settings)
    if start:
        actions.start(campaign_id=campaign.pk, user=alice)
        campaign.refresh_from_db()
    return campaign


def at_the_table(alice, bob, carol, **settings):
    """A started rubber (``make_cam``) whose scenario 1 is an open battle with its table rolled
    (CAM 2.3): bob's first three ships against carol's first two, five units in all."""
    campaign = make_cam(alice, bob, carol, **settings)
    actions.generate_scenario(campaign_id=campaign.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=campaign.pk, user=bob, ships=ship_numbers(campaign, 1)[:3])
    actions.select_forces(campaign_id=campaign.pk, user=carol, ships=ship_numbers(campaign, 2)[:2])
    actions.roll_table(campaign_id=campaign.pk, user=bob)
    return campaign


@pytest.fixture
def cam_campaign(db, alice, bob, carol):
    return make_cam(alice, bob, carol)


def ship_numbers(campaign, seat, sd=None):
    qs = CamShip.objects.filter(player__cam=campaign.cam, player__seat=seat)
    if sd:
        qs = qs.filter(sd=sd)
    return list(qs.order_by("number").values_list("number", flat=True))
