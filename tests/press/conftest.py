"""Press fixtures: alice moderates, bob (seat 1), carol (seat 2) and dave (seat 3) play, erin
observes, mallory is an outsider. Three seats, so that a private conversation of two has a third
player it must stay hidden from."""

import pytest


@pytest.fixture
def dave(django_user_model):
    return django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")


@pytest.fixture
def erin(django_user_model):
    return django_user_model.objects.create_user("erin", "erin@example.com", "pw-erin")


@pytest.fixture
def press_campaign(db, alice, bob, carol, dave, erin):
    from campaign.eventhorizon import actions as eh_actions
    from campaign.models import Membership

    campaign = eh_actions.create_campaign(name="Press Sector", grid="hex", width=12, height=12, players=3,
                                       seed="press-1", moderator=alice)
    for seat, user, name in ((1, bob, "Bob's Realm"), (2, carol, "Carol's Combine"), (3, dave, "Dave's Dominion")):
        campaign.empires.filter(seat=seat).update(user=user, name=name)
    Membership.objects.create(campaign=campaign, user=erin, role=Membership.Role.OBSERVER)
    return campaign
