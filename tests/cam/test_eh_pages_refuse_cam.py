"""The Event Horizon pages, API and actions do not open a CAM campaign: they ask the layer
registry (campaign/layers.py) which layers have the "orders", "process_now", "substitute" and
"options" features, and CAM has none of them but "options", where it takes only its own
``battle_book`` (issue 31: CAM's record's ``options``). (Since issue 15 the lobby, moderation and audit
pages serve CAM too: tests/cam/test_platform_lobby.py and test_platform_moderation.py.)"""

import pytest
from django.urls import reverse

from campaign import actions
from campaign.eventhorizon.actions import roll_back_turn

pytestmark = pytest.mark.django_db

EH_ONLY = ["campaign-orders", "campaign-map", "campaign-reports", "campaign-map-svg",
           "campaign-design-new"]


@pytest.mark.parametrize("name", EH_ONLY)
def test_eh_pages_answer_404_for_a_cam_campaign(client, cam_campaign, alice, name):
    client.force_login(alice)
    response = client.get(reverse(name, args=[cam_campaign.pk]))
    assert response.status_code == 404


def test_the_eh_campaign_page_sends_a_cam_campaign_to_its_own_page(client, cam_campaign, alice, mallory):
    client.force_login(alice)
    response = client.get(reverse("campaign-detail", args=[cam_campaign.pk]))
    assert response.status_code == 302 and response.url == reverse("cam-detail", args=[cam_campaign.pk])
    client.force_login(mallory)
    assert client.get(reverse("campaign-detail", args=[cam_campaign.pk])).status_code == 404


@pytest.mark.parametrize("name", ["moderation-process", "moderation-substitute"])
def test_eh_only_moderation_posts_answer_404_for_a_cam_campaign(client, cam_campaign, alice, name):
    client.force_login(alice)
    assert client.post(reverse(name, args=[cam_campaign.pk]), {"turn": 1}).status_code == 404


@pytest.mark.parametrize("action, kwargs", [
    (actions.process_now, {}),
    (actions.substitute_player, {"seat": 1, "username": ""}),
    (roll_back_turn, {}),
])
def test_eh_only_moderation_actions_refuse_a_cam_campaign(cam_campaign, alice, action, kwargs):
    with pytest.raises(actions.NotFound):
        action(campaign_id=cam_campaign.pk, user=alice, **kwargs)


def test_event_horizon_rule_options_are_refused_for_a_cam_campaign(client, cam_campaign, alice):
    """Issue 31: a rubber's only rule option is the book its scenarios are fought on online."""
    with pytest.raises(actions.ActionError, match="options that can: battle_book"):
        actions.set_campaign_option(campaign_id=cam_campaign.pk, user=alice, key="steered_drift", value=True)
    client.force_login(alice)
    url = f"/api/campaigns/{cam_campaign.pk}/options/"
    assert client.get(url).json() == {"options": {"battle_book": ""}, "switchable": ["battle_book"]}
    assert client.patch(url, {"steered_drift": True}, content_type="application/json").status_code == 400
    assert (
        client.post(
            reverse("moderation-options", args=[cam_campaign.pk]), {"steered_drift": "on"}
        ).status_code
        == 302
    )
    cam_campaign.refresh_from_db()
    assert "steered_drift" not in cam_campaign.options


@pytest.mark.parametrize("path", ["/api/campaigns/{}/", "/api/campaigns/{}/orders/"])
def test_the_eh_campaign_api_answers_404_for_a_cam_campaign(client, cam_campaign, alice, path):
    client.force_login(alice)
    assert client.get(path.format(cam_campaign.pk)).status_code == 404


def test_the_eh_campaign_list_api_leaves_cam_campaigns_out(client, cam_campaign, alice):
    client.force_login(alice)
    ids = [c["id"] for c in client.get("/api/campaigns/").json()["results"]]
    assert cam_campaign.pk not in ids


def test_home_page_shows_a_cam_campaign_in_set_up_with_its_players(client, alice, bob, carol):
    from tests.cam.conftest import make_cam

    campaign = make_cam(alice, bob, carol, start=False)
    client.force_login(alice)
    card = client.get("/").content.decode().split(campaign.name, 1)[1].split("</li>", 1)[0]
    assert "Setting up" in card and "<dt>Players</dt>\n        <dd>2</dd>" in card
