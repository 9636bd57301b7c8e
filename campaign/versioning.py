"""The campaign's state version: a counter that moves with every write to its game state.

Pages and checks that read a campaign's state — the map page, the SVG map, the fleet list, the
state order submissions are checked against — are cached under keys that hold
``Campaign.state_version`` together with the campaign row's own fields (turn, status, options…).
Reading the row is one cheap query; the state behind it is many. Any write to the state moves the
counter in the same transaction, so a reader that sees the new state also sees the new version
and a cache entry never outlives what it was made from.

Writes reach the counter two ways:

- single-row saves of the state models (actions that save one row, a design created by a
  player) through the ``post_save`` receiver below;
- deletions and bulk writes (``bulk_create``, ``bulk_update``, queryset ``update``/``delete``,
  ``COPY``), which send no save signal, call ``bump`` themselves: ``adapters.save_state`` (every
  turn), ``snapshots.restore`` (roll-back), ``actions.admin_edit`` (every admin save and
  deletion, cascades included), campaign creation and import, and the demo commands. (No
  ``post_delete`` receiver: it would make Django load and signal every row of a queryset
  delete — a turn's destroyed ships — one by one.)

``tests/campaign/test_state_version.py`` runs a campaign through every kind of state write and
checks that whenever the loaded state changed, the version moved.
"""

from __future__ import annotations

from django.db.models import F
from django.db.models.signals import post_save

from .models import Campaign, Empire

# The platform's own state model; a campaign layer adds its own with ``connect`` (Event Horizon's
# worlds, structures, fleets, ships, builds and designs, from its AppConfig).
STATE_MODELS: list = [Empire]


def bump(campaign_id: int | None) -> None:
    """Move a campaign's state version (None: a library design changed, so every campaign's)."""
    rows = Campaign.objects.all() if campaign_id is None else Campaign.objects.filter(pk=campaign_id)
    rows.update(state_version=F("state_version") + 1)


def _changed(sender, instance, **kwargs) -> None:
    if kwargs.get("raw"):  # loaddata: fixtures carry their own versions
        return
    bump(instance.campaign_id)


def connect(*models) -> None:
    """Watch saves of ``models`` (with none: the platform's own), rows with a ``campaign_id``."""
    for model in models or (Empire,):
        if model not in STATE_MODELS:
            STATE_MODELS.append(model)
        post_save.connect(_changed, sender=model, dispatch_uid=f"state-version-save-{model.__name__}")
