"""The site menu's unread press count (issue 23 item 6): every page shows it, so it is kept in
the cache per user rather than counted on every request (the kept map page costs no more than
its access query: tests/eventhorizon/test_map_page.py).

What the count depends on moves these ways, each of which forgets it:

- a new message (any campaign's): ``message_posted`` moves one site-wide generation, part of
  every user's key (a message may be read by players, observers and moderators alike, and the
  generation costs no query to find them);
- the user's own read mark: ``read`` forgets that user's entry;
- a seat or a role changing hands: the entry lives ``SECONDS`` at most.

Both are done at once and again when the transaction commits, so a reader who counted between
the two cannot keep the old count.
"""

from __future__ import annotations

from django.core.cache import cache
from django.db import transaction
from django.utils.html import format_html

from . import visibility

SECONDS = 300
GENERATION = "sc-press-unread-gen"


def _key(user, generation) -> str:
    # date_joined: a user id used again (a deleted account's) does not find the old count.
    joined = user.date_joined.timestamp() if user.date_joined else 0
    return f"sc-press-unread:{user.pk}:{joined}:{generation}"


def _generation() -> int:
    return cache.get(GENERATION) or 0


def total(user) -> int:
    """The user's unread press over every campaign they take part in (0 for anonymous users)."""
    if not getattr(user, "is_authenticated", False):
        return 0
    key = _key(user, _generation())
    count = cache.get(key)
    if count is None:
        count = sum(visibility.unread_by_campaign(user).values())
        cache.set(key, count, SECONDS)
    return count


def by_campaign(user, only=None) -> dict[int, int]:
    """Campaign id -> unread press (``visibility.unread_by_campaign``; of the campaign ids ``only``
    when given), keeping their sum as the menu's count when it is over every campaign (the home
    page shows both)."""
    counts = visibility.unread_by_campaign(user, only)
    if only is None:
        cache.set(_key(user, _generation()), sum(counts.values()), SECONDS)
    return counts


def _bump() -> None:
    if not cache.add(GENERATION, 1, None):
        try:
            cache.incr(GENERATION)
        except ValueError:  # evicted between the two
            cache.set(GENERATION, 1, None)


def message_posted() -> None:
    _bump()
    transaction.on_commit(_bump)


def read(user) -> None:
    def forget():
        cache.delete(_key(user, _generation()))

    forget()
    transaction.on_commit(forget)


class MenuBadge:
    """The menu's "N new" after "Press", counted when a page first shows it."""

    def __init__(self, user):
        self.user = user
        self._html = None

    def __str__(self) -> str:
        if self._html is None:
            count = total(self.user)
            self._html = format_html(' <span class="pill" id="press-unread">{} new</span>', count) if count else ""
        return str(self._html)

    def __html__(self) -> str:
        return str(self)


def menu(request) -> dict:
    """Template context processor (config/settings.py): ``press_badge``."""
    return {"press_badge": MenuBadge(getattr(request, "user", None))}
