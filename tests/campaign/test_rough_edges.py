"""Answers a newcomer trips over (issue 23 item 24): /api/ without a route, an invalid token, a
POST-only page reloaded, the favicon."""

import pytest
from django.contrib.staticfiles import finders
from django.test import override_settings
from django.urls import reverse
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@override_settings(DEBUG=True)  # the demo: Django's debug 404 listed every URL
@pytest.mark.parametrize("path", ["/api/", "/api/nothing/here/", "/api/campaigns/not-a-number/"])
def test_an_api_address_without_a_route_answers_a_json_404(client, bob, path):
    client.force_login(bob)
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not found."}
    assert b"urlpatterns" not in response.content and b"admin/" not in response.content


def test_an_api_address_without_its_slash_is_still_redirected(client, bob):
    client.force_login(bob)
    response = client.get("/api/campaigns")
    assert response.status_code == 301 and response["Location"] == "/api/campaigns/"


def test_a_missing_api_object_keeps_drfs_answer(client, bob):
    client.force_login(bob)
    response = client.get("/api/campaigns/999999/")
    assert response.status_code == 404 and "detail" in response.json()


def test_an_invalid_token_answers_401_with_www_authenticate(bob):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION="Token not-a-real-key")
    response = api.get("/api/campaigns/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    # Without any credentials: the site's session convention, 403, as before.
    assert APIClient().get("/api/campaigns/").status_code == 403
    from campaign import actions

    _, key = actions.create_api_token(user=bob)
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/campaigns/").status_code == 200


def test_reloading_a_post_only_page_explains_and_links_back(client, alice, small_campaign_in_setup):
    from campaign.models import Campaign

    Campaign.objects.filter(pk=small_campaign_in_setup.pk).update(status=Campaign.Status.SETUP)
    client.force_login(alice)
    response = client.get(reverse("lobby-start", args=[small_campaign_in_setup.pk]))
    assert response.status_code == 405 and "POST" in response["Allow"]
    html = response.content.decode()
    assert "<h1>" in html and "button" in html.lower()
    assert f'href="{reverse("lobby-detail", args=[small_campaign_in_setup.pk])}"' in html
    assert "Content-Security-Policy" in response


def test_the_site_has_a_favicon(client):
    html = client.get(reverse("home")).content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in html
    path = finders.find("favicon.svg")
    assert path and open(path).read().lstrip().startswith("<svg")
    response = client.get("/favicon.ico")
    assert response.status_code in (301, 302) and response["Location"] == "/static/favicon.svg"
