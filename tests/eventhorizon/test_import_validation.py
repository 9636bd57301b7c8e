"""importcampaign checks the whole document before it writes (issue 14, item 6): every whole
number against its column's range and the rules, numbers unique where the format says so, text
free of NUL and lone surrogates, no nesting that would exhaust the stack. A bad file ends with a
CommandError naming the path of the first problem and changes nothing; a campaign exported by
exportcampaign still imports. Run on SQLite and PostgreSQL (a NUL broke on PostgreSQL)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from campaign.eventhorizon.models import Fleet, Ship, World
from campaign.models import Campaign, DiceRoll, Empire, Turn
from tests.campaign.test_lobby import FORM
from tests.shared_rows import shared_rows

pytestmark = pytest.mark.django_db

DEEP = "[" * 50_000 + "]" * 50_000


def counts():
    return tuple(m.objects.count() for m in (Campaign, Empire, World, Fleet, Ship, Turn, DiceRoll))


@pytest.fixture(scope="module")
def _demo_export(django_db_setup, django_db_blocker, tmp_path_factory):
    """The demo campaign (three turns in: fleets, ships, a dice log) built once for the module, and
    its export's text. setupdemo plays the set-up round and three turns; every test of the module
    only reads the campaign or has a document refused against it, so they share one
    (tests/shared_rows.py: rolled back after the module's last test, each test in its savepoint)."""
    with shared_rows(django_db_blocker):
        call_command("setupdemo", stdout=StringIO())
        path = tmp_path_factory.mktemp("demo") / "demo.json"
        call_command("exportcampaign", str(Campaign.objects.get().pk), "--output", str(path), stdout=StringIO())
        yield path.read_text()


@pytest.fixture
def exported(_demo_export):
    """The demo campaign in the database, and its export (a fresh copy: tests change it)."""
    doc = json.loads(_demo_export)
    assert len(doc["fleets"]) >= 2 and len(doc["ships"]) >= 3 and len(doc["turns"]) >= 2
    return doc


def import_text(tmp_path, text: str) -> str:
    path = tmp_path / "in.json"
    path.write_text(text, encoding="utf-8")
    out = StringIO()
    call_command("importcampaign", str(path), stdout=out)
    return out.getvalue().strip()


def _set(doc, path, value):
    *parents, last = path
    target = doc
    for key in parents:
        target = target[key]
    target[last] = value


CASES = [
    # (change, message); a change is (path, value) or a function of the document
    ((("empires", 1, "bp"), 10**30), "empires[1].bp: the number is outside"),
    ((("empires", 1, "bp"), -3), "empires[1].bp cannot be negative"),
    ((("empires", 0, "name"), "Bob\x00's Realm"), "empires[0].name: contains a NUL character"),
    ((("ships", 0, "name"), "Swift\ud800"), "ships[0].name: contains a lone surrogate (\\ud800)"),
    ((("campaign", "name"), "x\x00"), "campaign.name: contains a NUL character"),
    ((("ships", 2, "damage"), {"hull": -5}), "ships[2].damage.hull: must be ≥ 0, not -5"),
    ((("ships", 0, "damage"), {"engine": "lots"}), "ships[0].damage.engine: must be a whole number"),
    ((("ships", 0, "damage"), {"hull": 1000}), "ships[0].damage: damage does not fit"),
    ((("ships", 0, "damage"), {"warp_core": 1}), "ships[0].damage.warp_core: is not a damage field"),
    ((("ships", 0, "damage"), {"weapons": ["phaser"]}), "ships[0].damage.weapons[0]: 'phaser' is not a weapon key"),
    ((("ships", 1, "number"), -1), "ships[1].number: must be 0 to 2147483647, not -1"),
    # The name as the lobby's create takes it (a blank one imported), in the same words as a CAM rubber's
    # (tests/cam/test_exchange.py).
    ((("campaign", "name"), ""), "campaign.name: a campaign needs a name, not ''"),
    ((("campaign", "name"), " \t\n"), "campaign.name: a campaign needs a name, not ' \\t\\n'"),
    ((("campaign", "name"), "x" * 121), "campaign.name: a campaign name has at most 120 characters, not 121"),
    ((("campaign", "purpose"), 40000), "campaign.purpose: must be 0 to 32767, not 40000"),
    ((("empires", 0, "name"), "x" * 81), "empires[0].name: must be at most 80 characters, not 81"),
    ((("empires", 0, "colour"), "red"), "empires[0].colour: must be #rrggbb"),
    ((("empires", 0, "technologies"), ["warp_drive"]), "empires[0].technologies[0] 'warp_drive' is not one of"),
    ((("ships", 0, "design"), {"name": "Death Star", "library": True}),
     "ships[0].design: no library design named 'Death Star'"),
    (lambda d: _set(d, ("fleets", 1, "number"), d["fleets"][0]["number"]), "fleets[1]: fleet number"),
    (lambda d: _set(d, ("ships", 2, "number"), d["ships"][0]["number"]), "ships[2]: ship number"),
    (lambda d: _set(d, ("turns", 1, "number"), d["turns"][0]["number"]), "turns[1]: turn"),
    (lambda d: _set(d, ("dice_log", 0, "total"), 2**31), "dice_log[0].total: the number is outside"),
    (lambda d: _set(d, ("dice_log", 0, "faces"), "6,6"), "dice_log[0].faces must be a list"),
    (lambda d: _set(d, ("dice_log", 0, "concerns"), ["north"]), "dice_log[0].concerns must be a list of seats"),
    (lambda d: _set(d, ("dice_log", 0, "loaded"), True), "dice_log[0] does not have exactly the dice log fields"),
    (lambda d: _set(d, ("dice_log", 0, "total"), d["dice_log"][0]["total"] + 1), "the dice log does not verify"),
    (lambda d: _set(d, ("campaign", "dice_offset"), d["campaign"]["dice_offset"] + 1),
     "campaign.dice_offset is"),
    (lambda d: _set(d, ("campaign", "options"), {"economy_types": float("nan")}),
     "NaN is not a JSON number"),
    # The hostile-input probe: options the lobby and the moderation panel would refuse were stored
    # (every such case, and the same for a CAM rubber: test_import_options.py).
    (lambda d: _set(d, ("campaign", "options"), {"battle_book": []}),
     "campaign.options.battle_book: the rule book for battles must be a rule book's name, not []"),
    # The moderator's settings, as the lobby's create takes them (its limits and words,
    # campaign/eventhorizon/actions/lobby.py check_setting): their columns would take more.
    ((("campaign", "seats"), 9), "campaign.seats: a campaign needs 2 to 8 players, not 9"),
    ((("campaign", "seats"), "4"), "campaign.seats: a campaign needs 2 to 8 players, not '4'"),
    ((("campaign", "turn_hours"), 9000),
     "campaign.turn_hours: the turn length in hours must be a whole number from 0 to 8760, not 9000"),
    ((("campaign", "turn_hours"), 1.5),
     "campaign.turn_hours: the turn length in hours must be a whole number from 0 to 8760, not 1.5"),
    ((("campaign", "setup_hours"), -1),
     "campaign.setup_hours: the set-up deadline in hours must be a whole number from 0 to 8760, not -1"),
    ((("campaign", "detection_range"), 51),
     "campaign.detection_range: the detection range must be a whole number from 0 to 50, not 51"),
    ((("campaign", "missed_turn_limit"), True),
     "campaign.missed_turn_limit: the missed-turn limit must be a whole number from 0 to 100, not True"),
    ((("campaign", "battle_hours"), 2161),
     "campaign.battle_hours: the battle deadline in hours must be a whole number from 0 to 2160, not 2161"),
    ((("campaign", "activation_hours"), 721),
     "campaign.activation_hours: the activation deadline in hours must be a whole number from 0 to 720, not 721"),
    ((("campaign", "battle_mode"), "dice"),
     "campaign.battle_mode: the battle mode must be one of auto, tactical, tabletop, not 'dice'"),
    ((("campaign", "battle_requests"), "anyone"),
     "campaign.battle_requests: who may ask for a battle mode must be one of nobody, either, both, not 'anyone'"),
    ((("campaign", "deployment"), "random"),
     "campaign.deployment: deployment must be one of automatic, hand, not 'random'"),
    ((("campaign", "fog_of_war"), "yes"),
     "campaign.fog_of_war: fog of war must be on or off (true or false), not 'yes'"),
    ((("campaign", "listed"), 1),
     "campaign.listed: listing among the open campaigns must be on or off (true or false), not 1"),
    ((("campaign", "show_ready"), None),
     "campaign.show_ready: showing who is ready must be on or off (true or false), not None"),
    ((("campaign", "paused"), "no"), "campaign.paused: must be true or false, not 'no'"),
    ((("campaign", "paused_remaining"), -60), "campaign.paused_remaining: must be whole seconds ≥ 0 or null, not -60"),
    ((("campaign", "paused_remaining"), "1h"),
     "campaign.paused_remaining: must be whole seconds ≥ 0 or null, not '1h'"),
    ((("campaign", "deadline"), "2030-01-01T12:00:00"),
     "campaign.deadline: must be a date and time with its zone (ISO 8601), not '2030-01-01T12:00:00'"),
    ((("campaign", "deadline"), "next Tuesday"),
     "campaign.deadline: must be a date and time with its zone (ISO 8601), not 'next Tuesday'"),
    ((("campaign", "deadline"), 1893456000),
     "campaign.deadline: must be a date and time with its zone (ISO 8601), not 1893456000"),
    # at the ends of the calendar: in UTC, which the database stores, they are no date at all
    ((("campaign", "deadline"), "9999-12-31T23:59:59-05:00"),
     "campaign.deadline: must be a date and time with its zone (ISO 8601), not '9999-12-31T23:59:59-05:00'"),
    ((("campaign", "deadline"), "0001-01-01T00:00:00+05:00"),
     "campaign.deadline: must be a date and time with its zone (ISO 8601), not '0001-01-01T00:00:00+05:00'"),
    ((("campaign", "deadline"), "2030-01-01T12:00:00+00:00\u0000"), "NUL"),
]


@pytest.mark.parametrize(("change", "message"), CASES, ids=[m[:40] for _, m in CASES])
def test_a_bad_document_is_refused_naming_the_path_and_changes_nothing(exported, tmp_path, change, message):
    if callable(change):
        change(exported)
    else:
        _set(exported, *change)
    before = counts()
    with pytest.raises(CommandError) as caught:
        import_text(tmp_path, json.dumps(exported))
    assert message in str(caught.value)
    assert counts() == before


NAMES = ["  Orion Reach \t", "\n" + "x" * 120 + " "]  # spaces around; 120 characters once trimmed


@pytest.mark.parametrize("name", NAMES, ids=["padded", "120 once trimmed"])
def test_the_name_is_stored_trimmed_as_the_lobby_stores_it(exported, tmp_path, client, alice, name):
    """The lobby's create trims the spaces around a campaign's name (its form, its API and its action)
    and holds what is left to 120 characters; the import stored the file's name as given (spaces
    kept), and refused the second name, whose spaces took it over 120."""
    exported["campaign"]["name"] = name
    imported = Campaign.objects.get(pk=int(import_text(tmp_path, json.dumps(exported))))
    assert imported.name == name.strip()
    client.force_login(alice)
    assert client.post(reverse("lobby-create"), {**FORM, "name": name}).status_code == 302
    assert client.post("/api/lobby/", {"name": name, "width": 12, "height": 12, "seats": 2},
                       content_type="application/json").status_code == 201
    assert [c.name for c in Campaign.objects.filter(moderator=alice)] == [imported.name] * 2


def test_deep_nesting_is_refused_without_a_traceback(exported, tmp_path):
    text = json.dumps(exported)[:-1] + ', "extra": ' + DEEP + "}"
    before = counts()
    with pytest.raises(CommandError, match="nested more than 64 levels deep"):
        import_text(tmp_path, text)
    assert counts() == before


def test_a_number_too_long_to_read_is_refused(exported, tmp_path):
    text = json.dumps(exported).replace('"bp": ', '"bp": ' + "9" * 5000, 1)
    with pytest.raises(CommandError, match="is outside"):
        import_text(tmp_path, text)


def test_a_campaign_exported_today_imports_and_exports_the_same(exported, tmp_path):
    """A damaged ship and a banked fortune within the limits import as they were exported."""
    ship = Ship.objects.select_related("design").first()
    Ship.objects.filter(pk=ship.pk).update(damage={"hull": 1, "engine": 0, "weapons": [], "force_field_generators": 0,
                                                   "stealth": False, "boarding_parties": 0})
    Empire.objects.filter(seat=1).update(bp=2**31 - 1)
    path = tmp_path / "a.json"
    call_command("exportcampaign", str(Campaign.objects.get().pk), "--output", str(path), stdout=StringIO())
    new_id = import_text(tmp_path, path.read_text())
    again = tmp_path / "b.json"
    call_command("exportcampaign", new_id, "--output", str(again), stdout=StringIO())
    assert json.loads(again.read_text()) == json.loads(path.read_text())


# A moderator's choices, none of them the lobby's default (docs/export-format.md, ``campaign``).
CHOSEN = {"seats": 5, "turn_hours": 24, "setup_hours": 100, "detection_range": 4, "missed_turn_limit": 0,
          "battle_hours": 12, "activation_hours": 6, "battle_mode": "tactical", "battle_requests": "both",
          "deployment": "hand", "fog_of_war": False, "listed": True, "show_ready": False}


def _reexport(campaign_id, tmp_path, name) -> str:
    path = tmp_path / name
    call_command("exportcampaign", str(campaign_id), "--output", str(path), stdout=StringIO())
    return path.read_text()


def test_the_moderators_settings_and_the_clock_survive_the_round_trip(exported, tmp_path):
    """A moved or restored campaign runs with the settings its moderator chose, paused as it was,
    the open round closing when it did; exporting the copy gives the same bytes."""
    from datetime import UTC, datetime, timedelta

    original = Campaign.objects.get()
    deadline = datetime(2999, 1, 2, 3, 4, 5, 678900, tzinfo=UTC)  # still to come at the import
    Campaign.objects.filter(pk=original.pk).update(**CHOSEN, paused=True, paused_remaining=timedelta(hours=30))
    Turn.objects.filter(campaign=original, number=original.turn).update(deadline=deadline)
    first = _reexport(original.pk, tmp_path, "a.json")
    doc = json.loads(first)["campaign"]
    assert {key: doc[key] for key in CHOSEN} == CHOSEN
    clock = (doc["paused"], doc["paused_remaining"], doc["deadline"])
    assert clock == (True, 108000, "2999-01-02T03:04:05.678900+00:00")
    copy = Campaign.objects.get(pk=int(import_text(tmp_path, first)))
    assert {key: getattr(copy, key) for key in CHOSEN} == CHOSEN
    assert (copy.paused, copy.paused_remaining) == (True, timedelta(hours=30))
    assert copy.turns.get(number=copy.turn).deadline == deadline
    assert copy.invite_token and copy.invite_token != original.invite_token  # listed: a link of its own
    assert _reexport(copy.pk, tmp_path, "b.json") == first


def test_a_file_without_the_settings_imports_with_the_lobbys_defaults(exported, tmp_path):
    """A version-1 file written before the settings were exported."""
    for key in (*CHOSEN, "paused", "paused_remaining", "deadline"):
        exported["campaign"].pop(key)
    copy = Campaign.objects.get(pk=int(import_text(tmp_path, json.dumps(exported))))
    defaults = {key: Campaign._meta.get_field(key).get_default() for key in CHOSEN if key != "seats"}
    assert {key: getattr(copy, key) for key in defaults} == defaults
    assert copy.seats == len(exported["empires"])  # as many seats as the campaign had empires
    assert (copy.paused, copy.paused_remaining, copy.invite_token) == (False, None, "")
    assert copy.turns.get(number=copy.turn).deadline is None


def test_a_deadline_past_at_the_import_gives_the_round_its_whole_time_again(exported):
    """The players could not reach the campaign between its export and its import: a past deadline
    would settle the round at once. The round gets the time a round opened at the import gets;
    a paused campaign keeps its deadline (resuming sets it from the time left)."""
    from datetime import UTC, datetime, timedelta

    from campaign.eventhorizon.actions.campaigns import import_campaign

    now = datetime(2040, 6, 1, 12, 0, tzinfo=UTC)
    exported["campaign"].update(deadline="2040-05-31T12:00:00+00:00", turn_hours=10)
    copy = import_campaign(json.loads(json.dumps(exported)), now=now)
    assert copy.turns.get(number=copy.turn).deadline == now + timedelta(hours=10)
    exported["campaign"].update(paused=True, paused_remaining=3600)
    paused = import_campaign(json.loads(json.dumps(exported)), now=now)
    assert paused.turns.get(number=paused.turn).deadline == datetime(2040, 5, 31, 12, 0, tzinfo=UTC)
    exported["campaign"].update(paused=False, deadline="2040-06-02T09:00:00+00:00")
    later = import_campaign(json.loads(json.dumps(exported)), now=now)
    assert later.turns.get(number=later.turn).deadline == datetime(2040, 6, 2, 9, 0, tzinfo=UTC)
