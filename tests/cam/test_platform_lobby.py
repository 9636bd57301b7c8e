"""A CAM rubber in the platform's lobby (issue 15): created from the lobby's create page or API,
joined by invitation (link or email) with a fleet name and a power the rule book classes,
started from the lobby once both players have joined; the same pages as Event Horizon's."""

import pytest
from django.core import mail
from django.urls import reverse

from campaign import actions, layers
from campaign.cam import actions as cam_actions
from campaign.cam.models import CamCampaign, CamPlayer
from campaign.models import COLOUR_PALETTE, Campaign, Membership
from campaign.rules.cam import factions as fx

from .conftest import BOB_FLEET, CAROL_FLEET

pytestmark = pytest.mark.django_db

FORM = {"name": "Rubber at Organia", "period": 2, "starting_points": 100, "scenarios": 2, "points_level": 60,
        "break_percent": 40, "replacement_percent": 10, "tables": 1, "battle_mode": "tabletop", "step_hours": 48,
        "seed": "cam-lobby"}


@pytest.fixture
def cam_lobby(alice):
    return cam_actions.create_cam_lobby(moderator=alice, name="Rubber at Organia", period=2, starting_points=100,
                                        scenarios=2, seed="cam-lobby", step_hours=48)


def join(user, campaign, name, faction, colour=0, token=None):
    return actions.join_campaign(user=user, token=token or campaign.invite_token, empire_name=name, faction=faction,
                                 colour=COLOUR_PALETTE[colour])


@pytest.fixture
def cam_joined(cam_lobby, bob, carol):
    join(bob, cam_lobby, "Bob's Squadron", "UFP")
    join(carol, cam_lobby, "Carol's Raiders", "Klingons", colour=1)
    return cam_lobby


def test_the_registry_lists_both_layers_with_the_lobby():
    assert layers.having("lobby") == ["eventhorizon", "cam"]
    assert layers.having("orders") == ["eventhorizon"]
    assert layers.get("cam").detail_url == "cam-detail"
    with pytest.raises(layers.LayerError):
        layers.get("chess")


def test_the_lobby_create_page_offers_each_layer_and_creates_a_cam_rubber(client, alice):
    client.force_login(alice)
    page = client.get(reverse("lobby-create")).content.decode()
    assert "?layer=cam" in page and "CAM rubber" in page
    form = client.get(reverse("lobby-create") + "?layer=cam").content.decode()
    assert 'name="step_hours"' in form and 'name="width"' not in form
    response = client.post(reverse("lobby-create") + "?layer=cam", FORM)
    campaign = Campaign.objects.get(name="Rubber at Organia")
    assert response.status_code == 302 and response.url == reverse("lobby-detail", args=[campaign.pk])
    assert campaign.layer == "cam" and campaign.status == Campaign.Status.SETUP and campaign.seats == 2
    assert campaign.turn_hours == 48 and campaign.invite_token
    assert CamCampaign.objects.get(pk=campaign.pk).scenarios == 2
    assert campaign.memberships.get(user=alice).role == Membership.Role.MODERATOR
    detail = client.get(response.url).content.decode()
    assert "CAM rubber" in detail and "Period 2" in detail and "48 hours for each step" in detail


def test_a_bad_cam_setting_is_a_form_error_and_creates_nothing(client, alice):
    client.force_login(alice)
    response = client.post(reverse("lobby-create") + "?layer=cam", {**FORM, "period": 9})
    assert response.status_code == 200 and "errorlist" in response.content.decode()
    response = client.post(reverse("lobby-create") + "?layer=cam", {**FORM, "replacement_percent": 30})
    assert "10%" in response.content.decode()
    assert not Campaign.objects.exists()
    assert client.get(reverse("lobby-create") + "?layer=chess").status_code == 404


def test_the_lobby_api_creates_a_cam_rubber_and_refuses_bad_input(client, alice):
    client.force_login(alice)
    response = client.post("/api/lobby/", {**FORM, "layer": "cam"}, content_type="application/json")
    assert response.status_code == 201 and response.json()["layer"] == "cam"
    bad = client.post("/api/lobby/", {**FORM, "layer": "cam", "period": "x"}, content_type="application/json")
    assert bad.status_code == 400 and "period" in bad.json()
    unknown = client.post("/api/lobby/", {**FORM, "layer": "chess"}, content_type="application/json")
    assert unknown.status_code == 400 and "layer" in unknown.json()
    assert Campaign.objects.count() == 1


def test_players_join_by_link_and_by_email(cam_lobby, alice, bob, carol):
    join(bob, cam_lobby, "Bob's Squadron", "ufp")
    invitation = actions.invite_by_email(campaign_id=cam_lobby.pk, user=alice, email="carol@example.com")
    assert len(mail.outbox) in (0, 1)  # sent on commit
    join(carol, cam_lobby, "Carol's Raiders", "Klingons", colour=1, token=invitation.token)
    invitation.refresh_from_db()
    assert invitation.accepted_by == carol
    assert list(cam_lobby.memberships.filter(role="player").values_list("user__username", flat=True)) == [
        "bob",
        "carol",
    ]


def test_a_power_the_book_does_not_class_is_refused_at_join(cam_lobby, bob):
    with pytest.raises(actions.ActionError, match="Klingons") as refused:
        join(bob, cam_lobby, "Bob's Squadron", "Vulcans")
    assert "not a power the rule book classes" in str(refused.value)
    assert not cam_lobby.memberships.filter(user=bob).exists()


def test_a_third_player_is_refused_a_seat(cam_joined, mallory):
    with pytest.raises(actions.ActionError, match="full"):
        join(mallory, cam_joined, "Mallory's", "Gorns", colour=2)
    actions.join_campaign(user=mallory, token=cam_joined.invite_token, role="observer")


def test_the_moderator_starts_it_from_the_lobby_and_the_seats_follow_the_joins(client, cam_joined, alice, bob):
    client.force_login(alice)
    confirm = client.post(reverse("lobby-start", args=[cam_joined.pk])).content.decode()
    assert "ruling CAM5" in confirm and "48 hours" in confirm
    response = client.post(reverse("lobby-start", args=[cam_joined.pk]), {"confirm": "yes"})
    assert response.status_code == 302 and response.url == reverse("cam-detail", args=[cam_joined.pk])
    cam_joined.refresh_from_db()
    assert cam_joined.status == Campaign.Status.ACTIVE
    seats = list(CamPlayer.objects.filter(cam_id=cam_joined.pk).values_list("seat", "user__username", "name",
                                                                              "faction", "wealth"))
    # The wealth class is the rule book's for a preset power (CAM 4.2).
    assert seats == [(1, "bob", "Bob's Squadron", "UFP", fx.faction("UFP").wealth.value),
                     (2, "carol", "Carol's Raiders", "Klingons", fx.faction("Klingons").wealth.value)]
    cam = CamCampaign.objects.get(pk=cam_joined.pk)
    assert cam.deadline is not None and not cam.started
    # The rubber goes on on the CAM page as before: fleets, then the CAM start.
    client.force_login(bob)
    assert client.get(reverse("cam-detail", args=[cam_joined.pk])).status_code == 200
    cam_actions.set_starting_fleet(campaign_id=cam_joined.pk, user=bob, fleet=BOB_FLEET)
    cam_actions.set_starting_fleet(
        campaign_id=cam_joined.pk,
        user=cam_joined.memberships.get(empire_name="Carol's Raiders").user,
        fleet=CAROL_FLEET,
    )
    cam_actions.start(campaign_id=cam_joined.pk, user=alice)
    assert CamCampaign.objects.get(pk=cam_joined.pk).started


def test_starting_with_one_player_is_refused_and_changes_nothing(cam_lobby, alice, bob):
    join(bob, cam_lobby, "Bob's Squadron", "UFP")
    with pytest.raises(actions.ActionError, match="two players"):
        actions.start_campaign(campaign_id=cam_lobby.pk, user=alice)
    cam_lobby.refresh_from_db()
    assert cam_lobby.status == Campaign.Status.SETUP and not CamPlayer.objects.exists()


def test_only_the_moderator_starts_and_outsiders_get_404(client, cam_joined, bob, mallory):
    with pytest.raises(actions.NotAllowed):
        actions.start_campaign(campaign_id=cam_joined.pk, user=bob)
    with pytest.raises(actions.NotFound):
        actions.start_campaign(campaign_id=cam_joined.pk, user=mallory)
    client.force_login(mallory)
    for name in ("lobby-detail", "moderation-panel", "moderation-audit", "cam-detail"):
        assert client.get(reverse(name, args=[cam_joined.pk])).status_code == 404, name
    assert client.post(reverse("lobby-start", args=[cam_joined.pk]), {"confirm": "yes"}).status_code == 404
    assert client.get(f"/api/lobby/{cam_joined.pk}/").status_code == 404


def test_cam_actions_wait_for_the_lobby_start(cam_joined, alice, bob):
    with pytest.raises(cam_actions.CamActionError, match="lobby"):
        cam_actions.set_starting_fleet(campaign_id=cam_joined.pk, user=bob, fleet=BOB_FLEET)
    with pytest.raises(cam_actions.CamActionError, match="lobby"):
        cam_actions.start(campaign_id=cam_joined.pk, user=alice)


def test_the_cam_page_of_a_rubber_in_the_lobby_is_its_lobby_page(client, cam_joined, bob):
    client.force_login(bob)
    response = client.get(reverse("cam-detail", args=[cam_joined.pk]))
    assert response.status_code == 302 and response.url == reverse("lobby-detail", args=[cam_joined.pk])


def test_home_and_lobby_list_show_the_rubber(client, cam_joined, bob):
    client.force_login(bob)
    assert "CAM rubber: Period 2 · 2 scenarios" in client.get(reverse("lobby-list")).content.decode()
    home = client.get("/").content.decode()
    assert "CAM rubber · Period 2 · 2 scenarios" in home
