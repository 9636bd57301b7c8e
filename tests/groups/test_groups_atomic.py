"""The groups app's modules of actions (campaign/groups/away.py, webhooks.py, calendar.py,
events.py) follow tests/test_actions_atomic.py's rule too, though not named "actions": the
decorator on the public action, never on a private helper, and no public function writing
outside a transaction."""

from pathlib import Path

from tests.test_actions_atomic import ROOT, misplaced_atomic

MODULES = {f"campaign.groups.{name}": ROOT / "campaign" / "groups" / f"{name}.py"
           for name in ("away", "webhooks", "calendar", "events")}


def test_the_groups_actions_are_atomic_where_they_write():
    assert all(isinstance(p, Path) and p.exists() for p in MODULES.values())
    wrong, hooks = misplaced_atomic(MODULES)
    assert wrong == [] and hooks == set()
