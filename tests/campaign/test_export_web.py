"""Export on the web and the API (issue 23 item 11): the moderators of a campaign download it;
its players too once it has ended and its seed is revealed; an outsider gets 404, a player or
observer of a running campaign 403. The same export as ``exportcampaign`` (through the layer
registry), without the seed while the campaign runs."""

import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import Campaign, Membership

pytestmark = pytest.mark.django_db


@pytest.fixture
def erin(django_user_model, small_campaign):
    user = django_user_model.objects.create_user("erin", "erin@example.com", "pw-erin")
    Membership.objects.create(campaign=small_campaign, user=user, role=Membership.Role.OBSERVER)
    return user


def _web(client, user, campaign):
    client.force_login(user)
    return client.get(reverse("campaign-export", args=[campaign.pk]))


def _api(user, campaign):
    api = APIClient()
    api.force_authenticate(user)
    return api.get(f"/api/campaigns/{campaign.pk}/export/")


def _command(campaign, tmp_path) -> dict:
    path = tmp_path / "c.json"
    call_command("exportcampaign", str(campaign.pk), "--output", str(path))
    return json.loads(path.read_text())


def test_the_moderator_downloads_a_running_campaign_without_its_seed(client, small_campaign, alice, tmp_path):
    response = _web(client, alice, small_campaign)
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="campaign-{small_campaign.pk}.json"'
    web = json.loads(response.content)
    full = _command(small_campaign, tmp_path)
    assert web["campaign"]["dice_seed"] is None and full["campaign"]["dice_seed"] == small_campaign.dice_seed
    full["campaign"]["dice_seed"] = None
    assert web == full  # the command's export, the seed withheld
    api = _api(alice, small_campaign)
    assert api.status_code == 200 and api.json() == web
    panel = client.get(reverse("moderation-panel", args=[small_campaign.pk])).content.decode()
    assert reverse("campaign-export", args=[small_campaign.pk]) in panel


@pytest.mark.parametrize(("who", "web", "api"), [("bob", 403, 403), ("erin", 403, 403), ("mallory", 404, 404)])
def test_others_are_refused_while_it_runs(client, request, small_campaign, erin, who, web, api):
    user = request.getfixturevalue(who)
    assert _web(client, user, small_campaign).status_code == web
    answer = _api(user, small_campaign)
    assert answer.status_code == api and "dice_seed" not in answer.content.decode()
    page = client.get(reverse("campaign-detail", args=[small_campaign.pk])).content.decode()
    assert reverse("campaign-export", args=[small_campaign.pk]) not in page


def test_players_download_it_once_the_campaign_has_ended(client, small_campaign, bob, mallory, tmp_path):
    Campaign.objects.filter(pk=small_campaign.pk).update(status=Campaign.Status.FINISHED)
    small_campaign.refresh_from_db()
    response = _web(client, bob, small_campaign)
    assert response.status_code == 200
    assert json.loads(response.content) == _command(small_campaign, tmp_path)  # the seed is revealed now
    assert _api(bob, small_campaign).status_code == 200
    assert reverse("campaign-export", args=[small_campaign.pk]) in client.get(
        reverse("campaign-detail", args=[small_campaign.pk])).content.decode()
    assert _web(client, mallory, small_campaign).status_code == 404


def test_a_layer_without_an_export_answers_404(client, db, alice, bob, carol, monkeypatch):
    from dataclasses import replace

    from campaign import layers
    from tests.cam.conftest import make_cam

    rubber = make_cam(alice, bob, carol, start=False)
    monkeypatch.setitem(layers.CAMPAIGN_LAYERS, rubber.layer, replace(layers.of(rubber), export=None))
    assert _web(client, alice, rubber).status_code == 404
    assert _api(alice, rubber).status_code == 404
