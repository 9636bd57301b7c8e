"""One-query look-ups for the requests a campaign host serves most: who is asking (session or
token) and what they may see of one campaign.

Building an ORM query costs far more CPU than running it (about 0.4 ms against 0.07 ms for a
primary-key read on our host, see docs/benchmarks.md), and every page and API call starts with
the same few reads. These are written once as plain SQL that runs unchanged on SQLite and
PostgreSQL, and their rows become ordinary model instances through the model fields' own database
converters (``Model.from_db``), exactly what the ORM would have built: the rest of the code cannot
tell the difference (``tests/campaign/test_lookups.py`` compares them field by field on both databases).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import connections, models, router

from .models import Campaign, Empire, Membership

_COLUMNS: dict[tuple[type[models.Model], str], tuple[list[str], list, int]] = {}


def _layout(model: type[models.Model], alias: str) -> tuple[list[str], list, int]:
    """(attribute names, converters per field, index of the primary key) of a model's concrete
    fields on a connection."""
    key = (model, alias)
    if key not in _COLUMNS:
        connection = connections[alias]
        names, converters = [], []
        for field in model._meta.concrete_fields:
            col = field.get_col(model._meta.db_table)
            names.append(field.attname)
            converters.append([(c, col) for c in
                               connection.ops.get_db_converters(col) + col.get_db_converters(connection)])
        _COLUMNS[key] = (names, converters, names.index(model._meta.pk.attname))
    return _COLUMNS[key]


_SELECTS: dict[tuple, str] = {}


def columns(model: type[models.Model], table_alias: str | None, alias: str = "default",
            omit: str | None = None) -> str:
    """The SELECT list of a model's concrete columns, in field order, from ``table_alias`` (None:
    unqualified, as a RETURNING clause wants them), without the field ``omit`` if named. Made
    once per model and alias."""
    key = (model, table_alias, alias, omit)
    if key not in _SELECTS:
        quote = connections[alias].ops.quote_name
        prefix = f"{table_alias}." if table_alias else ""
        _SELECTS[key] = ", ".join(f"{prefix}{quote(f.column)}" for f in model._meta.concrete_fields
                                  if f.attname != omit)
    return _SELECTS[key]


def instance(model: type[models.Model], values, alias: str = "default", omit: str | None = None,
             omitted=None):
    """A model instance from its columns as the database returned them (None if the primary key
    is NULL: an outer join found nothing). ``omit``: the field left out of ``columns``, whose value
    the caller knows already (``omitted``: the orders just stored, say, not decoded back)."""
    names, converters, pk_index = _layout(model, alias)
    if omit is not None:
        at = names.index(omit)
        values = [*values[:at], None, *values[at:]]
    out = []
    connection = connections[alias]
    for i, (value, convs) in enumerate(zip(values, converters, strict=True)):
        if omit is not None and i == at:
            out.append(omitted)
            continue
        for convert, col in convs:  # as the ORM's compiler does: every converter, NULLs included
            value = convert(value, col, connection)
        out.append(value)
    if out[pk_index] is None:
        return None
    return model.from_db(alias, names, out)


def _width(model: type[models.Model]) -> int:
    return len(model._meta.concrete_fields)


# --- who is asking ------------------------------------------------------------------------------

def user_by_id(user_id) -> models.Model | None:
    """The user with this primary key (what ``ModelBackend.get_user`` reads on every request)."""
    User = get_user_model()
    alias = router.db_for_read(User)
    sql = f"SELECT {columns(User, 'u', alias)} FROM {User._meta.db_table} u WHERE u.id = %s"
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, [User._meta.pk.to_python(user_id)])
        row = cursor.fetchone()
    return instance(User, row, alias) if row else None


def user_and_token(key: str):
    """(user, token) for an API token key, or None: the key's digest looked up with its user in
    one query (campaign/apitokens.py; the key itself is stored nowhere)."""
    from .apitokens import digest
    from .models import ApiToken

    User = get_user_model()
    alias = router.db_for_read(ApiToken)
    sql = (f"SELECT {columns(ApiToken, 't', alias)}, {columns(User, 'u', alias)} "
           f"FROM {ApiToken._meta.db_table} t JOIN {User._meta.db_table} u ON u.id = t.user_id WHERE t.digest = %s")
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, [digest(key)])
        row = cursor.fetchone()
    if row is None:
        return None
    n = _width(ApiToken)
    token, user = instance(ApiToken, row[:n], alias), instance(User, row[n:], alias)
    token._state.fields_cache["user"] = user
    return user, token


# --- what they may see of one campaign ------------------------------------------------------------

@dataclass(frozen=True)
class CampaignAccess:
    """One user's standing in one campaign, read in one query: the campaign row, the role
    (``access.role_of``'s answer) and the empire they play (``access.empire_of``'s), if any."""

    campaign: Campaign
    role: str
    empire: Empire | None


def campaign_access(user, campaign_id, *, layer: str | None = None) -> CampaignAccess | None:
    """The campaign ``campaign_id`` as ``user`` may see it, or None when they may not (an outsider,
    an anonymous user, no such campaign, or not of ``layer``). Same answers as
    ``visible_campaigns`` + ``role_of`` + ``empire_of``, in one query."""
    if not getattr(user, "is_authenticated", False):
        return None
    try:
        campaign_id = int(campaign_id)
    except (TypeError, ValueError):
        return None
    if not 0 < campaign_id < 2**63:  # no such row; SQLite would refuse the number outright
        return None
    alias = router.db_for_read(Campaign)
    m = Membership._meta.db_table
    sql = (
        f"SELECT {columns(Campaign, 'c', alias)}, {columns(Empire, 'e', alias)}, "
        f"EXISTS (SELECT 1 FROM {m} m WHERE m.campaign_id = c.id AND m.user_id = %(u)s AND m.role = %(mod)s), "
        f"EXISTS (SELECT 1 FROM {m} m WHERE m.campaign_id = c.id AND m.user_id = %(u)s AND m.role = %(player)s), "
        f"EXISTS (SELECT 1 FROM {m} m WHERE m.campaign_id = c.id AND m.user_id = %(u)s AND m.role = %(observer)s) "
        f"FROM {Campaign._meta.db_table} c "
        f"LEFT JOIN {Empire._meta.db_table} e ON e.id = (SELECT e2.id FROM {Empire._meta.db_table} e2 "
        f"  WHERE e2.campaign_id = c.id AND e2.user_id = %(u)s ORDER BY e2.seat, e2.id LIMIT 1) "
        f"WHERE c.id = %(c)s"
    )
    params = {"u": user.pk, "c": campaign_id, "mod": Membership.Role.MODERATOR,
              "player": Membership.Role.PLAYER, "observer": Membership.Role.OBSERVER}
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    nc, ne = _width(Campaign), _width(Empire)
    campaign = instance(Campaign, row[:nc], alias)
    empire = instance(Empire, row[nc:nc + ne], alias)
    is_mod, is_player, is_observer = (bool(v) for v in row[nc + ne:])
    if layer is not None and campaign.layer != layer:
        return None
    if campaign.moderator_id == user.pk or is_mod:
        role = Membership.Role.MODERATOR
    elif is_player or empire is not None:
        role = Membership.Role.PLAYER
    elif is_observer:
        role = Membership.Role.OBSERVER
    else:
        return None
    if empire is not None:
        empire._state.fields_cache["campaign"] = campaign
    return CampaignAccess(campaign, role, empire)
