"""An imported Event Horizon campaign stores no rule options its lobby would refuse: each hostile
``campaign.options`` (tests/campaign/import_options.py, the same cases as a CAM rubber's) is
refused by ``importcampaign`` in the platform's words (campaign/exports.py ``check_options``),
writing nothing, and the lobby's create API refuses it too; options the lobby takes import as
they are."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.models import MapCell, Structure, World
from campaign.models import Campaign, DiceRoll, Empire, Membership, Turn
from tests.campaign.import_options import assert_refused, hostile_options, welcome_options

pytestmark = pytest.mark.django_db

HOSTILE = hostile_options("eventhorizon")


def counts():
    return tuple(m.objects.count() for m in (Campaign, Empire, MapCell, World, Structure, Turn, DiceRoll, Membership))


@pytest.fixture
def exported(tmp_path):
    """A small campaign in its set-up round (its map, seats and dice log), exported."""
    campaign = eh_actions.create_campaign(name="Orion Reach", width=10, height=10, players=2, seed="options")
    path = tmp_path / "out.json"
    call_command("exportcampaign", str(campaign.pk), "--output", str(path), stdout=StringIO(), stderr=StringIO())
    return json.loads(path.read_text())


def import_doc(tmp_path, doc) -> Campaign:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    out = StringIO()
    call_command("importcampaign", str(path), stdout=out)
    return Campaign.objects.get(pk=int(out.getvalue()))


def lobby_answer(client, user, options):
    client.force_login(user)
    return client.post("/api/lobby/", {"name": "X", "width": 12, "height": 12, "seats": 2, "options": options},
                       content_type="application/json")


@pytest.mark.parametrize(("options", "words"), [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_options_the_lobby_refuses_do_not_import(exported, tmp_path, client, alice, options, words):
    exported["campaign"]["options"] = options
    before = assert_refused(lambda: import_doc(tmp_path, exported), words, counts)
    assert lobby_answer(client, alice, options).status_code == 400
    assert counts() == before


@pytest.mark.parametrize("options", welcome_options("eventhorizon"), ids=json.dumps)
def test_options_the_lobby_takes_import_as_they_are(exported, tmp_path, client, alice, options):
    exported["campaign"]["options"] = options
    assert import_doc(tmp_path, exported).options == options
    assert lobby_answer(client, alice, options).status_code == 201
