"""Mail-in fixtures: feed ``.eml`` files (``eml/``, with ``$placeholders``) through
``manage.py ingestmail`` exactly as an MTA pipe does, with the on-commit work (the processing
task, the reply) run as it would be on the embedded default."""

from __future__ import annotations

import io
from pathlib import Path
from string import Template

import pytest
from django.core.management import call_command

EML = Path(__file__).parent / "eml"


def eml(name: str, **values) -> bytes:
    """An ``.eml`` file with its ``$placeholders`` filled in (CRLF line ends, as on the wire)."""
    text = Template((EML / name).read_text(encoding="utf-8")).substitute(values)
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


@pytest.fixture
def ingest(db, eager_tasks, django_capture_on_commit_callbacks, settings):
    """``ingest(raw_bytes) -> stdout`` of ``manage.py ingestmail``, its processing and reply done."""
    settings.MAIL_IN_ENABLED = True
    settings.MAIL_DOMAIN = "sector.example.org"
    settings.MAIL_ORDERS_ADDRESS = "orders@sector.example.org"
    settings.MAIL_LOOP_TAG = "orders@sector.example.org"

    def run(raw: bytes, *args) -> str:
        out = io.StringIO()
        with django_capture_on_commit_callbacks(execute=True):
            call_command("ingestmail", *args, stdin=io.BytesIO(raw), stdout=out)
        return out.getvalue()

    return run
