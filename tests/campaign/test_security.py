"""Security settings and links (issue 14 item 7, issue 13 items 6 and 25): `check --deploy` with the
README's production settings, absolute links built from SITE_URL, the Content-Security-Policy,
expected refusals logged without a traceback."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

# The README's production settings ("Production"), with a real-looking secret key.
PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "k3Jx9vQ2-production-like-secret-key-8fT7wLm0pZr4sYb6nHc1dGe5aUi",
    "ALLOWED_HOSTS": "sectorcommand.example.org",
    "SITE_URL": "https://sectorcommand.example.org",
    "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto=https",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
}


def _manage(*args, env: dict) -> subprocess.CompletedProcess:
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DJANGO_SETTINGS_MODULE": "config.settings"}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env={**base, **env},
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
def test_check_deploy_passes_with_the_documented_production_settings():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_readme_documents_those_production_settings():
    readme = (ROOT / "README.md").read_text()
    production = readme.split("## Production", 1)[1].split("\n## ", 1)[0]
    for name, value in PRODUCTION_ENV.items():
        if name not in ("SECRET_KEY", "ALLOWED_HOSTS", "SITE_URL"):
            assert f"{name}={value}" in production, name
    for name in ("SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS",
                 "SECURE_HSTS_PRELOAD", "SECURE_PROXY_SSL_HEADER", "CONTENT_SECURITY_POLICY"):
        assert f"| `{name}` |" in readme, name


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
def test_production_defaults_redirect_to_https_and_send_hsts():
    code = ("from django.conf import settings as s; "
            "print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, s.SECURE_PROXY_SSL_HEADER)")
    env = {"DEBUG": "0", "SECRET_KEY": PRODUCTION_ENV["SECRET_KEY"]}
    result = _manage("shell", "-v", "0", "-c", code, env=env)
    assert result.stdout.split() == ["True", "31536000", "None"], result.stderr
    result = _manage("shell", "-v", "0", "-c", code, env={**env, "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto=https",
                                               "SECURE_SSL_REDIRECT": "0"})
    assert result.stdout.split() == ["False", "31536000", "('HTTP_X_FORWARDED_PROTO',", "'https')"], result.stderr


def test_a_malformed_proxy_header_setting_is_refused():
    result = _manage("check", env={**PRODUCTION_ENV, "SECURE_PROXY_SSL_HEADER": "https"})
    assert result.returncode != 0 and "SECURE_PROXY_SSL_HEADER must look like X-Forwarded-Proto=https" in result.stderr


# --- links come from SITE_URL (issue 13 item 6) -------------------------------------------------


def test_make_run_builds_links_from_its_own_address():
    """`make run PORT=8765`: the demo and the server both get SITE_URL=http://127.0.0.1:8765 and
    keep their emails in var/mail/ (issue 13 items 6 and 25)."""
    result = subprocess.run(["make", "-n", "run", "PORT=8765"], cwd=ROOT, capture_output=True, text=True,
                            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    lines = result.stdout.splitlines()
    setup = next(line for line in lines if "manage.py setupdemo" in line)
    serve = next(line for line in lines if "manage.py runserver" in line)
    for line in (setup, serve):
        assert "SITE_URL=http://127.0.0.1:8765 " in line
        assert "EMAIL_BACKEND=django.core.mail.backends.filebased.EmailBackend" in line
        assert "EMAIL_FILE_PATH=var/mail" in line
    assert serve.endswith("runserver 127.0.0.1:8765") and "--url http://127.0.0.1:8765/" in setup
    result = subprocess.run(["make", "-n", "run", "HOST=0.0.0.0", "SITE_URL=http://games.lan:8000"], cwd=ROOT,
                            capture_output=True, text=True, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert re.search(r"SITE_URL=http://games.lan:8000 .*runserver 0\.0\.0\.0:8000", result.stdout)


@pytest.mark.django_db
def test_password_reset_links_come_from_site_url_not_the_host_header(client, bob, settings):
    """Issue 14 item 7: with DEBUG on (any Host allowed) a forged Host header must not become the
    reset link's address."""
    from django.core import mail
    from django.urls import reverse

    settings.DEBUG = True
    settings.ALLOWED_HOSTS = ["*"]
    settings.SITE_URL = "https://games.example.org:8443/"
    response = client.post(reverse("password_reset"), {"email": "bob@example.com"}, HTTP_HOST="evil.example")
    assert response.status_code == 302
    (message,) = mail.outbox
    assert "evil.example" not in message.body
    assert re.search(r"^https://games\.example\.org:8443/accounts/password/reset/\S+/\S+/$", message.body, re.M)


@pytest.mark.django_db
def test_invitation_links_come_from_site_url_not_the_host_header(
    client, alice, settings, django_capture_on_commit_callbacks
):
    from django.core import mail

    from campaign.eventhorizon import actions as eh_actions

    settings.ALLOWED_HOSTS = ["*"]
    settings.SITE_URL = "http://127.0.0.1:8765"
    lobby = eh_actions.create_lobby(moderator=alice, name="Links", width=12, height=12, seats=2)
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/campaigns/{lobby.pk}/invitations/", {"email": "dave@example.com"},
                               HTTP_HOST="evil.example", content_type="application/json")
    assert response.status_code == 201, response.content
    (message,) = mail.outbox
    assert "http://127.0.0.1:8765/join/" in message.body and "evil.example" not in message.body


# --- expected refusals are logged without a traceback (issue 14 item 7) -------------------------


@pytest.mark.django_db
def test_a_refused_page_is_logged_as_one_line_without_a_traceback(client, small_campaign, alice, caplog):
    import logging

    caplog.set_level(logging.INFO)
    client.force_login(alice)  # the moderator has no orders page
    response = client.get(f"/campaigns/{small_campaign.pk}/orders/")
    assert response.status_code == 403
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.levelno == logging.WARNING and record.exc_info is None and not record.exc_text
    assert record.getMessage() == (f"Forbidden (Permission denied): /campaigns/{small_campaign.pk}/orders/ "
                                   "(only the campaign's players write orders)")
    assert "Traceback" not in caplog.text


def test_a_server_error_still_logs_its_traceback(caplog):
    import logging

    caplog.set_level(logging.INFO)
    try:
        raise RuntimeError("boom")
    except RuntimeError:  # as Django's handler logs a 500
        logging.getLogger("django.request").error("Internal Server Error: %s", "/x", exc_info=True)
    (record,) = caplog.records
    assert record.exc_info is not None and "Traceback" in caplog.text


# --- Content-Security-Policy (issue 14 item 7) --------------------------------------------------

TEMPLATES = ROOT / "templates"


def _csp_nonce(response) -> str:
    policy = response["Content-Security-Policy"]
    match = re.search(r"'nonce-([A-Za-z0-9_-]+)'", policy)
    assert match, policy
    return match.group(1)


def _inline_elements(html: str) -> list[str]:
    """Opening tags of <style> and of <script> elements that run inline code."""
    tags = re.findall(r"<style\b[^>]*>", html)
    tags += [t for t in re.findall(r"<script\b[^>]*>", html) if "src=" not in t and "application/json" not in t]
    return tags


@pytest.mark.django_db
def test_pages_send_a_policy_with_a_fresh_nonce_their_inline_elements_carry(client, bob, small_campaign):
    client.force_login(bob)
    url = f"/campaigns/{small_campaign.pk}/orders/"  # a page with inline <style> and <script>
    first, second = client.get(url), client.get(url)
    policy = first["Content-Security-Policy"]
    for directive in ("default-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'self'"):
        assert directive in policy
    assert "'unsafe-inline'" not in policy.split("style-src-attr", 1)[0]  # scripts and <style>: nonce only
    assert _csp_nonce(first) != _csp_nonce(second)
    for response in (first, second):
        tags = _inline_elements(response.content.decode())
        assert tags and all(f'nonce="{_csp_nonce(response)}"' in tag for tag in tags)


@pytest.mark.django_db
def test_the_cached_map_page_gets_each_requests_nonce(client, small_campaign, bob):
    """The map page is kept whole in a cache; its <style> must still carry the nonce of the
    request it is served to, not the one it was first rendered for."""
    client.force_login(bob)
    url = f"/campaigns/{small_campaign.pk}/map/"
    for _ in range(3):
        response = client.get(url)
        assert response.status_code == 200
        tags = _inline_elements(response.content.decode())
        assert tags and all(f'nonce="{_csp_nonce(response)}"' in tag for tag in tags), tags


@pytest.mark.django_db
def test_the_api_docs_page_runs_no_unnonced_inline_code(client, bob):
    client.force_login(bob)
    response = client.get("/api/docs/")
    assert response.status_code == 200
    tags = _inline_elements(response.content.decode())
    assert all(f'nonce="{_csp_nonce(response)}"' in tag for tag in tags), tags
    assert client.get("/api/docs/?script=")["Content-Type"].startswith("application/javascript")


@pytest.mark.django_db
def test_the_policy_is_configurable(client, settings, bob, small_campaign):
    settings.CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'nonce-{nonce}'"
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = True
    client.force_login(bob)
    url = f"/campaigns/{small_campaign.pk}/orders/"
    response = client.get(url)
    assert "Content-Security-Policy" not in response
    assert re.fullmatch(
        r"default-src 'none'; style-src 'nonce-[\w-]+'", response["Content-Security-Policy-Report-Only"]
    )
    settings.CONTENT_SECURITY_POLICY = ""
    response = client.get(url)
    assert "Content-Security-Policy" not in response and "Content-Security-Policy-Report-Only" not in response
    assert 'nonce=""' in response.content.decode()  # harmless without a policy


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
def test_the_off_setting_turns_the_policy_off():
    code = "from django.conf import settings as s; print(repr(s.CONTENT_SECURITY_POLICY))"
    result = _manage("shell", "-v", "0", "-c", code, env={"CONTENT_SECURITY_POLICY": "off"})
    assert result.stdout.strip() == "''", result.stderr


def test_templates_have_no_inline_code_the_policy_would_block():
    """Every inline <style>/<script> carries the nonce; no on…= handlers or javascript: links
    (which no nonce can allow)."""
    problems = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        html = path.read_text()
        for tag in _inline_elements(html):
            if 'nonce="{{ csp_nonce }}"' not in tag:
                problems.append(f"{path.relative_to(ROOT)}: {tag}")
        for handler in re.findall(r"<[^>]*\son[a-z]+\s*=[^>]*>", html):
            problems.append(f"{path.relative_to(ROOT)}: event handler attribute in {handler[:80]}")
        if re.search(r"(href|src)\s*=\s*[\"']\s*javascript:", html, re.I):
            problems.append(f"{path.relative_to(ROOT)}: javascript: URL")
    assert problems == []
