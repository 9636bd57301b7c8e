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


def redis_url() -> str:
    import redis

    url = settings.REDIS_URL or "redis://127.0.0.1:6379/15"
    try:
        redis.Redis.from_url(url).ping()
    except redis.exceptions.ConnectionError:
        if REQUIRE_SERVICES:
            raise
        pytest.skip("no Redis on 127.0.0.1:6379")
    return url


def test_redis_cache_keeps_one_client_per_pool_and_works():
    from config.cache import SharedClientRedisCache

    cache = SharedClientRedisCache(redis_url(), {"KEY_PREFIX": "sc-test-shared-client"})
    client = cache._cache.get_client()
    cache.set("k", {"a": 1}, 30)
    assert cache.get("k") == {"a": 1}
    assert cache.add("k", 2, 30) is False and cache.add("k2", 2, 30) is True
    assert cache.get_many(["k", "k2"]) == {"k": {"a": 1}, "k2": 2}
    assert cache.incr("k2") == 3
    cache.delete_many(["k", "k2"])
    assert cache.get("k") is None
    assert cache._cache.get_client() is client and cache._cache.get_client(write=True) is client


def test_redis_cache_reads_from_the_replica_pool_it_picked():
    from config.cache import SharedClientRedisCache

    url = redis_url()
    cache = SharedClientRedisCache([url, url], {})
    reader, writer = cache._cache.get_client(), cache._cache.get_client(write=True)
    assert reader is not writer  # two servers: reads use the second's pool, writes the first's
    assert reader.connection_pool is cache._cache._pools[1] and writer.connection_pool is cache._cache._pools[0]
