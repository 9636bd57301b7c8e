"""Reply addresses for press mail, and the cleaning of a mailed reply.

Every press email carries ``Reply-To: press+<conversation>.<seat>.<signature>@<MAIL_DOMAIN>``.
The signature is an HMAC of the conversation and seat keyed by ``SECRET_KEY`` (Django's
``salted_hmac`` with this module's salt; signed and checked by ``campaign/mail/addresses.py``, which
also accepts ``SECRET_KEY_FALLBACKS``), so an address cannot be made for a conversation or seat
without the key: changing either number breaks it. Mail systems may change the case of a local
part, so the address is all lower case and read without regard to case.
"""

from __future__ import annotations

import re
from email.utils import parseaddr

from django.conf import settings

from campaign.mail import addresses

PREFIX = "press"
SALT = "campaign.press.reply-address"
# Press signs the numbers alone with its own salt (its addresses predate campaign/mail/addresses.py,
# which signs for it now, keeping this form so sent addresses still verify).
_SCHEME = {"salt": SALT, "with_prefix": False}
SCHEME = _SCHEME  # for mail's routing (campaign/mail/routing.py: which signed address a message proves)
BadAddress = addresses.BadAddress


def signature(conversation_id: int, seat: int) -> str:
    return addresses.signature(PREFIX, (conversation_id, seat), **_SCHEME)


def reply_address(conversation_id: int, seat: int) -> str:
    return addresses.make(PREFIX, conversation_id, seat, **_SCHEME)


def read_reply_address(address: str) -> tuple[int, int]:
    """(conversation id, seat) of a reply address (``Name <addr>`` is fine); BadAddress otherwise."""
    conversation_id, seat = addresses.read(PREFIX, address, 2, **_SCHEME)
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
