"""Django's SMTP email backend with the envelope sender set apart from From: (``MAIL_RETURN_PATH``):
bounces of the site's email go to an address someone reads (or a mailbox the site polls), while the
From: stays ``DEFAULT_FROM_EMAIL``. ``config/settings.py`` puts it in place of Django's SMTP backend
when MAIL_RETURN_PATH is set (docs/mail.md)."""

from __future__ import annotations

from django.conf import settings
from django.core.mail.backends.smtp import EmailBackend as DjangoSMTPBackend


class EmailBackend(DjangoSMTPBackend):
    def _send(self, email_message):
        return_path = settings.MAIL_RETURN_PATH
        if not return_path or self.connection is None:
            return super()._send(email_message)
        sendmail = self.connection.sendmail
        # Django gives the From: address as the envelope sender; only that argument changes here.
        self.connection.sendmail = lambda from_addr, *args, **kwargs: sendmail(return_path, *args, **kwargs)
        try:
            return super()._send(email_message)
        finally:
            del self.connection.sendmail
