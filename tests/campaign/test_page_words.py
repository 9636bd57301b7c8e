"""No developer words on pages (issue 23 item 23): file names of the repository ("docs/dice.md",
"RULINGS.md"), function names ("score_scenario"), and on pages read on phones, "hover" and
"point at" (a phone has no pointer); the sign-up page says nothing of API tokens.

Two nets: every template's text (comments left out), and the rendered pages of a played
campaign, whose help texts and messages come from Python too."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from campaign.eventhorizon import actions as eh_actions

ROOT = Path(__file__).resolve().parents[2]

DEVELOPER = re.compile(r"docs/\w|\b\w+\.md\b|RULINGS|score_scenario")
# "click" alone: a phone has no mouse either; pages say "tap or click" (found on the demo walk:
# the path editor and the play pages said "click").
POINTER = re.compile(r"(?i)(?<![-:#\w.])hover(?![-\w])|\bpoint at\b|(?<!tap or )\bclick(?:s|ing)?\b")


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


def _engine_string_constants(root: Path) -> dict[str, list[str]]:
    """Every string literal of the pure engines that is not a docstring: rule names and refusal
    texts, which reach battle pages, reports, refusals and API answers."""
    import ast

    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                    and DEVELOPER.search(node.value):
                found.setdefault(str(path.relative_to(ROOT)), []).append(node.value)
    return found


def test_no_engine_rule_or_refusal_names_a_developer_file():
    # The rule a refusal cites is shown to players ("house ruling: Auto-resolve odds", "site
    # ruling TC23"), never the repository file it is written in ("RULINGS.md", "docs/orders.md").
    assert {**_engine_string_constants(ROOT / "campaign" / "rules"),
            **_engine_string_constants(ROOT / "tactical" / "rules")} == {}


@pytest.mark.django_db
def test_refusals_on_the_paste_design_and_api_pages_cite_rules_in_players_words(client, small_campaign, bob):
    from campaign.models import Empire

    pk = small_campaign.pk
    seat = Empire.objects.get(campaign=small_campaign, user=bob)
    client.force_login(bob)
    text = f"#SECTOR {pk} {seat.seat} {eh_actions.turn_key(seat, 1)} TURN 1\nHOP\n#END\n"
    pages = {"paste": client.post(reverse("campaign-orders-text", args=[pk]), {"text": text})}
    # A frigate that does not add up to its class's BP (003 Star Ship Design Rules: Ship Type).
    pages["design"] = client.post(reverse("campaign-design-new", args=[pk]),
                                  {"name": "Short", "ship_type": "frigate", "hull": "1", "engine": "1"})
    api = client.post(reverse("api-orders-text", args=[pk]), text, content_type="text/plain")
    assert api.status_code == 400
    refusals = {"paste": "Refused", "design": "must total"}
    found = {}
    for name, response in pages.items():
        assert response.status_code == 200, name
        visible = _visible(response.content.decode())
        assert refusals[name] in visible, name
        if bad := _bad_words(visible):
            found[name] = bad
    if bad := _bad_words(api.content.decode()):
        found["api-orders-text"] = bad
    assert found == {}


@pytest.mark.django_db
def test_an_ended_campaigns_dice_page_explains_the_seed_and_its_command_to_a_player(client, small_campaign, bob):
    from campaign.models import Campaign

    Campaign.objects.filter(pk=small_campaign.pk).update(status=Campaign.Status.FINISHED)
    small_campaign.refresh_from_db()
    client.force_login(bob)
    page = _visible(client.get(reverse("campaign-dice", args=[small_campaign.pk])).content.decode())
    text = " ".join(page.split())
    assert "the seed was fixed before the first roll" in text
    assert "Anyone with a copy of the site's code" in text
    assert f"python manage.py verifydice {small_campaign.pk} --seed {small_campaign.dice_seed}" in text
    assert _bad_words(page) == []
