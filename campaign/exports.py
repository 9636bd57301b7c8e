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
from collections.abc import Callable

from . import layers, sanitise
from .access import role_of, visible_campaigns
from .actions.campaigns import BOOK_OPTION, DEFAULT_OPTIONS, check_battle_book
from .actions.errors import ActionError, NotAllowed, NotFound
from .dice import entry_fields
from .models import Campaign, Membership
from .rules import dicelog


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


def check_name(campaign, error: type[Exception]) -> None:
    """What every layer's import checks of ``campaign.name``, as the lobby's create takes it: the
    name trimmed of the spaces around it (the lobby's form field, its API serializer and its
    create actions all strip it), then not blank and at most the column's characters. The trimmed
    name replaces the file's in ``campaign``, so the import stores what the lobby would have. Its
    type is the layer's column check. Raises ``error`` naming ``campaign.name``."""
    name = campaign.get("name") if isinstance(campaign, dict) else None
    if not isinstance(name, str):
        return
    limit = Campaign._meta.get_field("name").max_length
    trimmed = name.strip()
    if not trimmed:
        raise error(f"campaign.name: a campaign needs a name, not {_shown(name)}")
    if len(trimmed) > limit:
        raise error(f"campaign.name: a campaign name has at most {limit} characters, not {len(trimmed)}")
    campaign["name"] = trimmed


def check_options(layer_key: str, options, error: type[Exception]) -> dict:
    """What every layer's import checks of a campaign's rule options (``campaign.options``), so
    that a file stores none its lobby would refuse: an object holding only the keys the layer's
    record takes (``CampaignLayer.options``); each of the type of its default (``DEFAULT_OPTIONS``,
    as the lobby's create action holds it): a switch true or false; the rule book for battles
    (issue 31) one the site can fight the layer's battles on (``check_battle_book``; "" its own).
    Text with a NUL or a lone surrogate and numbers out of range were refused by
    ``check_envelope``. Raises ``error`` naming ``campaign.options`` and the key; returns the
    options."""
    layer = layers.get(layer_key)
    if not isinstance(options, dict):
        raise error(f"campaign.options: must be an object, not {_shown(options)}")
    for key in sorted(options, key=lambda k: (k in layer.options, k)):  # an unknown key first
        where, value = f"campaign.options.{key}", options[key]
        if key not in layer.options:
            raise error(f"{where}: unknown option ({layer.title}'s options: "
                        f"{', '.join(sorted(layer.options)) or 'none'})")
        if key == BOOK_OPTION:
            try:
                check_battle_book(layer_key, value)
            except ActionError as exc:
                raise error(f"{where}: {exc}") from None
            continue
        default = DEFAULT_OPTIONS[key]
        if type(value) is not type(default):
            kind = "true or false" if isinstance(default, bool) else type(default).__name__
            raise error(f"{where}: must be {kind}, not {_shown(value)}")
    return options


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_dice_log(rows: list, *, seed: bytes, seed_hash: str, dice_offset: int, error: type[Exception],
                   check_fields: Callable[[dict, str], None]) -> list[dict]:
    """What every layer's import checks of the dice log (docs/dice.md): each row an object of
    exactly the log's fields (``check_fields(row, where)`` holds them to their columns), the log
    verifying against the seed, and the campaign's stream offset where the log ends. Raises
    ``error`` naming the problem; returns the rows as the site stores them (rows from before hash
    version 2 get their concerns and version filled in)."""
    entries = []
    for i, row in enumerate(rows):
        where = f"dice_log[{i}]"
        if not isinstance(row, dict):
            raise error(f"{where} must be an object")
        concerns = row.get("concerns", [])
        if not isinstance(concerns, list) or not all(type(seat) is int for seat in concerns):
            raise error(f"{where}.concerns must be a list of seats")
        if not isinstance(row.get("faces"), list):
            raise error(f"{where}.faces must be a list")
        check_fields(row, where)
        try:
            entries.append(dicelog.LogEntry(**{**row, "faces": tuple(row["faces"]), "concerns": tuple(concerns)}))
        except TypeError:
            raise error(f"{where} does not have exactly the dice log fields") from None
    try:
        mismatch = dicelog.verify(seed, seed_hash, entries)
    except (TypeError, ValueError, AttributeError):
        raise error("the dice log holds a field of the wrong type") from None
    if mismatch is not None:
        raise error(f"the dice log does not verify: {mismatch}")
    expected_offset = entries[-1].offset + entries[-1].words if entries else 0
    if dice_offset != expected_offset:
        raise error(f"campaign.dice_offset is {dice_offset}, the log ends at {expected_offset}")
    return [entry_fields(entry) for entry in entries]


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
