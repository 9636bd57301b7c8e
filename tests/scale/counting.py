"""Counting every query a block runs, requests included (CaptureQueriesContext's log is emptied
when a request starts, so it under-counts a request made through the test client)."""

from contextlib import contextmanager

from django.db import connection


@contextmanager
def counted():
    """Yields a list that holds the SQL of every query run inside the block."""
    seen: list[str] = []

    def wrapper(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield seen
