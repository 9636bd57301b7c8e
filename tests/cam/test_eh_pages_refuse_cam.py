"""The Event Horizon pages and actions do not open a CAM campaign (issue 6: same site, own flow)."""

import pytest
from django.urls import reverse

from campaign import actions

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["lobby-detail", "moderation-panel", "campaign-orders", "moderation-audit"])
def test_eh_pages_answer_404_for_a_cam_campaign(client, cam_campaign, alice, name):
    client.force_login(alice)
    response = client.get(reverse(name, args=[cam_campaign.pk]))
    assert response.status_code == 404


def test_starting_it_from_the_eh_lobby_answers_404(client, cam_campaign, alice):
    client.force_login(alice)
    assert client.post(reverse("lobby-start", args=[cam_campaign.pk])).status_code == 404


def test_eh_moderation_actions_refuse_a_cam_campaign(cam_campaign, alice):
    with pytest.raises(actions.NotFound):
        actions.pause_campaign(campaign_id=cam_campaign.pk, user=alice)


def test_eh_lobby_api_answers_404_for_a_cam_campaign(client, cam_campaign, alice):
    client.force_login(alice)
    assert client.get(f"/api/lobby/{cam_campaign.pk}/").status_code == 404


def test_home_page_shows_a_cam_campaign_in_set_up_with_its_players(client, alice, bob, carol):
    from tests.cam.conftest import make_cam

    campaign = make_cam(alice, bob, carol, start=False)
    client.force_login(alice)
    card = client.get("/").content.decode().split(campaign.name, 1)[1].split("</li>", 1)[0]
    assert "Setting up" in card and "<dt>Players</dt>\n        <dd>2</dd>" in card
