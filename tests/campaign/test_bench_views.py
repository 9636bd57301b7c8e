"""bench/http.py's baseline view exists only when BENCH_VIEWS is on, never on a normal site."""

import importlib

import pytest
from django.urls import clear_url_caches


@pytest.fixture
def reload_urls(settings):
    def reload(bench_views: bool):
        settings.BENCH_VIEWS = bench_views
        import config.urls

        importlib.reload(config.urls)
        clear_url_caches()

    yield reload
    settings.BENCH_VIEWS = False
    reload(False)


def test_bare_view_is_not_routed_by_default(client, reload_urls):
    reload_urls(False)
    assert client.get("/bench/bare").status_code == 404


def test_bare_view_answers_json_when_bench_views_is_on(client, reload_urls):
    reload_urls(True)
    response = client.get("/bench/bare")
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    assert client.post("/bench/bare").status_code == 405


def test_floor_views_need_a_login_or_a_token(client, reload_urls, bob):
    reload_urls(True)
    assert client.get("/bench/login").status_code == 302  # to the login page
    assert client.get("/bench/token").status_code == 403
    client.force_login(bob)
    assert client.get("/bench/login").json() == {"user": "bob"}
    from campaign import actions

    _, key = actions.create_api_token(user=bob)
    client.logout()
    assert client.get("/bench/token", HTTP_AUTHORIZATION=f"Token {key}").json() == {"user": "bob"}


def test_floor_views_are_not_routed_by_default(client, reload_urls):
    reload_urls(False)
    assert client.get("/bench/login").status_code == 404
    assert client.get("/bench/token").status_code == 404
