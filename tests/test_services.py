"""The environment-driven settings really reach the services CI says they do."""

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection

from tests.conftest import REQUIRE_SERVICES


@pytest.mark.skipif(not REQUIRE_SERVICES, reason="only in the PostgreSQL + Redis CI pass")
def test_ci_service_pass_runs_on_postgresql_and_redis(db):
    assert connection.vendor == "postgresql"
    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert not settings.CELERY_TASK_ALWAYS_EAGER


@pytest.mark.skipif(not REQUIRE_SERVICES, reason="only in the PostgreSQL + Redis CI pass")
def test_celery_broker_answers():
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=3)
        assert conn.connected


def test_without_a_broker_tasks_run_in_process():
    if settings.CELERY_BROKER_URL:
        pytest.skip("a broker is configured in this pass")
    assert settings.CELERY_TASK_ALWAYS_EAGER


def test_healthz_checks_database_and_cache(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "cache": "ok"}
    cache.set("probe", 42)
    assert cache.get("probe") == 42
