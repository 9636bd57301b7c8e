"""Groups fixtures: webhook deliveries run in this process even when a broker is configured
(the PostgreSQL + Redis pass), so the loopback receiver sees them; the task's own retry with a
broker is tested by calling it as a worker would (test_webhooks.py)."""

import pytest


@pytest.fixture(autouse=True)
def _tasks_in_process():
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before
