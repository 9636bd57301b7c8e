"""Reply addresses for press mail, and the cleaning of a mailed reply.

Every press email carries ``Reply-To: press+<conversation>.<seat>.<signature>@<MAIL_DOMAIN>``.
The signature is an HMAC of the conversation and seat keyed by ``SECRET_KEY`` (Django's
``salted_hmac`` with this module's salt), so an address cannot be made for a conversation or seat
without the key: changing either number breaks it. Mail systems may change the case of a local
part, so the address is all lower case and read without regard to case.
"""

from __future__ import annotations

import re
from email.utils import parseaddr

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

PREFIX = "press"
SALT = "campaign.press.reply-address"
SIGNATURE_LENGTH = 20  # hex digits: 80 bits
_LOCAL = re.compile(rf"^{PREFIX}\+(\d{{1,12}})\.(\d{{1,4}})\.([0-9a-f]{{{SIGNATURE_LENGTH}}})$")


class BadAddress(ValueError):
    """Not a press reply address of this site, or one whose signature does not match."""


def signature(conversation_id: int, seat: int) -> str:
    return salted_hmac(SALT, f"{conversation_id}.{seat}", algorithm="sha256").hexdigest()[:SIGNATURE_LENGTH]


def reply_address(conversation_id: int, seat: int) -> str:
    return f"{PREFIX}+{conversation_id}.{seat}.{signature(conversation_id, seat)}@{settings.MAIL_DOMAIN}"


def read_reply_address(address: str) -> tuple[int, int]:
    """(conversation id, seat) of a reply address (``Name <addr>`` is fine); BadAddress otherwise."""
    _, addr = parseaddr(address or "")
    local, at, domain = addr.strip().lower().rpartition("@")
    if not at or domain != settings.MAIL_DOMAIN.lower():
        raise BadAddress(f"{addr or address!r} is not a press reply address of this site")
    match = _LOCAL.match(local)
    if match is None:
        raise BadAddress(f"{addr!r} is not a press reply address of this site")
    conversation_id, seat, sig = int(match[1]), int(match[2]), match[3]
    if not constant_time_compare(sig, signature(conversation_id, seat)):
        raise BadAddress("the reply address's signature does not match: it was not made by this site")
    return conversation_id, seat


# The line a mail client puts before the quote ("On …, Bob wrote:", "Am … schrieb Bob:", …).
_ATTRIBUTION = re.compile(r"^(.*\bwrote\s*:|.*\bschrieb\b.*:|.*\ba écrit\s*:|.*\bescribió\s*:)\s*$", re.IGNORECASE)
_FORWARD_MARKERS = ("-----original message-----", "________________________________")


def is_press_address(address: str) -> bool:
    """Whether ``address`` is meant as a press reply address of this site (``press+…@MAIL_DOMAIN``),
    signed or not: what the mail pipeline hands to ``actions.receive_mail_reply``, which checks it."""
    _, addr = parseaddr(address or "")
    local, at, domain = addr.strip().lower().rpartition("@")
    return bool(at) and domain == settings.MAIL_DOMAIN.lower() and local.startswith(PREFIX + "+")


def clean_reply(text: str) -> str:
    """The new part of a mailed reply: without quoted lines (``> …``), the attribution line just
    before them ("On … wrote:"), an Outlook-style "Original Message" tail, and everything from a
    signature separator (``-- ``) on. Trailing spaces and blank lines at either end go too."""
    lines = (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    for line in lines:
        if line.rstrip() == "--" or line.strip().lower() in _FORWARD_MARKERS:
            break
        if line.lstrip().startswith(">"):
            # The attribution line ("On Tue, Bob wrote:") belongs to the quote: drop it too.
            while kept and not kept[-1].strip():
                kept.pop()
            if kept and _ATTRIBUTION.match(kept[-1].strip()):
                attribution = kept.pop().strip()
                # Gmail wraps a long one: "On Tue, … Sector Command <" / "noreply@…> wrote:".
                if not attribution.lower().startswith("on ") and kept and kept[-1].strip().lower().startswith("on "):
                    kept.pop()
            continue
        kept.append(line.rstrip())
    while kept and not kept[-1].strip():
        kept.pop()
    while kept and not kept[0].strip():
        kept.pop(0)
    return "\n".join(kept)
