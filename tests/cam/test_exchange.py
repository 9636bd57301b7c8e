"""A CAM rubber's export and import (docs/export-format.md, "CAM rubbers"), through the layer record
as Event Horizon's: the round trip of a rubber with a scenario being fought, who may download it on
the web and the API (the dice seed withheld while it runs), and the files ``importcampaign`` refuses
naming the problem, writing nothing."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from campaign.cam import actions
from campaign.cam.models import CamCampaign, CamPlayer, CamScenario, CamShip
from campaign.models import Campaign, DiceRoll, Membership
from tests.campaign.import_options import assert_refused, hostile_options, welcome_options
from tests.campaign.test_export_web import _api, _web  # the same export, by web and API

from .conftest import at_the_table, ship_numbers
from .test_platform_lobby import FORM

pytestmark = pytest.mark.django_db


def export(campaign, tmp_path, name="out.json") -> dict:
    path = tmp_path / name
    call_command("exportcampaign", str(campaign.pk), "--output", str(path), stderr=StringIO())
    return json.loads(path.read_text())


def import_doc(tmp_path, doc) -> Campaign:
    path = tmp_path / "in.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    out = StringIO()
    call_command("importcampaign", str(path), stdout=out)
    return Campaign.objects.get(pk=int(out.getvalue()))


@pytest.fixture
def fighting(alice, bob, carol):
    """Scenario 1 on the table, one game turn entered by carol (bob's entry still to come)."""
    c = at_the_table(alice, bob, carol)
    actions.enter_turn(campaign_id=c.pk, user=carol, destroyed=[f"ship:{ship_numbers(c, 2)[0]}"])
    return c


def test_a_rubber_being_fought_round_trips_and_plays_on_alike(fighting, bob, tmp_path):
    first = export(fighting, tmp_path)
    assert first["campaign"]["layer"] == "cam" and first["version"] == 1
    assert first["scenarios"][0]["stage"] == "fighting" and first["scenarios"][0]["turn_entries"]
    assert {m["user"]: m["role"] for m in first["members"]} == {"alice": "moderator", "bob": "player",
                                                                  "carol": "player"}
    copy = import_doc(tmp_path, first)
    assert copy.pk != fighting.pk and copy.layer == "cam"
    assert export(copy, tmp_path, "again.json") == first  # no ids in the file: the same document
    assert actions.roll_back_preview(copy) is None  # roll-back snapshots stay behind (as Event Horizon's)
    # The copy is a live rubber on the same dice stream: bob's turn gives the same rolls in both.
    for campaign in (fighting, copy):
        actions.enter_turn(campaign_id=campaign.pk, user=bob)
    after = [export(c, tmp_path, f"{c.pk}.json") for c in (copy, fighting)]
    for doc in after:  # the next step's deadline runs from the moment each was entered
        assert doc["cam"].pop("deadline") is not None
    assert after[0] == after[1] and after[0]["scenarios"] != first["scenarios"]
    assert DiceRoll.objects.filter(campaign=copy).count() == DiceRoll.objects.filter(campaign=fighting).count()


def test_the_moderator_downloads_it_without_the_seed_while_it_runs(client, cam_campaign, alice, tmp_path):
    web = _web(client, alice, cam_campaign)
    assert web.status_code == 200
    data = json.loads(web.content)
    assert data["campaign"]["dice_seed"] is None and _api(alice, cam_campaign).json() == data
    full = export(cam_campaign, tmp_path)
    assert full["campaign"]["dice_seed"] == cam_campaign.dice_seed
    assert data == {**full, "campaign": {**full["campaign"], "dice_seed": None}}
    assert 'id="export-link"' in client.get(reverse("moderation-panel", args=[cam_campaign.pk])).content.decode()
    assert 'id="export-link"' in client.get(reverse("cam-detail", args=[cam_campaign.pk])).content.decode()
    with pytest.raises(CommandError, match="dice_seed is null"):  # such a file does not import
        import_doc(tmp_path, data)


@pytest.mark.parametrize(("who", "status"), [("bob", 403), ("mallory", 404)])
def test_others_are_refused_while_it_runs(client, request, cam_campaign, who, status):
    user = request.getfixturevalue(who)
    assert _web(client, user, cam_campaign).status_code == status
    answer = _api(user, cam_campaign)
    assert answer.status_code == status and "dice_seed" not in answer.content.decode()
    assert 'id="export-link"' not in client.get(reverse("cam-detail", args=[cam_campaign.pk])).content.decode()


def test_players_download_it_with_the_seed_once_it_has_ended(cam_campaign, bob):
    Campaign.objects.filter(pk=cam_campaign.pk).update(status=Campaign.Status.FINISHED)
    assert _api(bob, cam_campaign).json()["campaign"]["dice_seed"] == cam_campaign.dice_seed


def counts():
    return tuple(m.objects.count() for m in (Campaign, CamCampaign, CamPlayer, CamShip, CamScenario, Membership,
                                             DiceRoll))


def _set(doc, path, value):
    *parents, last = path
    for key in parents:
        doc = doc[key]
    doc[last] = value


def _tamper_dice(doc):
    doc["dice_log"][0]["faces"][0] = doc["dice_log"][0]["faces"][0] % 6 + 1


def _deep(depth: int):
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


CASES = [
    ((("players", 0, "requests"), _deep(100)), "nested more than 64 levels deep"),
    # (change: (path, value) or a function of the document, the refusal's words)
    ((("cam", "period"), 10**30), "the number is outside"),
    ((("cam", "period"), 70000), "cam.period: must be 0 to 32767, not 70000"),
    ((("players", 0, "name"), "Bob\x00's"), "players[0].name: contains a NUL character"),
    ((("players", 0, "campaign_points"), "5"), "players[0].campaign_points: must be a whole number, not '5'"),
    ((("players", 1, "seat"), 1), "players[1]: seat 1 is repeated"),
    ((("players", 0, "user"), "nobody"), "players[0].user: no account 'nobody' on this site"),
    ((("players", 0, "ships", 0, "status"), "sunk"), "players[0].ships[0].status: Value 'sunk' is not a valid"),
    ((("players", 0, "ships", 0, "sd"), "enterprise_z"), "seat 1's fleet: the rules cannot read it"),
    ((("scenarios", 0, "battle"), {"turn": 1}), "scenario 1: the rules cannot read it"),
    ((("scenarios", 0, "forces"), []), "scenarios[0].forces: must be an object"),
    ((("cam", "deadline"), "tomorrow"), "cam.deadline: must be a date and time"),
    # The hostile-input probe: a falsy rule book (null, [], {}) skipped the check and was stored.
    ((("campaign", "options"), {"battle_book": {}}),
     "campaign.options.battle_book: the rule book for battles must be a rule book's name, not {}"),
    ((("campaign", "layer"), "chess"), "campaign.layer 'chess' is not one of"),
    ((("campaign", "dice_seed"), "zz"), "campaign.dice_seed must be hexadecimal"),
    ((("version",), 2), "export version 2 is not supported"),
    ((("scenarios",), {}), "scenarios must be a list"),
    (_tamper_dice, "the dice log does not verify"),
    (lambda doc: doc["cam"].pop("step"), "cam is missing 'step'"),
]


@pytest.mark.parametrize(("change", "message"), CASES, ids=[m for _, m in CASES])
def test_bad_files_are_refused_naming_the_problem(fighting, tmp_path, change, message):
    doc = export(fighting, tmp_path)
    change(doc) if callable(change) else _set(doc, *change)
    before = counts()
    with pytest.raises(CommandError, match="import refused") as refused:
        import_doc(tmp_path, doc)
    assert message in str(refused.value)
    assert counts() == before



EXCELSIOR = {"key": "excelsior", "ship_class": "CA", "name": "CA USS 'Excelsior'", "speed": 7, "turning": 3,
             "target_size": 2, "shields": [4, 4, 4, 4], "hull": 9, "crippled_at": 5, "period_first": 2,
             "period_last": 5, "main": [[4, "Phaser", ""]]}


def test_a_rubber_in_set_up_with_its_own_sd_round_trips(db, alice, bob, carol, tmp_path):
    from .conftest import make_cam

    rubber = make_cam(alice, bob, carol, start=False)
    actions.add_custom_sd(campaign_id=rubber.pk, user=alice, fields=EXCELSIOR)
    first = export(rubber, tmp_path)
    assert [sd["key"] for sd in first["sds"]] == ["excelsior"] and not first["cam"]["started"]
    assert export(import_doc(tmp_path, first), tmp_path, "again.json") == first
    first["sds"][0]["hull"] = 31  # 000 1.5: Hull 30 at most
    before = counts()
    with pytest.raises(CommandError, match="import refused: sds: the rules cannot read it"):
        import_doc(tmp_path, first)
    assert counts() == before


# --- The settings and options the lobby would refuse ------------------------------------------

def lobby_answer(client, user, **changes):
    """The lobby's create API given the same settings (tests/cam/test_platform_lobby.py's form)."""
    client.force_login(user)
    return client.post("/api/lobby/", {**FORM, "layer": "cam", **changes}, content_type="application/json")


HOSTILE_OPTIONS = hostile_options("cam")


@pytest.mark.parametrize(("options", "words"), [c[1:] for c in HOSTILE_OPTIONS], ids=[c[0] for c in HOSTILE_OPTIONS])
def test_options_the_lobby_refuses_do_not_import(cam_campaign, tmp_path, client, alice, options, words):
    """The same cases and words as an Event Horizon campaign's (tests/eventhorizon/test_import_options.py)."""
    doc = export(cam_campaign, tmp_path)
    doc["campaign"]["options"] = options
    before = assert_refused(lambda: import_doc(tmp_path, doc), words, counts)
    # The lobby's only option: its API refuses it too, null included (it read null as left out).
    if isinstance(options, dict) and set(options) == {"battle_book"}:
        assert lobby_answer(client, alice, battle_book=options["battle_book"]).status_code == 400
        assert counts() == before


@pytest.mark.parametrize("options", welcome_options("cam"), ids=json.dumps)
def test_options_the_lobby_takes_import_as_they_are(cam_campaign, tmp_path, options):
    doc = export(cam_campaign, tmp_path)
    doc["campaign"]["options"] = options
    assert import_doc(tmp_path, doc).options == options


SETTINGS = [
    # (section, key, value, the refusal's words, the lobby form's field; None: the lobby takes a number as
    # text, as from its page, where a file's numbers are JSON numbers)
    # Within the column, beyond what the create forms and CAM 4.0-4.2 take: stored before.
    ("cam", "period", 7, "cam: 000 CAM 4.1 Length Of Campaigns: period 7 is outside 1 to 6", "period"),
    ("cam", "period", 0, "cam: 000 CAM 4.1 Length Of Campaigns: period 0 is outside 1 to 6", "period"),
    ("cam", "starting_points", 0, "cam: 000 CAM 4.0 Campaigns: starting points 0 is outside 1 to 100000",
     "starting_points"),
    ("cam", "starting_points", 2_000_000_000,
     "cam: 000 CAM 4.0 Campaigns: starting points 2000000000 is outside 1 to 100000", "starting_points"),
    ("cam", "scenarios", 51, "cam: 000 CAM 4.1 Length Of Campaigns: number of scenarios 51 is outside 1 to 50",
     "scenarios"),
    ("cam", "points_level", 100_001,
     "cam: 000 CAM 2.2 Scenario Point Level: scenario points level 100001 is outside 1 to 100000", "points_level"),
    ("cam", "break_percent", 500, "cam: 000 CAM 2.3: break contact percentage 500 is outside 1 to 100",
     "break_percent"),
    ("cam", "break_percent", 0, "cam: 000 CAM 2.3: break contact percentage 0 is outside 1 to 100", "break_percent"),
    ("cam", "replacement_percent", 101, "cam: 000 CAM 4.2: replacement percentage 101 is outside 0 to 100",
     "replacement_percent"),
    ("cam", "replacement_percent", 30, "cam: 000 CAM 4.2: 'Replacements' between scenarios can 'cost' no more "
     "than 10% of the total points that began the campaign, not 30%", "replacement_percent"),
    ("cam", "tables", 5, "cam: 000 CAM 2.3 (11.3 multi-tables): number of tables 5 is outside 1 to 4", "tables"),
    ("campaign", "turn_hours", 24 * 365 + 1,
     "campaign.turn_hours: the hours per step must be a whole number from 0 to 8760, not 8761", "step_hours"),
    # The seats and the set-up hours as the lobby sets them (check_campaign_setting): two seats (ruling
    # CAM5), the set-up hours within a step's bounds; their columns took 32767 seats and 2147483647 hours.
    ("campaign", "seats", 3, "campaign.seats: a rubber has two seats (ruling CAM5), not 3", None),
    ("campaign", "seats", 0, "campaign.seats: a rubber has two seats (ruling CAM5), not 0", None),
    ("campaign", "setup_hours", 24 * 365 + 1,
     "campaign.setup_hours: the set-up deadline in hours must be a whole number from 0 to 8760, not 8761", None),
    ("campaign", "setup_hours", 2**31 - 1, "campaign.setup_hours: the set-up deadline in hours must be a whole "
     "number from 0 to 8760, not 2147483647", None),
    # The name as the lobby's create takes it, in the same words as an Event Horizon campaign's: a blank one
    # imported (tests/eventhorizon/test_import_validation.py).
    ("campaign", "name", "", "campaign.name: a campaign needs a name, not ''", "name"),
    ("campaign", "name", " \t ", "campaign.name: a campaign needs a name, not ' \\t '", "name"),
    ("campaign", "name", "x" * 121, "campaign.name: a campaign name has at most 120 characters, not 121", "name"),
    # Refused by the columns' check before, and still.
    ("cam", "period", -1, "cam.period: must be 0 to 32767, not -1", "period"),
    ("cam", "tables", True, "cam.tables: must be a whole number, not True", "tables"),
    ("cam", "starting_points", "100", "cam.starting_points: must be a whole number, not '100'", None),
    ("cam", "survival_roll", 1, "cam.survival_roll: must be true or false, not 1", "survival_roll"),
    ("cam", "battle_mode", "duel", "cam.battle_mode: Value 'duel' is not a valid choice", "battle_mode"),
    ("cam", "scenario_mode", "x\x00", "cam.scenario_mode: contains a NUL character", "scenario_mode"),
    ("campaign", "turn_hours", -1, "campaign.turn_hours: must be 0 to 2147483647, not -1", "step_hours"),
    ("campaign", "turn_hours", 10**30, "campaign.turn_hours: the number is outside", "step_hours"),
]


@pytest.mark.parametrize(("section", "key", "value", "words", "field"), SETTINGS,
                         ids=[f"{s}.{k}={v!r}"[:60] for s, k, v, *_ in SETTINGS])
def test_settings_the_lobby_refuses_do_not_import(cam_campaign, tmp_path, client, alice, section, key, value, words,
                                                  field):
    doc = export(cam_campaign, tmp_path)
    doc[section][key] = value
    before = assert_refused(lambda: import_doc(tmp_path, doc), words, counts)
    if field is not None:
        assert lobby_answer(client, alice, **{field: value}).status_code == 400
        assert counts() == before


@pytest.mark.parametrize("name", ["  Rubber at Organia \t", "\n" + "x" * 120 + " "],
                         ids=["padded", "120 once trimmed"])
def test_the_name_is_stored_trimmed_as_the_lobby_stores_it(cam_campaign, tmp_path, client, alice, name):
    """As an Event Horizon campaign's (tests/eventhorizon/test_import_validation.py): the lobby trims
    the spaces around a name and holds what is left to 120 characters; the import stored the name as
    given, and refused the second, whose spaces took it over 120."""
    doc = export(cam_campaign, tmp_path)
    doc["campaign"]["name"] = name
    imported = import_doc(tmp_path, doc)
    assert imported.name == name.strip()
    assert lobby_answer(client, alice, name=name).status_code == 201
    assert client.post(reverse("lobby-create") + "?layer=cam", {**FORM, "name": name}).status_code == 302
    lobbies = Campaign.objects.filter(layer="cam", status=Campaign.Status.SETUP, moderator=alice)
    assert [c.name for c in lobbies] == [imported.name] * 2


def test_settings_at_the_lobbys_bounds_import(cam_campaign, tmp_path, client, alice):
    doc = export(cam_campaign, tmp_path)
    bounds = {"replacement_percent": 100, "replacement_house_rule": True, "tables": 4, "break_percent": 100,
              "points_level": 100_000}
    doc["cam"].update(bounds)
    doc["campaign"].update(turn_hours=24 * 365, setup_hours=0)
    copy = import_doc(tmp_path, doc)
    assert {k: getattr(copy.cam, k) for k in bounds} == bounds and copy.turn_hours == 24 * 365
    assert (copy.setup_hours, copy.seats) == (0, 2)
    assert lobby_answer(client, alice, step_hours=24 * 365, **bounds).status_code == 201
