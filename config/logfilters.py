"""Logging filters (settings.LOGGING)."""

import logging

from django.core.exceptions import PermissionDenied


class ExpectedRefusals(logging.Filter):
    """A page that refuses a user raises PermissionDenied (the actions' NotAllowed becomes one in
    the views), and Django logs that 403 with the exception's traceback, as if the site had
    failed. A refusal is the site working: keep the one line (with the reason), drop the
    traceback. DRF's 403s are answered by DRF and logged by Django as one line already."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, PermissionDenied):
            record.exc_info = None
            record.exc_text = None
            if str(exc) and isinstance(record.args, tuple):
                record.msg = f"{record.msg} (%s)"
                record.args = (*record.args, str(exc))
        return True
