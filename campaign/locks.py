"""Row locks on a campaign, taken in ONE order everywhere (docs/online-play.md, "Locking order").

A transaction that locks more than one of these rows takes them from the top down:

    1. the campaign row                          ``campaign(pk)``
    2. the turn row                              ``turn(campaign_id, number)``
    3. rows under them: a turn's orders, empires, battles, memberships, invitations, press
                                                 ``rows(queryset)``

Levels may be skipped (storing orders takes only the turn row, so one campaign's players do not
queue behind each other; setting a battle preference only the empire row; orders sent as text the
turn row, and the campaign row before it when they also save a design or a battle preference,
which move the campaign's state version), but a transaction
that holds a lower lock never asks for a higher one afterwards. Two transactions then always
wait in the same direction and cannot deadlock: whoever holds the campaign row goes first.

Why it is written down: issue 14 found ``mark_ready`` locking the turn row and then, by an
implicit join, the campaign row, while ``process_turn`` locks the campaign row and then the
turn row — "deadlock detected" on PostgreSQL for players marking ready as the turn task ran.

A plain ``Campaign.objects.select_for_update()`` is level 1 as well (Campaign orders by its own
fields, so nothing is joined); the moderation, lobby, notification and battle actions take it so.

Every lock here names its own table only (``of=("self",)``) and drops the default ordering: a
model whose ``Meta.ordering`` starts with a foreign key (Turn, Empire, Membership… order by
"campaign") joins the campaign table, and a plain ``SELECT … FOR UPDATE`` would lock the
campaign row as well — out of order. Raw SQL that locks (Event Horizon's ``actions.orders._revise_orders``,
``_store_orders``, in its app) names one table and follows the same order. SQLite ignores row locks
(it serialises writes to the whole file), so none of this changes anything there.
"""

from __future__ import annotations

from .models import Campaign, Turn


def rows(queryset):
    """``queryset`` locked FOR UPDATE on its own table only, without the default ordering (so
    no join is added for it). ``.first()`` on the result orders by primary key."""
    return queryset.select_for_update(of=("self",)).order_by()


def campaign(campaign_id: int, queryset=None) -> Campaign | None:
    """Level 1: the campaign row (None if there is none; ``queryset`` narrows the search, e.g.
    to one layer)."""
    return rows((Campaign.objects if queryset is None else queryset).filter(pk=campaign_id)).first()


def turn(campaign_id: int, number: int, **filters) -> Turn | None:
    """Level 2: turn ``number``'s row (None if there is none). Take the campaign row first if
    this transaction needs it at all."""
    return rows(Turn.objects.filter(campaign_id=campaign_id, number=number, **filters)).first()
