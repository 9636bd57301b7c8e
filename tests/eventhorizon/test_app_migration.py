"""Event Horizon's rows moved to an app of their own (issue 26 item 1): a database made by the code
before the move (commit 88de4d9) migrates forward with every row kept, and what it exports is the
export that code made of it.

The database before the move is built with the migrations of that day (``MigrationExecutor`` back
to each app's last migration at 88de4d9, so ``eventhorizon`` has none) and filled, through the
historical models of that state, with the rows ``manage.py setupdemo`` made at 88de4d9
(``fixtures/demo_rows_88de4d9.json``: its ``dumpdata``). Migrated forward, the demo campaign must
export exactly as ``exportcampaign`` exported it at 88de4d9 (``fixtures/demo_export_88de4d9.json``);
that export file must still import. Run on SQLite and on PostgreSQL (``DATABASE_URL``)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor

from campaign.eventhorizon.exchange import SETTINGS
from campaign.exports import as_text
from campaign.models import Campaign

FIXTURES = Path(__file__).parent / "fixtures"
ROWS = FIXTURES / "demo_rows_88de4d9.json"  # manage.py dumpdata after manage.py setupdemo, at 88de4d9
EXPORT = FIXTURES / "demo_export_88de4d9.json"  # manage.py exportcampaign 1 of that database, at 88de4d9



def without_added_keys(text: str) -> tuple[dict, dict]:
    """An export of today, and the keys of ``campaign`` added to version 1 after 88de4d9 (the
    moderator's settings and the clock: docs/export-format.md) taken out of it."""
    doc = json.loads(text)
    added = {key: doc["campaign"].pop(key) for key in (*SETTINGS, "paused", "paused_remaining", "deadline")}
    return doc, added


# Every app's last migration at 88de4d9: today's schema before Event Horizon had an app.
BEFORE = {
    "admin": "0003_logentry_add_action_flag_choices", "auth": "0012_alter_user_first_name_max_length",
    "cam": "0006_scenario_mode_default", "campaign": "0013_campaign_indexes_covered_by_unique",
    "contenttypes": "0002_remove_content_type_name", "mail": "0005_inbound_secret_hash",
    "press": "0002_public_ids", "sessions": "0001_initial", "tactical": "0009_whatif_chunks",
}
MOVED = ("mapcell", "world", "structure", "design", "fleet", "ship", "buildorder", "ordersecret")


def migrate_to_before():
    executor = MigrationExecutor(connection)
    # An app that had no migration then (eventhorizon, and any added since) is unapplied.
    targets = [(app, BEFORE.get(app)) for app in sorted(executor.loader.migrated_apps)]
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(list(BEFORE.items())).apps


def migrate_forward():
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def load_rows(apps, rows: list[dict]) -> None:
    """``rows`` (dumpdata's JSON) into the historical models, as loaddata would: raw saves, every
    value through its field's ``to_python``, foreign keys by id, in one transaction (the keys are
    checked at its end)."""
    with transaction.atomic():
        for row in rows:
            model = apps.get_model(row["model"])
            values = {}
            for name, value in row["fields"].items():
                field = model._meta.get_field(name)
                if field.many_to_many:
                    assert value == [], f"{row['model']}.{name}: the demo sets no many-to-many rows"
                elif field.is_relation:
                    values[field.attname] = value
                else:
                    values[field.attname] = field.to_python(value)
            model(pk=row["pk"], **values).save_base(raw=True)


def table_counts() -> dict[str, int]:
    with connection.cursor() as cursor:
        counts = {}
        for model in MOVED:
            cursor.execute(f"SELECT COUNT(*) FROM campaign_{model}")
            counts[model] = cursor.fetchone()[0]
    return counts


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_database_of_today_migrates_forward_and_exports_the_same(tmp_path):
    rows = json.loads(ROWS.read_text())
    campaign_id = next(r["pk"] for r in rows if r["model"] == "campaign.campaign")
    try:
        old = migrate_to_before()
        assert {m._meta.app_label for m in old.get_models()} >= {"campaign", "tactical"}
        assert "eventhorizon" not in {m._meta.app_label for m in old.get_models()}
        load_rows(old, rows)
        ContentType = old.get_model("contenttypes", "ContentType")
        for model in MOVED:  # as Django made them for the platform app's models
            ContentType.objects.get_or_create(app_label="campaign", model=model)
        before = table_counts()
        assert before["mapcell"] > 0 and before["ship"] > 0 and before["buildorder"] > 0
        migrate_forward()
    finally:
        migrate_forward()  # never leave the test database in the old schema
    # The tables kept their names and their rows: nothing was copied.
    assert table_counts() == before
    from campaign.eventhorizon.models import MapCell, Ship
    assert MapCell._meta.db_table == "campaign_mapcell" and MapCell._meta.app_label == "eventhorizon"
    assert Ship.objects.filter(campaign_id=campaign_id).count() == before["ship"]
    from django.contrib.contenttypes.models import ContentType as CurrentContentType
    labels = set(CurrentContentType.objects.filter(model__in=MOVED).values_list("app_label", flat=True))
    assert labels == {"eventhorizon"}  # admin history and permissions follow the models

    path = tmp_path / "after.json"
    call_command("exportcampaign", str(campaign_id), "--output", str(path), stdout=io.StringIO())
    doc, added = without_added_keys(path.read_text())
    assert doc == json.loads(EXPORT.read_text())
    assert as_text(doc) == EXPORT.read_text()
    from campaign.models import Turn
    campaign = Campaign.objects.get(pk=campaign_id)
    assert {key: getattr(campaign, key) for key in SETTINGS} == {key: added[key] for key in SETTINGS}
    deadline = Turn.objects.get(campaign=campaign, number=campaign.turn).deadline
    assert added["deadline"] == (deadline.isoformat() if deadline else None)


@pytest.mark.django_db
def test_an_export_file_of_today_still_imports(tmp_path, django_user_model):
    for name in ("moderator", "player1", "player2"):  # the demo's accounts, which the file names
        django_user_model.objects.create_user(name, password="pw")
    out = io.StringIO()
    call_command("importcampaign", str(EXPORT), stdout=out)
    new_id = out.getvalue().strip()
    path = tmp_path / "again.json"
    call_command("exportcampaign", new_id, "--output", str(path), stdout=io.StringIO())
    doc, added = without_added_keys(path.read_text())
    assert as_text(doc) == EXPORT.read_text()
    assert added == {**{key: Campaign._meta.get_field(key).get_default() for key in SETTINGS},
                     "seats": len(doc["empires"]), "paused": False, "paused_remaining": None, "deadline": None}
    call_command("verifydice", new_id, stdout=io.StringIO())
