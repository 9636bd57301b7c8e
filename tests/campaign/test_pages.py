"""The pages: who may see a campaign, and what the pages show."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.parametrize("path", ["/campaigns/{id}/", "/campaigns/{id}/map.svg", "/campaigns/{id}/dice/"])
@pytest.mark.parametrize("who,status", [("alice", 200), ("bob", 200), ("carol", 200), ("mallory", 404)])
def test_campaign_pages_by_role(client, small_campaign, mallory, path, who, status, django_user_model):
    client.force_login(django_user_model.objects.get(username=who))
    assert client.get(path.format(id=small_campaign.pk)).status_code == status


@pytest.mark.parametrize("path", ["/campaigns/{id}/", "/campaigns/{id}/map.svg", "/campaigns/{id}/dice/"])
def test_anonymous_is_sent_to_log_in(client, small_campaign, path):
    response = client.get(path.format(id=small_campaign.pk))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_home_lists_only_my_campaigns(client, small_campaign, mallory):
    client.force_login(mallory)
    assert small_campaign.name.encode() not in client.get("/").content
    client.force_login(small_campaign.empires.get(seat=1).user)
    assert small_campaign.name.encode() in client.get("/").content


def test_campaign_page_shows_empires_seed_hash_and_map(client, small_campaign, bob):
    client.force_login(bob)
    html = client.get(f"/campaigns/{small_campaign.pk}/").content.decode()
    assert "Bob&#x27;s Realm" in html and "Carol&#x27;s Combine" in html
    assert small_campaign.seed_hash in html
    assert small_campaign.dice_seed not in html  # secret until the campaign ends
    assert f"/campaigns/{small_campaign.pk}/map.svg" in html


def test_map_svg_draws_every_world_with_hover_details(client, small_campaign, bob):
    client.force_login(bob)
    response = client.get(f"/campaigns/{small_campaign.pk}/map.svg")
    assert response["Content-Type"] == "image/svg+xml"
    svg = response.content.decode()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert svg.count("<title>") >= small_campaign.worlds.count()
    assert svg.count("home world") == 2
    home = small_campaign.worlds.get(home_of__seat=1)
    assert f"({home.x},{home.y}) planet" in svg and "structures: *" in svg  # dockyard symbol


def test_dice_page_lists_rolls(client, small_campaign, bob):
    client.force_login(bob)
    html = client.get(f"/campaigns/{small_campaign.pk}/dice/").content.decode()
    assert "003 Creating a Map" in html and small_campaign.seed_hash in html


def test_design_library_page_lists_the_samples(client):
    html = client.get("/designs/").content.decode()
    for name in ["San Marco", "Sword", "Sultan", "Galiot"]:
        assert name in html
    assert "campaign move 4" in html and "campaign move 5" in html


def test_site_refuses_to_start_without_a_secret_key_when_debug_is_off():
    env = {"PATH": "/usr/bin:/bin", "DEBUG": "0", "DJANGO_SETTINGS_MODULE": "config.settings"}
    code = "import django; django.setup()"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode != 0 and "SECRET_KEY is not set" in result.stderr
    env["SECRET_KEY"] = "x" * 50
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env).returncode == 0
