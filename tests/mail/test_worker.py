"""With a broker: ``ingestmail`` stores and queues; a real Celery worker processes the message,
and the task delivered ten times answers once."""

from __future__ import annotations

import io
import time

import pytest
from django.core.management import call_command

from campaign.mail import tasks
from campaign.mail.models import InboundMessage
from tests.campaign.test_tasks import emails_in, start_worker, stop_worker, wait_for
from tests.conftest import REQUIRE_SERVICES

from .conftest import eml


@pytest.mark.skipif(not REQUIRE_SERVICES, reason="only in the PostgreSQL + Redis CI pass")
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_real_worker_processes_stored_mail_once(bob, tmp_path):
    worker = start_worker(tmp_path, "--pool", "prefork", "--concurrency", "2")
    try:
        call_command("ingestmail", stdin=io.BytesIO(eml("no_orders.eml", mid="worker@example.com")),
                     stdout=io.StringIO())
        row = InboundMessage.objects.get()
        for _ in range(9):
            tasks.process_message.delay(row.pk)
        assert wait_for(lambda: emails_in(tmp_path) == ["bob@example.com"]), (emails_in(tmp_path), worker.poll())
        assert wait_for(lambda: InboundMessage.objects.get().status == "done")
        time.sleep(2)  # the other deliveries run too
        assert emails_in(tmp_path) == ["bob@example.com"]
    finally:
        stop_worker(worker)
