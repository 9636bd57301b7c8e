"""The management commands: newcampaign, showmap, exportcampaign, importcampaign, setupdemo."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign.eventhorizon.models import MapCell, World
from campaign.models import Campaign, DiceRoll
from tests.shared_rows import shared_rows

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_newcampaign_prints_the_new_id():
    out = run("newcampaign", "--name", "Cmd", "--grid", "square", "--size", "30x20", "--players", "3", "--seed", "7")
    campaign = Campaign.objects.get()
    assert out.strip() == str(campaign.pk)
    assert (campaign.grid, campaign.width, campaign.height, campaign.empires.count()) == ("square", 30, 20, 3)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--size", "40"], "WIDTHxHEIGHT"),
        (["--size", "0x10"], "not 0"),
        (["--size", "300x300"], "300"),
        (["--players", "9"], "2 to 8 players"),
        (["--size", "2x2", "--players", "8"], "players need"),
    ],
)
def test_newcampaign_refuses_bad_input(args, message):
    with pytest.raises(CommandError, match=message):
        run("newcampaign", "--name", "Bad", *args)
    assert Campaign.objects.count() == 0 and MapCell.objects.count() == 0


def test_showmap_prints_a_40_by_40_map():  # 003 Creating a Map
    cid = run("newcampaign", "--name", "Big", "--size", "40x40", "--players", "8", "--seed", "1").strip()
    out = run("showmap", cid).splitlines()
    rows = out[1:41]
    assert len(rows) == 40
    assert all(len(row.split()) == 40 for row in rows)
    assert all(row.startswith(" ") for row in rows[1::2])  # hex rows: odd rows indented
    text = "\n".join(rows)
    for seat in "12345678":
        assert text.count(seat) == 1
    assert "legend" in out[-1].lower() or "black hole" in out[-1]


def export(cid, tmp_path, name):
    path = tmp_path / name
    call_command("exportcampaign", str(cid), "--output", str(path))
    return path


def _tamper(doc, how):
    if how == "format":
        doc["format"] = "something-else"
    elif how == "dice":
        doc["dice_log"][2]["faces"][0] = doc["dice_log"][2]["faces"][0] % 20 + 1
    elif how == "map":
        doc["map"][0] = doc["map"][0][:-1]
    elif how == "world":
        doc["worlds"][0]["x"] = 999
    elif how == "seat":
        doc["structures"][0]["owner"] = 7
    elif how == "design":
        doc["designs"] = [
            {"owner": 1, "name": "X", "spec": {"name": "X", "ship_type": "frigate", "hull": 13, "engine": 1}}
        ]
    elif how == "type":
        doc["empires"][0]["bp"] = "lots"
    elif how == "negative":
        doc["empires"][0]["bp"] = -5
    elif how == "resource":
        doc["structures"][0]["resource"] = "death_star"
    elif how == "seed":
        doc["campaign"]["dice_seed"] = "zz"
    elif how == "concerns":
        doc["dice_log"][0]["concerns"] = "seat 1"
    return doc


@pytest.fixture(scope="class")
def _demo(django_db_setup, django_db_blocker):
    """setupdemo (the set-up round and three turns played) once for the class's tests, which only
    read the demo campaign or write in their own savepoint (tests/shared_rows.py)."""
    with shared_rows(django_db_blocker):
        call_command("setupdemo", stdout=StringIO())
        yield


@pytest.mark.usefixtures("_demo")
class TestOnTheDemoCampaign:
    def test_export_import_export_is_identical(self, tmp_path):  # docs/export-format.md
        original = Campaign.objects.get(name="Demo Sector")
        first = export(original.pk, tmp_path, "a.json")
        new_id = run("importcampaign", str(first)).strip()
        assert new_id != str(original.pk)
        second = export(new_id, tmp_path, "b.json")
        assert first.read_text() == second.read_text()
        doc = json.loads(first.read_text())
        assert doc["format"] == "sector-command/campaign" and doc["version"] == 1
        assert doc["builds"] and doc["structures"] and doc["dice_log"]
        run("verifydice", new_id)

    def test_an_export_from_before_salted_hashes_still_imports_and_goes_on(self, tmp_path):  # docs/dice.md
        from dataclasses import replace

        from campaign.rules import dicelog

        doc = json.loads(export(Campaign.objects.get(name="Demo Sector").pk, tmp_path, "a.json").read_text())
        prev = doc["campaign"]["seed_hash"]
        for row in doc["dice_log"]:  # as exported before rolls recorded whom they concern
            del row["concerns"], row["hash_version"]
            entry = dicelog.LogEntry(**{**row, "faces": tuple(row["faces"]), "prev_hash": prev})
            row.update(prev_hash=prev, hash=dicelog.entry_hash(replace(entry, hash_version=dicelog.HASH_UNSALTED)))
            prev = row["hash"]
        old = tmp_path / "old.json"
        old.write_text(json.dumps(doc))
        new_id = run("importcampaign", str(old)).strip()
        rows = DiceRoll.objects.filter(campaign_id=new_id)
        assert set(rows.values_list("hash_version", flat=True)) == {1} and not rows.exclude(concerns=[]).exists()
        count = rows.count()
        run("playturns", new_id, "--turns", "1")
        assert set(rows.filter(seq__gt=count).values_list("hash_version", flat=True)) == {2}
        run("verifydice", new_id)

    @pytest.mark.parametrize(
        "how,message",
        [
            ("format", "not a Sector Command campaign export"),
            ("dice", "dice log does not verify"),
            ("map", "map must be"),
            ("world", "does not match the map"),
            ("seat", "seat 7"),
            ("design", "hull strength"),
            ("type", "bp must be int"),
            ("negative", "cannot be negative"),
            ("seed", "hexadecimal"),
            ("resource", "death_star"),
            ("concerns", r"dice_log\[0\]\.concerns must be a list of seats"),
        ],
    )
    def test_import_refuses_a_malformed_file_and_changes_nothing(self, tmp_path, how, message):
        path = export(Campaign.objects.get().pk, tmp_path, "a.json")
        doc = _tamper(json.loads(path.read_text()), how)
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(doc))
        counts = (Campaign.objects.count(), World.objects.count(), DiceRoll.objects.count())
        with pytest.raises(CommandError, match=message):
            run("importcampaign", str(bad))
        assert (Campaign.objects.count(), World.objects.count(), DiceRoll.objects.count()) == counts


def test_import_refuses_what_is_not_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CommandError, match="not valid JSON"):
        run("importcampaign", str(bad))
    with pytest.raises(CommandError, match="cannot read"):
        run("importcampaign", str(tmp_path / "missing.json"))
    bad.write_text("[1, 2]")
    with pytest.raises(CommandError, match="one JSON object"):
        run("importcampaign", str(bad))
    assert Campaign.objects.count() == 0


def test_setupdemo_builds_a_ready_demo_once():
    out = run("setupdemo", "--url", "http://127.0.0.1:9000/")
    assert "http://127.0.0.1:9000/accounts/login/" in out and "sector-demo" in out
    campaign = Campaign.objects.get(name="Demo Sector")
    assert campaign.empires.filter(user__username="player1").exists()
    # The set-up round and three turns played: every empire bought its set-up fleet (003 Set Up).
    assert campaign.turn == 4
    assert set(campaign.ships.values_list("owner__seat", flat=True)) == {1, 2, 3, 4}
    again = run("setupdemo")
    assert "already exists" in again and Campaign.objects.count() == 1


# the demo's emails are sent when its transaction commits
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_setupdemo_prints_where_to_log_in_last_after_its_emails(capsys, settings, eager_tasks):
    """Issue 13 item 25: the demo's emails (sent when its transaction commits) come before the
    log-in lines, which are the command's last output (`make run` starts the server next)."""
    import sys

    from django.core.cache import cache

    cache.clear()  # a transactional test reuses ids: nothing cached for an earlier campaign 1
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"  # prints to stdout
    call_command("setupdemo", "--url", "http://127.0.0.1:8765/", stdout=sys.stdout)
    out = capsys.readouterr().out
    assert "Subject:" in out  # the demo's turns did send emails
    assert out.rindex("Subject:") < out.index("Log in at http://127.0.0.1:8765/accounts/login/")
    assert out.rstrip().splitlines()[-1].strip() == (
        "password 'sector-demo'. The moderator can also use http://127.0.0.1:8765/admin/.")
    assert "printed in the server's output" in out


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_setupdemo_says_where_the_file_backend_keeps_emails(settings, tmp_path, eager_tasks):
    from django.core.cache import cache

    cache.clear()
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    out = run("setupdemo")
    assert f"Emails the site sends are written to {tmp_path / 'mail'}/." in out
    assert any((tmp_path / "mail").iterdir())  # the demo's emails are there, not on the console
