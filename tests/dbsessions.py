"""The other sessions on this process's test database, for tests that check a thread, a server or a
browser session left no connection open. One left open lives until the process ends, and then
PostgreSQL cannot drop the test database at the end of the run ("database test_…_gw0 is being
accessed by other users").

PostgreSQL only: SQLite's test database is an in-memory file, with no sessions to count.
"""

from __future__ import annotations

import time

from django.db import connection


def other_sessions(wait: float = 10.0) -> list[tuple]:
    """``(pid, state, query)`` of every session on the test database but this connection's, after
    waiting up to ``wait`` seconds for them to go: a connection closed a moment ago (a server's
    request thread, a worker process that has just stopped) leaves its session for a few
    milliseconds more; one never closed stays."""
    assert connection.vendor == "postgresql", "sessions are counted on PostgreSQL only"
    deadline = time.monotonic() + wait
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid, state, left(query, 200) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            rows = cursor.fetchall()
        if not rows or time.monotonic() >= deadline:
            return rows
        time.sleep(0.1)
