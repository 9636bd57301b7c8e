"""No developer words on pages (issue 23 item 23): file names of the repository ("docs/dice.md",
"RULINGS.md"), function names ("score_scenario"), and on pages read on phones, "hover" and
"point at" (a phone has no pointer); the sign-up page says nothing of API tokens.

Two nets: every template's text (comments left out), and the rendered pages of a played
campaign, whose help texts and messages come from Python too."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]

DEVELOPER = re.compile(r"docs/\w|\b\w+\.md\b|RULINGS|score_scenario")
POINTER = re.compile(r"(?i)(?<![-:#\w.])hover(?![-\w])|\bpoint at\b")


def _text_of_template(source: str) -> str:
    source = re.sub(r"{% comment %}.*?{% endcomment %}", "", source, flags=re.S)
    source = re.sub(r"{#.*?#}", "", source, flags=re.S)
    return re.sub(r"<style[^>]*>.*?</style>", "", source, flags=re.S)


def _visible(html: str) -> str:
    html = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


def _bad_words(text: str) -> list[str]:
    return [m.group(0) for m in DEVELOPER.finditer(text)] + [m.group(0) for m in POINTER.finditer(text)]


def test_no_template_shows_developer_or_pointer_words():
    found = {}
    for path in sorted((ROOT / "templates").rglob("*.html")):
        bad = _bad_words(_visible(_text_of_template(path.read_text())))
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert found == {}


@pytest.mark.django_db
def test_the_pages_of_a_played_campaign_show_none(client, small_campaign, alice, bob):
    pk = small_campaign.pk
    pages = {"signup": client.get(reverse("signup")), "login": client.get(reverse("login"))}
    signup = pages["signup"].content.decode()
    assert "token" not in _visible(signup).lower()
    client.force_login(bob)
    for name, args in (("home", []), ("campaign-detail", [pk]), ("campaign-map", [pk]), ("campaign-orders", [pk]),
                       ("campaign-orders-text", [pk]), ("campaign-order-secret", [pk]), ("campaign-dice", [pk]),
                       ("campaign-reports", [pk]), ("lobby-create", []), ("press", [pk]), ("account", [])):
        pages[name] = client.get(reverse(name, args=args))
    pages["lobby-create-cam"] = client.get(reverse("lobby-create") + "?layer=cam")
    client.force_login(alice)
    pages["moderation-panel"] = client.get(reverse("moderation-panel", args=[pk]))
    pages["moderation-rollback"] = client.get(reverse("moderation-rollback", args=[pk]))
    found = {}
    for name, response in pages.items():
        assert response.status_code == 200, name
        bad = _bad_words(_visible(response.content.decode()))
        if bad:
            found[name] = bad
    assert found == {}
