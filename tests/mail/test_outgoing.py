"""The site's own email (issue 25, "smaller"): Message-IDs in MAIL_MESSAGE_ID_DOMAIN, and bounces to
MAIL_RETURN_PATH (the SMTP envelope sender), sent through a real SMTP conversation (aiosmtpd)."""

from __future__ import annotations

import socket

from aiosmtpd.controller import Controller
from django.core.mail import EmailMessage, get_connection, send_mail


class Recorder:
    def __init__(self):
        self.envelopes = []

    async def handle_DATA(self, server, session, envelope):
        self.envelopes.append(envelope)
        return "250 OK"


def test_message_ids_are_in_the_sites_domain(db, settings):
    settings.MAIL_MESSAGE_ID_DOMAIN = "sector.example.org"
    send_mail("s", "b", None, ["x@example.com"])
    EmailMessage("s", "b", to=["y@example.com"], headers={"Message-ID": "<kept@elsewhere.example>"}).send()
    from django.core import mail

    first, second = (m.message()["Message-ID"] for m in mail.outbox)
    assert first.endswith("@sector.example.org>") and second == "<kept@elsewhere.example>"


def test_bounces_go_to_the_return_path(db, settings):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    recorder = Recorder()
    controller = Controller(recorder, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS = "127.0.0.1", port, False
        settings.DEFAULT_FROM_EMAIL = "Sector Command <noreply@sector.example.org>"
        settings.MAIL_RETURN_PATH = "bounces@sector.example.org"
        connection = get_connection("campaign.mail.smtp.EmailBackend")
        assert send_mail("s", "b", None, ["player@example.com"], connection=connection) == 1
        settings.MAIL_RETURN_PATH = ""
        assert send_mail("s", "b", None, ["player@example.com"], connection=connection) == 1
    finally:
        controller.stop()
    first, second = recorder.envelopes
    assert (
        first.mail_from == "bounces@sector.example.org"
        and b"From: Sector Command <noreply@" in first.original_content
    )
    assert second.mail_from == "noreply@sector.example.org"  # unset: Django's (the From: address)
