"""Shared fixtures: a fixed cast (alice moderates, bob and carol play, mallory is an outsider)."""

import os

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

# CI runs property tests on hypothesis's fixed example sequence, so a red run is reproducible; at
# a desk they explore new examples every run (HYPOTHESIS_PROFILE=ci reproduces CI). Neither has a
# deadline and neither minds slow data generation: wall-clock time is not what a test asserts (a
# loaded machine once failed a text-orders round trip on hypothesis's 200 ms default, and the same
# example passed again).
_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True, **_UNTIMED)
hypothesis_settings.register_profile("dev", print_blob=True, **_UNTIMED)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True)
def _fast_test_settings(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    # Without a broker a what-if run plays in the request, so a test sees it done (the thread
    # that plays it in the background is tested on its own: tests/tactical/test_whatif*.py).
    settings.WHATIF_IN_BACKGROUND = False
    # Even with a broker (the PostgreSQL + Redis pass) a test that calls the runner sees the run
    # done: its battles are fought in the runner, not queued as chunk tasks (those are tested in
    # tests/tactical/test_whatif_chunks.py, which sets WHATIF_CHUNK_SIZE).
    settings.WHATIF_CHUNK_SIZE = 0
    # Rate limits count in the cache (campaign/accounts.py) under user ids a new test reuses.
    from django.core.cache import cache

    cache.clear()


# `make test-fast` (pytest --fast): only what needs no database, no live server and no browser —
# the pure engines and unit tests — and no test marked slow.
_NEEDS_THE_SITE = {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback",
                   "live_server", "client", "admin_client", "django_user_model"}


def pytest_addoption(parser):
    parser.addoption("--fast", action="store_true", help="run only tests that need no database, browser or live server")


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--fast"):
        return
    keep, drop = [], []
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        heavy = (
            item.get_closest_marker("django_db") or item.get_closest_marker("slow")
            or "browser" in item.nodeid.split("/")[:2] or fixtures & _NEEDS_THE_SITE
        )
        (drop if heavy else keep).append(item)
    config.hook.pytest_deselected(items=drop)
    items[:] = keep


def pytest_report_header(config):
    from django.conf import settings

    db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    broker = settings.CELERY_BROKER_URL or "none (tasks run in-process)"
    return f"sector command: database={db}, celery broker={broker}, cache={settings.CACHES['default']['BACKEND']}"


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", "alice@example.com", "pw-alice")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", "bob@example.com", "pw-bob")


@pytest.fixture
def carol(django_user_model):
    return django_user_model.objects.create_user("carol", "carol@example.com", "pw-carol")


@pytest.fixture
def mallory(django_user_model):
    return django_user_model.objects.create_user("mallory", "mallory@example.com", "pw-mallory")


@pytest.fixture
def small_campaign_in_setup(db, alice, bob, carol):
    """A 12×12 hex campaign with two seats in its set-up round (turn 0, 003 "Set Up"): bob has
    seat 1, carol seat 2; alice moderates."""
    from campaign.eventhorizon import actions as eh_actions

    campaign = eh_actions.create_campaign(
        name="Test Sector", grid="hex", width=12, height=12, players=2, seed="test-1", moderator=alice
    )
    campaign.empires.filter(seat=1).update(user=bob, name="Bob's Realm")
    campaign.empires.filter(seat=2).update(user=carol, name="Carol's Combine")
    return campaign


@pytest.fixture
def small_campaign(small_campaign_in_setup):
    """The same campaign at turn 1: bob and carol each sent the computer's set-up purchase in the
    set-up round, which has been processed (tests/eventhorizon/setup_round.py)."""
    from tests.eventhorizon.setup_round import finish_setup

    return finish_setup(small_campaign_in_setup)


@pytest.fixture
def small_campaign_without_fleets(small_campaign_in_setup):
    """The same campaign at turn 1 with no fleets: bob and carol each bought nothing in the set-up
    round (``{}``, 240 BP banked), for tests that place their own fleets."""
    from tests.eventhorizon.setup_round import finish_setup

    return finish_setup(small_campaign_in_setup, buy=False)


REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"


@pytest.fixture(scope="session", autouse=True)
def _celery_config_loaded():
    """Celery reads its configuration from the Django settings once, on first access. Load it
    before any test overrides CELERY_TASK_ALWAYS_EAGER, so an override made by one test can never
    become the app's setting for the rest of the run (the real-worker tests need the broker)."""
    from config.celery import app

    app.conf.task_always_eager  # noqa: B018 - the access is the point


@pytest.fixture
def eager_tasks(settings):
    """Run Celery tasks in-process, as the embedded default does, even when the suite runs with a
    broker configured (the PostgreSQL + Redis pass): for tests of what happens at once on the
    embedded default, without a worker."""
    from config.celery import app

    previous = app.conf.task_always_eager  # read before the override (see _celery_config_loaded)
    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous
