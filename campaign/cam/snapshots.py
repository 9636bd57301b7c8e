"""Step snapshots of a CAM campaign, for the moderator's roll-back (as ``campaign/eventhorizon/snapshots.py``
does for Event Horizon turns).

``take`` stores the campaign's CAM rows — its ``CamCampaign`` settings and counters, players,
roster ships, scenarios and custom SDs — with the platform fields they move (``Campaign.status``,
``turn``, ``dice_offset``) and where the dice log ended, as one ``CamSnapshot`` row. It is called
by every action that closes a step and opens the next (``actions.common._next_step``), before
that action changes anything and in its transaction, so a refused action leaves no snapshot.

``restore`` rewrites the rows to a snapshot: the CAM rows are deleted and written back whole with
their primary keys (Django's serialisers, raw saves), the dice log is cut back to where it
stood (``campaign.dice._truncate_dice_log``, the one privileged path around the log's
append-only guard; docs/dice.md, "Roll-back"), and the snapshot and any later ones go. Repeating
the step re-reads the same dice stream words, so it rolls the same dice.

Who belongs to the campaign (memberships, the moderator) is not step state and is not touched.
"""

from __future__ import annotations

from django.core import serializers

from campaign.models import Campaign, DiceRoll

from .models import CamCampaign, CamPlayer, CamScenario, CamSD, CamShip, CamSnapshot

VERSION = 1


class SnapshotError(ValueError):
    pass


def _jsonable(value):
    # Full precision: Django's JSON serialiser would cut datetimes to milliseconds.
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _rows(queryset) -> list[dict]:
    return _jsonable(serializers.serialize("python", queryset.order_by("pk")))


def take(campaign: Campaign, cam: CamCampaign, label: str) -> CamSnapshot:
    """The CAM rows as they are in the database now (not ``cam``'s unsaved changes), stored as
    the snapshot of step ``cam.step``. The caller holds the campaign row lock."""
    last = DiceRoll.objects.filter(campaign=campaign).order_by("-seq").values_list("seq", "hash").first()
    data = {
        "version": VERSION,
        "campaign": {"status": campaign.status, "turn": campaign.turn, "dice_offset": campaign.dice_offset},
        "dice": {"seq": last[0] if last else 0, "hash": last[1] if last else campaign.seed_hash},
        "cam": _rows(CamCampaign.objects.filter(pk=cam.pk)),
        "sds": _rows(CamSD.objects.filter(cam=cam)),
        "players": _rows(CamPlayer.objects.filter(cam=cam)),
        "ships": _rows(CamShip.objects.filter(player__cam=cam)),
        "scenarios": _rows(CamScenario.objects.filter(cam=cam)),
    }
    CamSnapshot.objects.filter(cam=cam, step__gte=cam.step).delete()  # a step rolled back and made again
    return CamSnapshot.objects.create(cam=cam, step=cam.step, label=label[:120], data=data)


def restore(campaign: Campaign, snapshot: CamSnapshot) -> dict:
    """Rewrite the campaign's CAM rows to ``snapshot`` and cut the dice log back. The caller
    (``actions.moderation.roll_back_step``) holds the campaign row lock and runs inside its
    transaction. Returns what was undone, for the audit log."""
    from campaign import versioning
    from campaign.dice import _truncate_dice_log

    data = snapshot.data
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise SnapshotError("the step's snapshot is missing or of an unknown version")
    cam = campaign.cam
    undone = {"scenarios": CamScenario.objects.filter(cam=cam).count(),
              "ships": CamShip.objects.filter(player__cam=cam).count()}
    CamScenario.objects.filter(cam=cam).delete()
    CamPlayer.objects.filter(cam=cam).delete()  # their ships with them
    CamSD.objects.filter(cam=cam).delete()
    for key in ("cam", "sds", "players", "ships", "scenarios"):
        for obj in serializers.deserialize("python", data[key]):
            obj.save()
    c = data["campaign"]
    campaign.status, campaign.turn, campaign.dice_offset = c["status"], c["turn"], c["dice_offset"]
    campaign.save(update_fields=["status", "turn", "dice_offset"])
    CamSnapshot.objects.filter(cam_id=cam.pk, step__gte=snapshot.step).delete()
    versioning.bump(campaign.pk)  # bulk writes send no signals (campaign/versioning.py)
    return {"step": snapshot.step, "before": undone, "dice": _truncate_dice_log(campaign, data["dice"]["seq"])}
