"""Where a message goes: the routes, and the registry other apps add reply addresses to.

1. A message to a signed reply address (``addresses.py``) goes to the handler registered for its
   prefix: ``press`` (press replies, ``campaign.press``), ``cam`` (a CAM scenario result,
   registered by ``campaign/cam/apps.py`` — the platform imports no campaign layer).
2. Otherwise a message whose text has a ``#SECTOR`` header line is a set of orders for the text
   order checker (the layer's, registered with ``register_orders``).
3. Anything else gets a short note on what the address takes.

A handler returns an ``Answer``: what to reply and to which *account* — the reply goes to that
account's registered address, never to the message's From: or Reply-To:.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model


@dataclass(frozen=True)
class Incoming:
    """One stored message, read: what a route handler is given."""

    pk: int
    message_id: str
    sender: str  # the From: address, lower case
    subject: str
    text: str
    recipients: tuple[str, ...]
    received_at: datetime
    via: str
    secret_hash: str = ""  # the orders header's secret, as the store kept it (masked in the text)


@dataclass(frozen=True)
class Answer:
    route: str
    outcome: str  # one line for the store (the admin)
    body: str = ""  # the reply; "" for none
    user: object | None = None  # the account whose registered address gets the reply
    subject: str = ""
    # A second, short email to another account (the player of a seat someone sent orders for with a
    # wrong secret): capped per address (MAIL_NOTICE_LIMIT), whatever the message was.
    notice_user: object | None = None
    notice_body: str = ""
    notice_subject: str = ""
    # What the message proved, when the route found out ("seat:<campaign>.<seat>": the right secret).
    verified_key: str = ""


Handler = Callable[[Incoming, str], Answer]
_HANDLERS: dict[str, Handler] = {}
_SCHEMES: dict[str, Callable[[], dict]] = {}


def register(prefix: str, handler: Handler, scheme: Callable[[], dict] | None = None) -> None:
    """Route mail to ``<prefix>+…@MAIL_DOMAIN`` to ``handler(incoming, address)``. ``scheme``: a
    function giving the signing scheme of the prefix's addresses (``addresses.make``'s ``salt`` and
    ``with_prefix``) when it is not the default."""
    _HANDLERS[prefix] = handler
    if scheme is not None:
        _SCHEMES[prefix] = scheme


# Orders as text (a ``#SECTOR`` header): the checker of the layer that takes them, registered by
# its AppConfig (Event Horizon's, campaign/eventhorizon/apps.py), so the mail app names no layer.
# "submit": (text, *, received_at, via, sender_email, secret_hash) -> result; "header_secret_hash":
# (text) -> str; "verified_seat": (text, secret_hash) -> (campaign id, seat) | None.
_ORDERS: dict[str, Callable] = {}


def register_orders(*, submit: Callable, header_secret_hash: Callable, verified_seat: Callable) -> None:
    _ORDERS.update(submit=submit, header_secret_hash=header_secret_hash, verified_seat=verified_seat)


def orders_hook(name: str) -> Callable:
    return _ORDERS[name]


def scheme_for(prefix: str) -> dict:
    found = _SCHEMES.get(prefix)
    return found() if found is not None else {}


def handler_for(prefix: str | None) -> Handler | None:
    return _HANDLERS.get(prefix) if prefix else None


def registered_user(address: str):
    """The active account whose email is ``address`` (ignoring case), or None. Two accounts may
    share an address; the oldest answers for it (the reply goes to that same address anyway)."""
    if not address:
        return None
    return get_user_model().objects.filter(email__iexact=address, is_active=True).order_by("pk").first()


_ORDERS_HEADER = re.compile(r"^[ \t]*#SECTOR\b", re.IGNORECASE | re.MULTILINE)


def has_orders_header(text: str) -> bool:
    """A ``#SECTOR`` header on a line of its own (a quoted ``> #SECTOR`` line does not count)."""
    return bool(_ORDERS_HEADER.search(text or ""))


FORGED_NOTICE = (
    "Someone sent orders for your seat (seat {seat} of \"{campaign}\", turn {turn}) from another address than\n"
    "the one your account is registered with, and with a wrong order secret. They were refused and\n"
    "nothing has been changed. If it was you, send them from your registered address with the secret\n"
    "on your orders page (or reply to your turn report). If it was not you, nothing needs doing.\n"
)


def orders(incoming: Incoming) -> Answer:
    """The text order checker. With the right secret the reply goes to the registered address of
    the seat's player — a set sent by someone else is seen at once by its owner.

    Without it, the sender gets the same answer whatever the header named — a seat that exists or
    not, a campaign that exists or not (no enumeration): the checker's refusal at the sender's
    account if the From: is one, else the short refusal to an unknown sender. When the header
    named a seat that has a player and the mail did not come from her address, she also gets a
    short notice that someone tried, holding none of the text (the site must not carry a
    stranger's text to a player), capped per address (MAIL_NOTICE_LIMIT)."""
    result = orders_hook("submit")(incoming.text, received_at=incoming.received_at, via="mail",
                                sender_email=incoming.sender or None, secret_hash=incoming.secret_hash)
    empire = getattr(result, "empire", None)
    owner = getattr(getattr(result, "membership", None), "user", None) or getattr(empire, "user", None)
    turn = result.turn_number
    outcome = (("accepted" if result.accepted else "refused") + (f" for turn {turn}" if turn is not None else "")
               + (f": {result.error}" if result.error else ""))
    if not getattr(result, "secret_ok", False):
        notice = {}
        if owner is not None and (owner.email or "").lower() != incoming.sender:
            name = getattr(result.campaign, "name", "")
            notice = {"notice_user": owner, "notice_subject": f"[Sector Command] {name}: orders for your seat refused",
                      "notice_body": FORGED_NOTICE.format(seat=getattr(empire, "seat", "?"), campaign=name, turn=turn)}
            outcome = f"refused, wrong secret from another address than the seat's player's: {result.error}"
        return Answer(route="orders", outcome=outcome[:2000], body=result.reply_text(),
                      user=registered_user(incoming.sender), subject="[Sector Command] orders refused", **notice)
    name = getattr(result.campaign, "name", "")
    subject = f"[Sector Command] {name + ': ' if name else ''}orders {'accepted' if result.accepted else 'refused'}"
    return Answer(route="orders", outcome=outcome[:2000], body=result.reply_text(), user=owner, subject=subject,
                  verified_key=f"seat:{result.campaign.pk}.{empire.seat}")


def press(incoming: Incoming, address: str) -> Answer:
    """A reply to a press email: the press app checks the signed address and the sender."""
    from campaign.press.actions import receive_mail_reply

    result = receive_mail_reply(to_address=address, sender_email=incoming.sender, text=incoming.text,
                                received_at=incoming.received_at)
    user = registered_user(incoming.sender)
    if result.ok:
        return Answer(route="press", outcome="press message posted", user=user)
    return Answer(route="press", outcome=f"refused: {result.error}"[:2000], user=user,
                  subject="[Sector Command] your press reply was not posted",
                  body=f"Your reply was not posted: {result.error}\n")


def _press_scheme() -> dict:
    from campaign.press.replies import SCHEME

    return SCHEME


register("press", press, scheme=_press_scheme)
