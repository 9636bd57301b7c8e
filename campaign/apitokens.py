"""API tokens hashed at rest.

A key is 40 hex characters from ``secrets`` (the form DRF's keys had, so keys made before the
change keep working: the migration stored their digests). Only SHA-256 of the key is stored — a
key has 160 random bits, so a fast hash is enough and the lookup stays one indexed query. The key
is shown once, in the answer or page that made it.

A token unused for ``API_TOKEN_IDLE_DAYS`` (default 90; 0: never) stops working; ``last_used`` is
written at most once per ``LAST_USED_RESOLUTION`` so an API call costs no write."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from .models import ApiToken

LAST_USED_RESOLUTION = timedelta(hours=1)
TOKENS_PER_USER = 20


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def new_key() -> str:
    return secrets.token_hex(20)


def idle_limit() -> timedelta | None:
    days = getattr(settings, "API_TOKEN_IDLE_DAYS", 90)
    return timedelta(days=days) if days else None


def expired(token: ApiToken, now=None) -> bool:
    limit = idle_limit()
    if limit is None:
        return False
    return (token.last_used or token.created) < (now or timezone.now()) - limit


def expires_at(token: ApiToken):
    limit = idle_limit()
    return None if limit is None else (token.last_used or token.created) + limit


def touch(token: ApiToken, now=None) -> None:
    """Note that the token was used, at most once per LAST_USED_RESOLUTION (a conditional update:
    two requests at once write once)."""
    now = now or timezone.now()
    if token.last_used is None or token.last_used < now - LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).exclude(last_used__gte=now - LAST_USED_RESOLUTION).update(last_used=now)
        token.last_used = now
