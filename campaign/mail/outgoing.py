"""What the site sends: the X-Loop header and a Message-ID in MAIL_MESSAGE_ID_DOMAIN on every email,
and the replies to incoming mail."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMessage
from django.core.mail.message import make_msgid


def install_loop_header() -> None:
    """Every email the site builds carries ``X-Loop: <MAIL_LOOP_TAG>`` (and a Message-ID whose domain is
    MAIL_MESSAGE_ID_DOMAIN, not the machine's name), so a copy of it that comes
    back (an auto-forward, a misrouted bounce, a reply robot quoting headers) is dropped by the
    mail-in screening instead of answered — a loop stops after one round.

    Django has no hook for headers on every message, and every app builds its own (accounts,
    lobby, turn reports, CAM, press…): wrapping ``EmailMessage.message`` once, here, reaches every
    one of them whatever the backend (the test suite's locmem backend too)."""
    from django.core.mail import message as mail_message

    current = mail_message.EmailMessage.message
    if getattr(current, "_adds_x_loop", False):
        return

    def message(self, *args, **kwargs):
        msg = current(self, *args, **kwargs)
        if "X-Loop" not in msg:
            msg["X-Loop"] = settings.MAIL_LOOP_TAG
        if not any(name.lower() == "message-id" for name in self.extra_headers):
            # Django names the machine (often "localhost"); the site's own domain instead.
            del msg["Message-ID"]
            msg["Message-ID"] = make_msgid(domain=settings.MAIL_MESSAGE_ID_DOMAIN)
        return msg

    message._adds_x_loop = True
    mail_message.EmailMessage.message = message


def reply(*, to: str, subject: str, body: str, in_reply_to: str) -> EmailMessage:
    """An answer to an incoming message (RFC 3834: ``Auto-Submitted: auto-replied``, so a
    well-behaved responder does not answer it in turn)."""
    headers = {"Auto-Submitted": "auto-replied"}
    if in_reply_to and not in_reply_to.endswith("@sha256.invalid>"):
        headers.update({"In-Reply-To": in_reply_to, "References": in_reply_to})
    subject = " ".join(subject.split())[:200]
    return EmailMessage(subject=subject, body=body, to=[to], headers=headers,
                        reply_to=[settings.MAIL_ORDERS_ADDRESS])
