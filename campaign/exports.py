"""A campaign's export (docs/export-format.md), for ``exportcampaign``, the web and the API
(issue 23 item 11). The platform reaches the layer's export only through its record
(``CampaignLayer.export``, campaign/layers.py).

Who may download it on the web and the API: the campaign's moderators; its players too once
the campaign has ended and its seed is revealed. An outsider gets 404 (``NotFound``), a player
or observer of a running campaign 403 (``NotAllowed``), as on the moderation pages. A layer
without an export answers 404 too. While the campaign runs, the file from the web or the API
holds no dice seed (``dice_seed`` is null): the seed predicts every roll to come, and a
moderator may play a seat. ``exportcampaign`` on the server writes the whole file.
"""

from __future__ import annotations

import json

from . import layers, sanitise
from .access import role_of, visible_campaigns
from .actions.errors import NotAllowed, NotFound
from .models import Campaign, Membership


class NoExport(LookupError):
    """The campaign's layer has no export."""


FORMAT = "sector-command/campaign"


def check_envelope(doc, version: int, error: type[Exception]) -> dict:
    """What every layer's import checks first: text without NUL bytes or lone surrogates, bounded
    depth and numbers (``sanitise.check``), one JSON object of this site's format and the layer's
    version. Raises ``error`` naming the problem; returns the document."""
    try:
        sanitise.check(doc, "")
    except sanitise.HostileInput as exc:
        raise error(str(exc) if exc.where else f"the document: {exc.problem}") from None
    if not isinstance(doc, dict):
        raise error("an export file must hold one JSON object")
    if doc.get("format") != FORMAT:
        raise error(f"not a Sector Command campaign export (format should be '{FORMAT}')")
    if doc.get("version") != version:
        raise error(f"export version {doc.get('version')!r} is not supported (only {version})")
    return doc


def export(campaign: Campaign, *, with_seed: bool = True) -> dict:
    layer = layers.of(campaign)
    if layer.export is None:
        raise NoExport(f"campaign {campaign.pk} is a {layer.title}, which has no export yet")
    data = layer.export(campaign)
    if not with_seed and campaign.revealed_seed is None and isinstance(data.get("campaign"), dict) \
            and "dice_seed" in data["campaign"]:
        data["campaign"]["dice_seed"] = None
    return data


def as_text(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def for_user(user, campaign_id: int) -> dict:
    """The export ``user`` may download (the rules above)."""
    campaign = visible_campaigns(user).filter(pk=campaign_id).first()
    if campaign is None or layers.of(campaign).export is None:
        raise NotFound("no such campaign")
    role = role_of(user, campaign)
    ended = campaign.revealed_seed is not None
    if not (role == Membership.Role.MODERATOR or (ended and role == Membership.Role.PLAYER)):
        raise NotAllowed("only the campaign's moderators export it while it runs; its players may once it has "
                         "ended and its seed is revealed")
    return export(campaign, with_seed=False)
