"""Browser tests: Playwright driving Debian's Chromium (/usr/bin/chromium) against pytest-django's
live server. We never download a browser (no ``playwright install``): the pip package brings its
driver, the machine brings Chromium (``.ci/run`` installs Debian's package when it is missing).

One browser serves the whole package; each test gets a fresh context (its own cookies) and page.
Screenshots go to tests/artifacts/ (ignored by git): ``shot(page, "name")`` in a test, and one
taken automatically when a test fails.

Without Chromium the tests are skipped with the reason, except in CI (CI=true), where a missing
browser fails them: CI must not pass by running none.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.liveserver import open_connections

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# Flags for a root user on a machine without a display or an outside network: no sandbox
# (Chromium refuses to run one as root), and no background calls home, which would only fail.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-quic",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
TIMEOUT_MS = 15_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# Every browser test uses the live server, so it runs in a real transaction (transactional_db);
# serialized_rollback puts back the rows migrations made (the starter design library) that the
# flush after each test removes.
BROWSER_DB = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives Chromium against the live server (tests/browser)")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    here = Path(__file__).resolve().parent
    for item in items:
        if item.path.resolve().parent == here:
            item.add_marker(BROWSER_DB)
            item.add_marker(pytest.mark.browser)


def _unavailable() -> str | None:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -r requirements-dev.txt)"
    return None


@pytest.fixture(scope="package")
def browser(django_db_setup, django_db_blocker, live_server):
    """One headless Chromium for every browser test."""
    reason = _unavailable()
    if reason:
        if IN_CI:
            pytest.fail(f"browser tests must run in CI: {reason}", pytrace=False)
        pytest.skip(reason)
    from django.db import connections
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an asyncio event loop running in this thread, and Django then
    # refuses ORM calls from it (SynchronousOnlyOperation). The standard remedy for tests is
    # DJANGO_ALLOW_ASYNC_UNSAFE; it is set only while the browser tests run, and put back after.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    before = {alias: connections[alias] for alias in connections}
    playwright = sync_playwright().start()
    # With that loop running, Django hands this thread new connection objects (its connection
    # storage becomes per-context), which lack the copy of the migrated rows that serialized
    # rollback restores: give them the same copy.
    for alias, conn in before.items():
        contents = getattr(conn, "_test_serialized_contents", None)
        if contents is not None:
            connections[alias]._test_serialized_contents = contents
    try:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        with django_db_blocker.unblock():
            for conn in connections.all(initialized_only=True):
                conn.close()  # or PostgreSQL cannot drop the test database at the end
        playwright.stop()
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous
        _restore_migrated_rows(django_db_blocker)


def _restore_migrated_rows(django_db_blocker) -> None:
    """The last browser test's flush emptied every table; put back what migrations made, so the
    transactional tests that run after these start as they would have without them."""
    from django.db import connections

    with django_db_blocker.unblock():
        for conn in connections.all():
            contents = getattr(conn, "_test_serialized_contents", None)
            if contents:
                conn.creation.deserialize_db_from_string(contents)


@pytest.fixture(autouse=True)
def _live_server_quiet_at_end(live_server):
    """Each browser test ends (before the database is flushed) with the live server quiet: see
    tests/liveserver.py. Pages are closed by then (new_page's own teardown runs first), so a request
    still open is one the server is finishing."""
    counter = open_connections(live_server)
    yield
    counter.assert_quiet(seconds=TIMEOUT_MS / 1000)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.browser_failed = report.failed
    return report


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:120]


@pytest.fixture
def shot(request):
    """``shot(page, "name")`` saves tests/artifacts/<test>--<name>.png and returns the path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str, full_page: bool = True) -> Path:
        path = ARTIFACTS / f"{_slug(request.node.name)}--{_slug(name)}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


# What Chromium says when a navigation the test asked for is cut short by another one: a play or
# what-if page that polls reloads itself when the battle moves on (static/battle.js), and may do so
# just as the test goes to its next page.
_INTERRUPTED = ("net::ERR_ABORTED", "is interrupted by another navigation")


def _goto_through_own_reloads(pg) -> None:
    """Make ``pg.goto`` go again (up to three times) when the page's own reload interrupted it;
    any other failure is raised at once."""
    from playwright.sync_api import Error

    goto = pg.goto

    def retrying(url, **kwargs):
        for attempt in range(3):
            try:
                return goto(url, **kwargs)
            except Error as exc:
                if attempt == 2 or not any(words in str(exc) for words in _INTERRUPTED):
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    pg.goto = retrying


@pytest.fixture
def new_page(browser, live_server, request, shot):
    """``new_page()``: a page in a fresh browser context (its own cookies: one person), aimed at
    the live server, so ``page.goto("/accounts/login/")`` works. Call it once per person. When
    the test fails, each page's last view is saved as a screenshot."""
    made = []
    blocked = []  # the Content-Security-Policy's refusals: a page's own code must never be one

    def make(phone: bool = False):
        # phone=True: a phone's screen (390×844 CSS pixels, touch, mobile viewport rules).
        size = PHONE if phone else DESKTOP
        ctx = browser.new_context(base_url=live_server.url, viewport=size, is_mobile=phone, has_touch=phone)
        ctx.set_default_timeout(TIMEOUT_MS)
        pg = ctx.new_page()
        _goto_through_own_reloads(pg)
        pg.on("console", lambda msg: blocked.append(f"{pg.url}: {msg.text}")
              if "Content Security Policy" in msg.text else None)
        made.append((ctx, pg))
        return pg

    yield make
    for i, (ctx, pg) in enumerate(made, 1):
        if getattr(request.node, "browser_failed", False) and not pg.is_closed():
            try:
                shot(pg, f"FAILED-{i}")
            except Exception:  # a failed screenshot must not hide the test's own failure
                pass
        ctx.close()
    assert blocked == [], "the Content-Security-Policy blocked part of a page"


@pytest.fixture
def page(new_page):
    """A fresh page for one person."""
    return new_page()


@pytest.fixture
def phone(new_page):
    """A fresh page for one person on a phone (390×844, touch)."""
    return new_page(phone=True)


def sideways_overflow(page) -> list[str]:
    """Elements that push the page wider than the screen (nothing may, at phone width: a wide
    table or map scrolls inside its own frame). A page that reloads itself (the play pages do when
    the other side moves) is measured once it has loaded again."""
    from playwright.sync_api import Error as PlaywrightError

    for _ in range(3):
        page.wait_for_load_state("load")
        try:
            return page.evaluate(_OVERFLOW_JS)
        except PlaywrightError as exc:
            if "Execution context was destroyed" not in str(exc):
                raise
    page.wait_for_load_state("load")
    return page.evaluate(_OVERFLOW_JS)


_OVERFLOW_JS = ("""() => {
      const width = document.documentElement.clientWidth, found = [];
      for (const el of document.querySelectorAll('body *')) {
        const box = el.getBoundingClientRect();
        if (box.width === 0 || box.right <= width + 1) continue;
        let scroller = el.parentElement, contained = false;
        while (scroller && scroller !== document.body) {
          if (getComputedStyle(scroller).overflowX !== 'visible') { contained = true; break; }
          scroller = scroller.parentElement;
        }
        if (!contained) {
          found.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' ends at ' + Math.round(box.right));
        }
      }
      return found.slice(0, 10);
    }""")


def log_in(page, username: str, password: str) -> None:
    """Log in through the login form, as a person would, and check it worked."""
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    if "/accounts/login/" in page.url:
        errors = page.locator(".errorlist").all_inner_texts()
        raise AssertionError(f"logging in as {username} failed: {' '.join(errors) or page.url}")


@pytest.fixture
def login():
    """``login(page, username, password)``: log in through the form."""
    return log_in
