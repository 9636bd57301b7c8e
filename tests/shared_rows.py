"""Rows built once for a group of tests that only read them (Django's ``TestCase.setUpTestData``,
for pytest): a module- or class-scoped fixture builds them inside a transaction that is rolled back
after the group's last test. Each test's own transaction (pytest-django's, for a test marked
``django_db`` without ``transaction=True``) is a savepoint inside it, rolled back after the test,
so what one test writes never reaches the next, and the tests after the group find the database
as they would have without it.

Only for tests that run in a transaction (not ``transaction=True`` ones, nor the live server):
those empty the tables after themselves. The fixture's scope must end where its tests end: a
module-scoped one keeps its rows for every later test of the module, so it suits a module whose
every test wants them; otherwise put the tests in a class and scope the fixture to the class."""

from __future__ import annotations

from contextlib import contextmanager

from django.db import transaction
from django.test import override_settings

# As tests/conftest.py's _fast_test_settings, which is a per-test fixture and so not yet in force
# when a wider fixture runs: users made for the group get the fast hasher too.
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@contextmanager
def shared_rows(django_db_blocker):
    """``with shared_rows(django_db_blocker): build…; yield …`` in a wider-scoped fixture: the rows
    built inside last until the fixture's teardown, then are rolled back."""
    with django_db_blocker.unblock(), override_settings(PASSWORD_HASHERS=FAST_HASHERS), transaction.atomic():
        yield
        transaction.set_rollback(True)


def wrong_answers_by_role(client, url: str, roles) -> list[str]:
    """One role matrix over shared rows: ``url`` fetched (GET) as each ``(username, status)`` in
    ``roles`` in turn, each answer that is not its status named. The cache is emptied before each
    request (rate limits count there, and tests/conftest.py empties it before every test: these
    requests were tests of their own), so no role is answered from another's."""
    from django.contrib.auth import get_user_model
    from django.core.cache import cache

    users = get_user_model().objects
    wrong = []
    for who, status in roles:
        cache.clear()
        client.force_login(users.get(username=who))
        answer = client.get(url).status_code
        if answer != status:
            wrong.append(f"{who}: {answer}, not {status}")
    return wrong
