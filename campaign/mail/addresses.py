"""Signed reply addresses: ``<prefix>+<n>.<n>…<signature>@MAIL_DOMAIN``.

An app that wants replies to one of its emails routed back to it gives that email such an address
as Reply-To and registers a handler for the prefix (``routing.register``). The signature is an
HMAC of the prefix and the numbers keyed by ``SECRET_KEY`` (80 bits, hex), so no one can make an
address for another campaign, scenario or user. Mail systems may change the case of a local part:
the address is lower case and read without regard to case. The MTA must deliver
``<anything>+<tag>@MAIL_DOMAIN`` to the site (subaddressing; docs/mail.md). Press signs its
addresses here too, with the salt and form it always had (``campaign/press/replies.py``), so the
addresses in players' inboxes still verify.

Addresses are made with ``SECRET_KEY`` and verified against it and every key in
``SECRET_KEY_FALLBACKS``: rotating the key (the old one kept as a fallback for a while) does not
break the reply addresses already sent.
"""

from __future__ import annotations

import re
from email.utils import parseaddr

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

SALT = "campaign.mail.reply-address"
SIGNATURE_LENGTH = 20  # hex digits: 80 bits
_LOCAL = re.compile(r"^([a-z][a-z0-9_-]{0,15})\+((?:\d{1,12}\.){1,4})([0-9a-f]{20})$")


class BadAddress(ValueError):
    """Not a signed reply address of this site, or one whose signature does not match."""


def signature(prefix: str, numbers: tuple[int, ...], *, salt: str = SALT, with_prefix: bool = True,
              secret: str | None = None) -> str:
    """The HMAC that signs an address (``with_prefix=False``: the numbers alone, press's form)."""
    value = (prefix + ":" if with_prefix else "") + ".".join(str(n) for n in numbers)
    return salted_hmac(salt, value, secret=secret, algorithm="sha256").hexdigest()[:SIGNATURE_LENGTH]


def _verifies(sig: str, prefix: str, numbers: tuple[int, ...], **scheme) -> bool:
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ())]
    # Every key is tried, so the time taken does not tell which one matched.
    matches = [constant_time_compare(sig, signature(prefix, numbers, secret=key, **scheme)) for key in secrets]
    return any(matches)


def make(prefix: str, *numbers: int, salt: str = SALT, with_prefix: bool = True) -> str:
    numbers = tuple(int(n) for n in numbers)
    dotted = "".join(f"{n}." for n in numbers)
    sig = signature(prefix, numbers, salt=salt, with_prefix=with_prefix)
    return f"{prefix}+{dotted}{sig}@{settings.MAIL_DOMAIN}"


def prefix_of(address: str) -> str | None:
    """The tag before ``+`` of an address at MAIL_DOMAIN, or None (not one of ours)."""
    local, at, domain = parseaddr(address or "")[1].strip().lower().rpartition("@")
    if not at or domain != settings.MAIL_DOMAIN.lower() or "+" not in local:
        return None
    return local.split("+", 1)[0]


def read(prefix: str, address: str, count: int, *, salt: str = SALT, with_prefix: bool = True) -> tuple[int, ...]:
    """The numbers of a signed address made by ``make(prefix, …)`` with ``count`` numbers."""
    local, at, domain = parseaddr(address or "")[1].strip().lower().rpartition("@")
    match = _LOCAL.match(local) if at and domain == settings.MAIL_DOMAIN.lower() else None
    if match is None or match[1] != prefix:
        raise BadAddress(f"{address!r} is not a {prefix} reply address of this site")
    numbers = tuple(int(n) for n in match[2].rstrip(".").split("."))
    if len(numbers) != count:
        raise BadAddress(f"{address!r} is not a {prefix} reply address of this site")
    if not _verifies(match[3], prefix, numbers, salt=salt, with_prefix=with_prefix):
        raise BadAddress("the reply address's signature does not match: it was not made by this site")
    return numbers


def is_signed(address: str, **scheme) -> bool:
    """A reply address of this site whose signature matches (``scheme``: the prefix's salt and
    form, as given to ``make``), whatever its numbers."""
    local, at, domain = parseaddr(address or "")[1].strip().lower().rpartition("@")
    match = _LOCAL.match(local) if at and domain == settings.MAIL_DOMAIN.lower() else None
    if match is None:
        return False
    numbers = tuple(int(n) for n in match[2].rstrip(".").split("."))
    return _verifies(match[3], match[1], numbers, **scheme)
