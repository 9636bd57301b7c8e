"""Every CAM action, each called outside any transaction on PostgreSQL (issue 24 item 1).

On SQLite ``select_for_update`` is a no-op, and a test inside pytest's own transaction never sees
an action that forgot its ``@transaction.atomic``: add_custom_sd answered 500 on PostgreSQL
("select_for_update cannot be used outside of a transaction"). Here the test database commits
for real (``transaction=True``) and the walk below calls every public atomic action of
campaign/cam/actions/ (found by reading the source, so a new action must join the walk) at least
once in autocommit mode. Skipped on SQLite, required in the PostgreSQL pass (REQUIRE_SERVICES=1),
as tests/cam/test_pause_pg.py."""

import ast
import functools
import importlib
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from campaign import actions as platform
from campaign.cam import actions
from campaign.cam.exchange import export_rubber
from campaign.cam.models import CamShip
from campaign.models import Campaign
from tests.eventhorizon.test_concurrency_pg import _postgresql_only, _tasks_in_process  # noqa: F401

from .conftest import BOB_FLEET, make_cam, ship_numbers
from .test_actions import fight_to_forces

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

PACKAGE = Path(actions.__file__).parent


def atomic_actions() -> dict[str, str]:
    """{name: module} of every public function decorated ``@transaction.atomic`` in the package."""
    found = {}
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if (isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
                    and any(ast.unparse(d) == "transaction.atomic" for d in node.decorator_list)):
                found[node.name] = f"campaign.cam.actions.{path.stem}"
    return found


@pytest.fixture
def outside_a_transaction(monkeypatch):
    """The actions called with no transaction open (autocommit), recorded by name."""
    called = set()
    for name, module_name in atomic_actions().items():
        module = importlib.import_module(module_name)
        original = getattr(module, name)

        @functools.wraps(original)
        def recording(*args, _name=name, _original=original, **kwargs):
            if connection.get_autocommit():
                called.add(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, recording)
        if hasattr(actions, name):
            monkeypatch.setattr(actions, name, recording)
    return called


SD = {"key": "excelsior", "ship_class": "CA", "name": "CA USS 'Excelsior'", "speed": 7, "turning": 3,
      "target_size": 2, "shields": [4, 4, 4, 4], "hull": 9, "crippled_at": 5, "period_first": 2,
      "period_last": 5, "main": [[4, "Phaser", ""]]}


def test_every_cam_action_runs_outside_a_transaction_on_postgresql(outside_a_transaction, alice, bob, carol):
    assert {"add_custom_sd", "create_cam_campaign", "select_forces", "roll_back_step"} <= set(atomic_actions())
    c = make_cam(alice, bob, carol, start=False)
    Campaign.objects.filter(pk=c.pk).update(turn_hours=72)  # steps with deadlines (the reminder, the sweep)
    actions.set_starting_fleet(campaign_id=c.pk, user=bob, fleet=BOB_FLEET)
    actions.add_custom_sd(campaign_id=c.pk, user=alice, fields=SD)
    actions.start(campaign_id=c.pk, user=alice)
    # scenario 1 (CAM 2.1 – 3.1), a rejected result, then confirmed
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    fight_to_forces(c, bob, carol)
    b = ship_numbers(c, 1)
    actions.enter_turn(campaign_id=c.pk, user=bob, destroyed=[f"ship:{b[0]}"])
    actions.enter_turn(campaign_id=c.pk, user=carol)
    actions.propose_end(campaign_id=c.pk, user=carol)
    actions.reject_result(campaign_id=c.pk, user=bob)
    actions.propose_end(campaign_id=c.pk, user=carol)
    actions.confirm_result(campaign_id=c.pk, user=bob)
    # CAM 4.2: bob's request, then the moderator makes the step
    actions.submit_replacements(campaign_id=c.pk, user=bob, requests=[{"replaces": b[0], "sd": "constitution"}])
    actions.run_between(campaign_id=c.pk, user=alice)
    # scenario 2, auto-resolved (ruling CAM26): the rubber ends
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    ready = list(CamShip.objects.filter(player__cam=c.cam, player__seat=1, status="ready")
                 .values_list("number", flat=True))
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ready[:2])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    actions.roll_table(campaign_id=c.pk, user=carol)
    actions.autoresolve(campaign_id=c.pk, user=alice)
    # the moderator rolls the last step back (the rubber reopens, paused), then resumes it
    actions.roll_back_step(campaign_id=c.pk, user=alice)
    platform.resume_campaign(campaign_id=c.pk, user=alice)
    c.cam.refresh_from_db()
    actions.send_step_reminder(campaign_id=c.pk, now=c.cam.deadline - timezone.timedelta(minutes=30))
    actions.process_due_step(campaign_id=c.pk, now=c.cam.deadline + timezone.timedelta(minutes=1))
    actions.create_cam_lobby(moderator=alice, name="Lobby rubber", period=2, starting_points=100)
    actions.import_rubber(export_rubber(Campaign.objects.get(pk=c.pk)))  # a copy of the rubber
    assert outside_a_transaction == set(atomic_actions()), sorted(set(atomic_actions()) - outside_a_transaction)
