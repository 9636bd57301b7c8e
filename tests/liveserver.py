"""The live server's connections in progress, for tests that end while a page may still be talking
to it (pytest-django's ``live_server``: Django's LiveServerThread and its ThreadedWSGIServer)."""

from __future__ import annotations

import threading


class OpenConnections:
    """Counts the live server's connections from the moment it accepts one until the thread that
    serves it has finished (a page's last poll may still be writing when its test ends).

    pytest-django flushes the database after each test. On SQLite the live server's threads share
    one in-memory database with the test's own connections, and a flush that meets a request still
    at work fails ("database table is locked") and leaves rows behind for the next test. So each
    browser test ends by waiting, after its pages are closed, until the server is quiet."""

    def __init__(self, httpd) -> None:
        self._quiet = threading.Condition()
        self._open = 0
        accept, serve = httpd.process_request, httpd.process_request_thread

        def process_request(request, client_address):  # the server's own thread, at accept
            with self._quiet:
                self._open += 1
            try:
                accept(request, client_address)  # starts the thread that serves it
            except BaseException:
                self._done()
                raise

        def process_request_thread(request, client_address):
            try:
                serve(request, client_address)
            finally:
                self._done()

        httpd.process_request = process_request
        httpd.process_request_thread = process_request_thread

    def _done(self) -> None:
        with self._quiet:
            self._open -= 1
            self._quiet.notify_all()

    def wait(self, seconds: float) -> int:
        """Wait until no connection is open; the number still open when ``seconds`` ran out."""
        with self._quiet:
            self._quiet.wait_for(lambda: self._open == 0, timeout=seconds)
            return self._open

    def assert_quiet(self, seconds: float) -> None:
        still_open = self.wait(seconds)
        assert still_open == 0, f"the live server still serves {still_open} connection(s) after the test's pages closed"


def open_connections(live_server) -> OpenConnections:
    """The counter of ``live_server``'s connections, installed on its first call (one per server:
    call it before the pages whose connections it must see are opened)."""
    thread = live_server.thread
    counter = getattr(thread, "sector_open_connections", None)
    if counter is None:
        counter = thread.sector_open_connections = OpenConnections(thread.httpd)
    return counter
