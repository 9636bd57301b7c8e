"""Fog of war of a CAM scenario fought online on another rule book (issue 31; Event Horizon's tactical
rules, converted by rulings XC10–XC17; Star Trek Print&Play, XC19–XC30; My Trek V, XC31–XC40; Star
Sectors, XC41–XC50): a unit hidden from a seat changes nothing the site tells that seat. The battle
as it stands is taken twice — as it is, and with an enemy ship planted where the deciding seat
cannot see it (the book's own ``plant_hidden``, as the rule-book contract test plants it: under its
stealth field next to the seat's ship, 003 Stealth Fields, ruling TC29; a cloaked ship lurking) —
and every answer to the seat's player is compared: the play page (its board, legal moves and
deployment preview), the battle's state API with its legal actions, the refusals of actions naming
the hidden ship, the battle page, the replay, the scenario page and API and the campaign's dice log.
The ship's own side is told of it (the plant took), so the test can fail."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from campaign import actions as platform
from tactical.models import Battle
from tactical.play import embedded
from tactical.rules import registry
from tests.cam.conftest import make_cam
from tests.cam.test_online import _begin

pytestmark = pytest.mark.django_db

# What changes from one request to the next whatever the battle: the CSRF token and the CSP nonce.
VOLATILE = (re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"'), re.compile(r'nonce="[^"]*"'),
            re.compile(r'"csrfToken":\s*"[^"]+"'))


def _plain(text: str) -> str:
    for pattern in VOLATILE:
        text = pattern.sub("", text)
    return text


def _answers(client, battle: Battle, probes) -> dict:
    """Everything the logged-in user is told about the battle, page by page."""
    c, n = battle.campaign_id, battle.turn
    out = {}
    for name, url in (("play page", reverse("battle-play", args=[battle.pk])),
                      ("battle page", reverse("battle-detail", args=[battle.pk])),
                      ("replay", reverse("battle-replay", args=[battle.pk])),
                      ("scenario page", reverse("cam-scenario", args=[c, n])),
                      ("dice log", reverse("campaign-dice", args=[c]))):
        r = client.get(url)
        out[name] = (r.status_code, _plain(r.content.decode()))
    for name, url in (("state API", f"/api/battles/{battle.pk}/state/"),
                      ("scenario API", f"/api/cam/campaigns/{c}/scenarios/{n}/"),
                      ("scenario battle API", f"/api/cam/campaigns/{c}/scenarios/{n}/battle/")):
        r = client.get(url)
        out[name] = (r.status_code, r.content.decode())
    for probe in probes:
        r = client.post(f"/api/battles/{battle.pk}/action/", probe, content_type="application/json")
        out[f"refusal of {probe}"] = (r.status_code, r.content.decode())
    return out


@pytest.mark.parametrize("name", ["eventhorizon", "printplay", "mytrek", "starsectors"])
def test_a_ship_hidden_from_a_seat_changes_no_answer_the_site_gives_it(
        client, alice, bob, carol, monkeypatch, name):
    BOOK = registry.find_resolver(name).book
    c = make_cam(alice, bob, carol)
    platform.set_campaign_option(campaign_id=c.pk, user=alice, key="battle_book", value=name)
    _begin(c, alice, bob, carol)
    battle = Battle.objects.get(campaign=c)
    assert battle.converted and battle.ruleset == name and battle.status == "playing"
    state = embedded.current_state(battle)
    seat = BOOK.acting_side(state)
    assert seat in (1, 2)
    users = {1: bob, 2: carol}
    planted = next(iter(BOOK.plant_hidden(state, seat)), None)
    assert planted is not None, "the book planted no hidden ship"
    probes = list(BOOK.probe_actions(planted, seat))  # activate, scan, fire at, move the hidden ship
    assert probes  # each names the hidden ship (its id, its square)
    steps = battle.steps.count()

    real = embedded.current_state

    def answers_with(now, user) -> dict:
        monkeypatch.setattr(embedded, "current_state", lambda b: now if b.pk == battle.pk else real(b))
        client.force_login(user)
        try:
            return _answers(client, battle, probes if user == users[seat] else ())
        finally:
            monkeypatch.setattr(embedded, "current_state", real)

    plain = answers_with(state, users[seat])
    seen = answers_with(planted, users[seat])
    assert plain["play page"][0] == 200 and plain["state API"][0] == 200
    assert '"legal"' in plain["state API"][1]  # the seat decides: its legal actions are in the answer
    for key in plain:
        assert seen[key] == plain[key], f"seat {seat} is told something else with a ship hidden from it: {key}"
    assert all(plain[k][0] in (400, 403, 409) for k in plain if k.startswith("refusal"))
    assert battle.steps.count() == steps  # nothing the probes tried was taken
    # The other seat — the hidden ship's own side — is told of it: the plant took.
    owner = users[3 - seat]
    mine = answers_with(planted, owner)
    theirs = answers_with(state, owner)
    assert mine["state API"] != theirs["state API"]
