"""Accounts: sign up, log in, log out, password reset by email, my account, and the failed log-in
throttle (at most 100 failures per account per hour), on the log-in page and /api/token/."""

import hashlib
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.urls import reverse
from rest_framework.test import APIClient

from campaign import accounts, actions, lookups

pytestmark = pytest.mark.django_db

HOUR = 3600
T0 = 1_800_000_000.0 - (1_800_000_000 % HOUR) + 60  # one minute into a clock hour


@pytest.fixture(autouse=True)
def _clean_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def clock(monkeypatch):
    """The throttle's clock, set by the test."""
    now = {"t": T0}
    monkeypatch.setattr(accounts, "clock", lambda: now["t"])
    return now


def _login(client, username, password):
    return client.post(reverse("login"), {"username": username, "password": password})


def _logged_in(client) -> bool:
    return "_auth_user_id" in client.session


SIGNUP = {"username": "dave", "email": "dave@example.com",
          "password1": "a-long-passphrase-42", "password2": "a-long-passphrase-42"}


@pytest.fixture
def signup(client, django_capture_on_commit_callbacks):
    """POST the sign-up form; its emails are sent when the transaction commits."""
    def post(data, url=None):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(url or reverse("signup"), data)
    return post


def _activation_link(message) -> str:
    return re.search(r"https?://[^/\s]+(/accounts/activate/\S+)", message.body).group(1)


def test_signup_emails_a_confirmation_link_that_activates_the_account_and_logs_in(client, signup):
    response = signup(SIGNUP)
    assert response.status_code == 302 and response["Location"] == reverse("signup-sent")
    user = get_user_model().objects.get(username="dave")
    assert user.email == "dave@example.com" and user.check_password("a-long-passphrase-42")
    assert not user.is_active and not _logged_in(client)
    assert _login(client, "dave", "a-long-passphrase-42").status_code == 200 and not _logged_in(client)
    (message,) = mail.outbox
    assert message.to == ["dave@example.com"] and "confirm your email address" in message.subject
    link = _activation_link(message)
    # Opening the link (as a mail scanner would) confirms nothing; the page's button does.
    response = client.get(link)
    assert response.status_code == 200 and b"Confirm and log in" in response.content
    user.refresh_from_db()
    assert not user.is_active
    response = client.post(link)
    assert response.status_code == 302 and response["Location"] == reverse("home")
    user.refresh_from_db()
    assert user.is_active and _logged_in(client)
    # The link works once.
    client.logout()
    response = client.post(link)
    assert response.status_code == 400 and b"has expired or has been used" in response.content
    assert not _logged_in(client)


def test_signup_follows_next_through_the_confirmation_link(client, signup):
    response = signup(url=reverse("signup") + "?next=/lobby/", data={**SIGNUP, "next": "/lobby/"})
    assert response["Location"] == reverse("signup-sent")
    link = _activation_link(mail.outbox[0])
    assert link.endswith("?next=%2Flobby%2F")
    assert client.post(link, {"next": "/lobby/"})["Location"] == "/lobby/"


def test_signup_does_not_say_whether_an_address_has_an_account(client, bob, signup):
    """Issue 14 item 7: the answer for an address with an account is the answer for a new one;
    the owner of the address is told by email instead."""
    new = signup(SIGNUP)
    taken = signup({**SIGNUP, "username": "eve", "email": "BOB@example.com"})
    assert (new.status_code, new["Location"]) == (taken.status_code, taken["Location"]) == (302, reverse("signup-sent"))
    assert not get_user_model().objects.filter(username="eve").exists()
    bob.refresh_from_db()
    assert bob.check_password("pw-bob") and bob.is_active
    notice = mail.outbox[1]
    assert notice.to == ["bob@example.com"] and "someone tried to sign up with your address" in notice.subject
    assert '"eve"' in notice.body and "/accounts/login/" in notice.body and "/accounts/password/reset/" in notice.body
    assert "/accounts/activate/" not in notice.body


def test_signing_up_again_with_an_unconfirmed_address_sends_a_new_link(client, signup):
    signup(SIGNUP)
    signup({**SIGNUP, "username": "dave2"})
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["dave"]
    assert len(mail.outbox) == 2 and all("/accounts/activate/" in m.body for m in mail.outbox)
    assert client.post(_activation_link(mail.outbox[1])).status_code == 302
    assert get_user_model().objects.get(username="dave").is_active


def test_a_wrong_or_forged_confirmation_link_is_refused(client, bob, signup):
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    signup(SIGNUP)
    link = _activation_link(mail.outbox[0])
    dave = get_user_model().objects.get(username="dave")
    for bad in (
        link[:-3] + "xyz/",
        f"/accounts/activate/{urlsafe_base64_encode(force_bytes(bob.pk))}/{link.split('/')[-2]}/",
        "/accounts/activate/!!!/abc/",
    ):
        assert client.post(bad).status_code == 400
    dave.refresh_from_db()
    assert not dave.is_active and not _logged_in(client)


def test_signup_emails_are_limited_per_address_and_hour(client, bob, clock, signup):
    for i in range(accounts.PASSWORD_RESET_LIMIT):
        assert signup({**SIGNUP, "username": f"eve{i}", "email": "bob@example.com"}).status_code == 302
    response = signup({**SIGNUP, "username": "eve9", "email": "bob@example.com"})
    assert response.status_code == 200 and "Too many sign-up emails" in response.content.decode()
    assert len(mail.outbox) == accounts.PASSWORD_RESET_LIMIT


def test_signup_refuses_bad_input_and_writes_nothing(client, bob, signup):
    cases = [
        {"username": "dave", "email": "not-an-email", "password1": "a-long-passphrase-42",
         "password2": "a-long-passphrase-42"},
        {"username": "bob", "email": "dave@example.com", "password1": "a-long-passphrase-42",
         "password2": "a-long-passphrase-42"},  # username taken
        {"username": "dave", "email": "dave@example.com", "password1": "a-long-passphrase-42",
         "password2": "something-else-42"},
        {"username": "dave", "email": "dave@example.com", "password1": "123", "password2": "123"},
    ]
    for data in cases:
        response = signup(data)
        assert response.status_code == 200
        assert response.context["form"].errors
        assert b"errorlist" in response.content
    assert get_user_model().objects.count() == 1
    assert not _logged_in(client) and mail.outbox == []


def test_signup_page_renders(client):
    response = client.get(reverse("signup"))
    assert response.status_code == 200 and b"Create my account" in response.content


def test_login_and_logout(client, bob):
    response = _login(client, "bob", "pw-bob")
    assert response.status_code == 302 and _logged_in(client)
    response = client.post(reverse("logout"))
    assert response.status_code == 302 and not _logged_in(client)


def test_login_with_a_wrong_password_is_a_form_error(client, bob):
    response = _login(client, "bob", "wrong")
    assert response.status_code == 200 and not _logged_in(client)
    assert response.context["form"].errors
    assert accounts.login_failures("bob") == 1


def test_account_page(client, bob, small_campaign):
    client.force_login(bob)
    response = client.get(reverse("account"))
    assert response.status_code == 200
    assert b"bob@example.com" in response.content


def test_account_page_needs_login(client):
    response = client.get(reverse("account"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_password_reset_by_email(client, bob):
    response = client.post(reverse("password_reset"), {"email": "bob@example.com"})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["bob@example.com"] and "reset your password" in message.subject
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/\S+/)", message.body).group(1)

    # The link leads to a form (Django swaps the token for a session key), which sets the password.
    response = client.get(link, follow=True)
    assert response.status_code == 200 and response.context["validlink"]
    form_url = response.redirect_chain[-1][0]
    response = client.post(form_url, {"new_password1": "brand-new-secret-77", "new_password2": "brand-new-secret-77"})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_complete")
    bob.refresh_from_db()
    assert bob.check_password("brand-new-secret-77")

    # The link works once.
    response = client.get(link, follow=True)
    assert not response.context["validlink"]
    assert _login(client, "bob", "brand-new-secret-77").status_code == 302


def test_password_reset_for_an_unknown_email_sends_nothing(client, bob):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert response.status_code == 302
    assert mail.outbox == []


def test_password_change(client, bob):
    client.force_login(bob)
    response = client.post(reverse("password_change"), {
        "old_password": "pw-bob", "new_password1": "brand-new-secret-77", "new_password2": "brand-new-secret-77",
    })
    assert response.status_code == 302
    bob.refresh_from_db()
    assert bob.check_password("brand-new-secret-77")


# --- the throttle: at most 100 failed log-ins per account per hour ------------------------------


def test_101st_login_is_refused_even_with_the_right_password(client, bob, clock):
    for _ in range(accounts.LOGIN_FAILURE_LIMIT):
        assert _login(client, "bob", "wrong").status_code == 200
    assert accounts.login_failures("bob") == 100

    response = _login(client, "bob", "pw-bob")
    assert response.status_code == 200 and not _logged_in(client)
    assert "Too many failed log-ins" in str(response.context["form"].non_field_errors())
    # Refused attempts are not checked against the password at all, and the lock holds.
    assert _login(client, "BOB", "pw-bob").status_code == 200 and not _logged_in(client)


def test_the_99th_failure_still_lets_the_right_password_in(client, bob, clock):
    for _ in range(accounts.LOGIN_FAILURE_LIMIT - 1):
        _login(client, "bob", "wrong")
    assert _login(client, "bob", "pw-bob").status_code == 302 and _logged_in(client)


def test_the_throttle_is_per_account(client, bob, carol, clock):
    for _ in range(accounts.LOGIN_FAILURE_LIMIT):
        _login(client, "bob", "wrong")
    assert _login(client, "carol", "pw-carol").status_code == 302 and _logged_in(client)


def test_the_throttle_normalises_the_username(client, bob, clock):
    for name in ["bob", "BOB", " Bob"] * 34:
        _login(client, name, "wrong")
    assert accounts.is_locked("bob")
    assert _login(client, "bob", "pw-bob").status_code == 200 and not _logged_in(client)


def test_the_lock_lifts_when_the_hour_is_over(client, bob, clock):
    for _ in range(accounts.LOGIN_FAILURE_LIMIT):
        _login(client, "bob", "wrong")
    clock["t"] = T0 + HOUR - 61  # the last second of the hour
    assert _login(client, "bob", "pw-bob").status_code == 200 and not _logged_in(client)
    clock["t"] = T0 + HOUR - 60  # the next hour
    assert not accounts.is_locked("bob")
    assert _login(client, "bob", "pw-bob").status_code == 302 and _logged_in(client)


def test_the_backend_refuses_a_locked_account_everywhere(bob, clock, rf):
    from django.contrib.auth import authenticate

    for _ in range(accounts.LOGIN_FAILURE_LIMIT):
        assert authenticate(rf.post("/"), username="bob", password="wrong") is None
    assert authenticate(rf.post("/"), username="bob", password="pw-bob") is None
    clock["t"] += HOUR
    assert authenticate(rf.post("/"), username="bob", password="pw-bob") == bob


def test_admin_login_is_throttled_too(client, django_user_model, clock):
    django_user_model.objects.create_superuser("root", "root@example.com", "pw-root")
    for _ in range(accounts.LOGIN_FAILURE_LIMIT):
        client.post("/admin/login/", {"username": "root", "password": "wrong"})
    client.post("/admin/login/", {"username": "root", "password": "pw-root"})
    assert not _logged_in(client)


def test_token_endpoint(bob, clock):
    api = APIClient()
    response = api.post("/api/token/", {"username": "bob", "password": "pw-bob"}, format="json")
    assert response.status_code == 200 and len(response.json()["token"]) == 40
    token = response.json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get("/api/campaigns/").status_code == 200

    response = APIClient().post("/api/token/", {"username": "bob", "password": "wrong"}, format="json")
    assert response.status_code == 400
    response = APIClient().post("/api/token/", {"username": "bob"}, format="json")
    assert response.status_code == 400 and "password" in response.json()


def test_token_endpoint_is_throttled(bob, carol, clock):
    api = APIClient()
    for _ in range(accounts.LOGIN_FAILURE_LIMIT):
        assert api.post("/api/token/", {"username": "bob", "password": "wrong"}, format="json").status_code == 400
    response = api.post("/api/token/", {"username": "bob", "password": "pw-bob"}, format="json")
    assert response.status_code == 429
    assert "Too many failed log-ins" in response.json()["detail"] and "Retry-After" in response
    assert api.post("/api/token/", {"username": "carol", "password": "pw-carol"}, format="json").status_code == 200
    clock["t"] += HOUR
    assert api.post("/api/token/", {"username": "bob", "password": "pw-bob"}, format="json").status_code == 200


def test_page_and_api_failures_share_one_count(client, bob, clock):
    for _ in range(50):
        _login(client, "bob", "wrong")
        APIClient().post("/api/token/", {"username": "bob", "password": "wrong"}, format="json")
    assert accounts.is_locked("bob")
    assert _login(client, "bob", "pw-bob").status_code == 200 and not _logged_in(client)


def test_simultaneous_wrong_passwords_admit_exactly_the_limit(bob, clock, monkeypatch):
    """Issue 14 item 7: the throttle was checked before a failure was counted, so twelve wrong
    passwords sent at once were all checked against the password. Now each attempt takes its
    place in the count atomically before the password is checked: exactly the limit get through.
    The password check waits until every attempt has either reached it or been refused, so the
    race is forced, not left to timing."""
    import threading

    from django.contrib.auth import authenticate
    from django.contrib.auth.backends import ModelBackend

    monkeypatch.setattr(accounts, "LOGIN_FAILURE_LIMIT", 5)
    attempts = 12
    seen = {"checked": 0, "refused": 0}
    arrived = threading.Condition()

    def slow_wrong_password(self, request, username=None, password=None, **kwargs):
        with arrived:
            seen["checked"] += 1
            arrived.notify_all()
            arrived.wait_for(lambda: seen["checked"] + seen["refused"] == attempts, timeout=20)
        return None

    monkeypatch.setattr(ModelBackend, "authenticate", slow_wrong_password)
    barrier = threading.Barrier(attempts)
    results = []

    def attempt():
        barrier.wait(20)
        results.append(authenticate(None, username="bob", password="wrong"))

    original = accounts.ThrottledModelBackend.authenticate

    def counting(self, request, username=None, password=None, **kwargs):
        try:  # a refused attempt never reaches the password check: count it as arrived
            return original(self, request, username=username, password=password, **kwargs)
        except PermissionDenied:
            with arrived:
                seen["refused"] += 1
                arrived.notify_all()
            raise

    monkeypatch.setattr(accounts.ThrottledModelBackend, "authenticate", counting)
    threads = [threading.Thread(target=attempt, daemon=True) for _ in range(attempts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not any(t.is_alive() for t in threads)
    assert results == [None] * attempts
    assert (seen["checked"], seen["refused"]) == (5, 7)
    assert accounts.login_failures("bob") == 5 and accounts.is_locked("bob")


def test_a_refusal_by_the_count_itself_still_says_why(client, bob, clock, monkeypatch):
    """The earlier checks saw the account unlocked, but others took the last places meanwhile:
    the page and the token endpoint still name the lock (not "wrong password")."""
    for _ in range(accounts.LOGIN_FAILURE_LIMIT):
        accounts.record_failure("bob")
    monkeypatch.setattr(accounts, "is_locked", lambda username: False)  # as if checked a moment earlier
    response = _login(client, "bob", "pw-bob")
    assert response.status_code == 200 and not _logged_in(client)
    assert "Too many failed log-ins" in str(response.context["form"].non_field_errors())
    response = APIClient().post("/api/token/", {"username": "bob", "password": "pw-bob"}, format="json")
    assert response.status_code == 429 and "Too many failed log-ins" in response.json()["detail"]
    assert accounts.login_failures("bob") == accounts.LOGIN_FAILURE_LIMIT  # refusals gave their places back


def test_a_right_password_gives_its_place_in_the_count_back(client, bob, clock):
    for _ in range(3):
        _login(client, "bob", "wrong")
    assert _login(client, "bob", "pw-bob").status_code == 302
    assert accounts.login_failures("bob") == 3


def test_create_account_refuses_a_name_taken_meanwhile(db, django_user_model):
    # The sign-up form checks the name first; the action checks again inside its transaction.
    from campaign import actions

    user = actions.create_account(username="zed", email="Zed@Example.com", password="a-long-pass-phrase")
    assert user.check_password("a-long-pass-phrase") and user.email == "Zed@example.com"
    with pytest.raises(actions.ActionError, match="user name 'ZED' is taken"):
        actions.create_account(username="ZED", email="other@example.com", password="a-long-pass-phrase")
    with pytest.raises(actions.ActionError, match="email address exists"):
        actions.create_account(username="other", email="zed@example.com", password="a-long-pass-phrase")
    assert django_user_model.objects.filter(username__iexact="zed").count() == 1


# --- password reset: at most PASSWORD_RESET_LIMIT emails per address and hour ---------------------

@pytest.mark.parametrize("address", ["bob@example.com", "nobody@example.com"])
def test_password_reset_emails_are_limited_per_address_and_hour(client, bob, clock, address):
    url = reverse("password_reset")
    has_account = address == "bob@example.com"
    for _ in range(accounts.PASSWORD_RESET_LIMIT):
        response = client.post(url, {"email": address})
        assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert len(mail.outbox) == (accounts.PASSWORD_RESET_LIMIT if has_account else 0)
    # One more in the same hour: refused with the reason, the same for an address with no account.
    response = client.post(url, {"email": address.upper()})
    assert response.status_code == 200
    assert "Too many password reset emails" in response.content.decode()
    assert len(mail.outbox) == (accounts.PASSWORD_RESET_LIMIT if has_account else 0)
    # Another address is not affected, and the next hour the address may ask again.
    assert client.post(url, {"email": "carol-other@example.com"}).status_code == 302
    clock["t"] += HOUR
    assert client.post(url, {"email": address}).status_code == 302
    assert len(mail.outbox) == (accounts.PASSWORD_RESET_LIMIT + 1 if has_account else 0)


# --- your API tokens: hashed at rest, listed, made, revoked, expired; a new password revokes them ---

def _token_client(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def _bobs_token(bob) -> str:
    return actions.create_api_token(user=bob)[1]


def _refused(key: str) -> bool:
    return _token_client(key).get("/api/campaigns/").status_code in (401, 403)


def test_a_stored_token_is_not_its_key(bob):
    """Issue 34 item 4: the database holds the key's SHA-256, not the key, nor any column a key
    could be read back from."""
    from campaign.models import ApiToken

    token, key = actions.create_api_token(user=bob, name="script")
    stored = ApiToken.objects.filter(pk=token.pk).values().get()
    assert key not in {str(v) for v in stored.values()}
    assert stored["digest"] == hashlib.sha256(key.encode()).hexdigest() and stored["prefix"] == key[:8]
    assert not _refused(key)


# serialized_rollback: the flush after a transactional test would otherwise take the rows the
# migrations made (content types, the starter designs) from the tests that follow.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_keys_made_before_hashing_keep_working_after_the_migration(bob):
    """A DRF token row (authtoken_token, keys in clear) becomes a digest: the old key still
    authenticates, and the table with the clear keys is gone."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from campaign.models import ApiToken

    executor = MigrationExecutor(connection)
    executor.migrate([("campaign", "0011_membership_notify_press")])
    old_key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created timestamp NOT NULL,"
                       " user_id integer NOT NULL)")
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, %s, %s)", [old_key, "2026-01-02 03:04:05", bob.pk])
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert "authtoken_token" not in connection.introspection.table_names()
    token = ApiToken.objects.get(user=bob)
    assert token.digest == hashlib.sha256(old_key.encode()).hexdigest() and token.created.year == 2026
    assert lookups.user_and_token(old_key)[0] == bob


def test_an_unused_token_expires_and_use_keeps_it_alive(bob, settings):
    from datetime import timedelta

    from django.utils import timezone

    from campaign.models import ApiToken

    settings.API_TOKEN_IDLE_DAYS = 30
    token, key = actions.create_api_token(user=bob)
    ApiToken.objects.filter(pk=token.pk).update(created=timezone.now() - timedelta(days=29))
    assert not _refused(key)  # used: its clock starts again
    assert ApiToken.objects.get(pk=token.pk).last_used > timezone.now() - timedelta(minutes=1)
    ApiToken.objects.filter(pk=token.pk).update(last_used=timezone.now() - timedelta(days=31))
    response = _token_client(key).get("/api/campaigns/")
    assert response.status_code in (401, 403) and "expired" in response.json()["detail"]
    settings.API_TOKEN_IDLE_DAYS = 0  # never
    assert not _refused(key)


def test_a_password_change_revokes_the_api_tokens(client, bob):
    key, other = _bobs_token(bob), _bobs_token(bob)
    assert not _refused(key) and not _refused(other)
    client.force_login(bob)
    response = client.post(reverse("password_change"), {
        "old_password": "pw-bob", "new_password1": "brand-new-secret-77", "new_password2": "brand-new-secret-77",
    })
    assert response.status_code == 302
    assert _refused(key) and _refused(other)
    assert _logged_in(client)  # the session that changed it stays logged in


def test_a_password_reset_revokes_the_api_token(client, bob):
    key = _bobs_token(bob)
    client.post(reverse("password_reset"), {"email": "bob@example.com"})
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/\S+/)", mail.outbox[0].body).group(1)
    form_url = client.get(link, follow=True).redirect_chain[-1][0]
    response = client.post(form_url, {"new_password1": "brand-new-secret-77", "new_password2": "brand-new-secret-77"})
    assert response.status_code == 302
    assert _refused(key)


def test_set_password_anywhere_revokes_the_token_but_a_hash_upgrade_does_not(bob, settings):
    _bobs_token(bob)
    # A log-in that upgrades the stored hash (here MD5 -> PBKDF2) is not a password change.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher",
                                 "django.contrib.auth.hashers.MD5PasswordHasher"]
    assert bob.check_password("pw-bob") and bob.password.startswith("pbkdf2_")
    assert bob.api_tokens.exists()
    bob.set_password("another-secret-99")  # as the admin and `changepassword` do
    bob.save()
    assert not bob.api_tokens.exists()


def test_the_account_page_lists_tokens_shows_a_key_once_and_revokes_each(client, bob):
    client.force_login(bob)
    page = client.get(reverse("account")).content.decode()
    assert "You have no token." in page and "Create a token" in page
    response = client.post(reverse("account-token-create"), {"name": "orders script"})
    assert response.status_code == 302 and response["Location"] == reverse("account") + "#api-token"
    page = client.get(reverse("account")).content.decode()
    key = re.search(r'class="token-key">([0-9a-f]{40})<', page).group(1)
    assert "not shown again" in page and "orders script" in page and key[:8] in page
    page = client.get(reverse("account")).content.decode()
    assert key not in page and "orders script" in page and "never used" in page
    assert not _refused(key)

    client.post(reverse("account-token-create"), {"name": "phone"})  # a second one, beside the first
    second = re.search(r'class="token-key">([0-9a-f]{40})<', client.get(reverse("account")).content.decode()).group(1)
    assert not _refused(key) and not _refused(second)
    first = bob.api_tokens.get(name="orders script")
    client.post(reverse("account-token-revoke"), {"token": str(first.pk)})
    assert _refused(key) and not _refused(second)

    client.post(reverse("account-token-revoke"))  # all of them
    assert not bob.api_tokens.exists() and _refused(second)
    assert "You have no token." in client.get(reverse("account")).content.decode()


def test_nobody_revokes_another_users_token_by_its_number(client, bob, carol):
    carols, _ = actions.create_api_token(user=carol)
    client.force_login(bob)
    client.post(reverse("account-token-revoke"), {"token": str(carols.pk)})
    client.post(reverse("account-token-revoke"), {"token": "²"})
    assert carol.api_tokens.count() == 1
    api = APIClient()
    api.force_authenticate(bob)
    assert api.delete(f"/api/account/tokens/{carols.pk}/").status_code == 404
    assert carol.api_tokens.count() == 1


def test_token_actions_need_a_post_and_a_login(client, bob):
    assert client.post(reverse("account-token-create")).status_code == 302  # to the log-in page
    client.force_login(bob)
    assert client.get(reverse("account-token-create")).status_code == 405
    assert client.get(reverse("account-token-revoke")).status_code == 405
    from campaign.models import ApiToken

    assert not ApiToken.objects.exists()


def test_the_token_api_shows_rotates_and_revokes_your_own_token(bob, carol):
    from campaign.models import ApiToken

    carols = ApiToken.objects.get(pk=actions.create_api_token(user=carol)[0].pk)
    api = APIClient()
    api.force_authenticate(bob)
    assert api.get("/api/account/token/").json() == {"exists": False, "created": None}
    assert api.delete("/api/account/token/").status_code == 404
    response = api.post("/api/account/token/")
    assert response.status_code == 201
    key = response.json()["token"]
    status = api.get("/api/account/token/").json()
    assert status["exists"] is True and status["created"] and key not in str(status)

    # With the token itself: rotating answers the new key, and the old one is refused from then on.
    response = _token_client(key).post("/api/account/token/")
    assert response.status_code == 201 and response.json()["token"] != key
    new_key = response.json()["token"]
    assert _token_client(key).get("/api/account/token/").status_code in (401, 403)
    assert _token_client(new_key).delete("/api/account/token/").status_code == 204
    assert _token_client(new_key).get("/api/account/token/").status_code in (401, 403)
    assert list(ApiToken.objects.values_list("pk", flat=True)) == [carols.pk]  # carol's untouched
    assert APIClient().get("/api/account/token/").status_code in (401, 403)


def test_the_tokens_api_lists_makes_and_revokes_named_tokens(bob):
    api = APIClient()
    api.force_authenticate(bob)
    assert api.get("/api/account/tokens/").json() == []
    made = api.post("/api/account/tokens/", {"name": "bot"}, format="json")
    assert made.status_code == 201 and made.json()["name"] == "bot"
    key = made.json()["token"]
    listed = api.get("/api/account/tokens/").json()
    assert [t["name"] for t in listed] == ["bot"] and key not in str(listed) and listed[0]["prefix"] == key[:8]
    assert listed[0]["expires"]
    assert api.post("/api/account/tokens/", {"name": "x" * 101}, format="json").status_code == 400
    assert api.post("/api/account/tokens/", {"name": ["bot"]}, format="json").status_code == 400
    assert api.delete(f"/api/account/tokens/{listed[0]['id']}/").status_code == 204
    assert _refused(key)
    assert api.delete(f"/api/account/tokens/{listed[0]['id']}/").status_code == 404


def test_the_token_api_is_in_the_schema(client, bob):
    client.force_login(bob)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operations = schema["paths"]["/api/account/token/"]
    assert set(operations) >= {"get", "post", "delete"}
    assert set(schema["paths"]["/api/account/tokens/"]) >= {"get", "post"}
    assert "delete" in schema["paths"]["/api/account/tokens/{token_id}/"]


# --- unconfirmed sign-ups are deleted after UNCONFIRMED_ACCOUNT_DAYS -----------------------------

def test_unconfirmed_signups_are_deleted_after_the_days_and_nothing_else_is(client, signup, small_campaign, bob):
    """``purgeaccounts`` (and beat's daily task) deletes a sign-up never confirmed after the days,
    freeing its name; a confirmed account, a young sign-up, a deactivated account that once logged
    in, and an inactive account a campaign refers to are all kept."""
    from datetime import timedelta
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError
    from django.utils import timezone

    from campaign.models import Empire

    User = get_user_model()
    signup(SIGNUP)
    signup({**SIGNUP, "username": "young", "email": "young@example.com"})
    old = timezone.now() - timedelta(days=8)
    User.objects.filter(username="dave").update(date_joined=old)
    gone = User.objects.create_user("gone", "gone@example.com", "x", is_active=False)
    User.objects.filter(pk=gone.pk).update(date_joined=old, last_login=old)  # deactivated after use
    seated = User.objects.create_user("seated", "seated@example.com", "x", is_active=False)
    User.objects.filter(pk=seated.pk).update(date_joined=old)
    Empire.objects.filter(campaign=small_campaign, seat=2).update(user=seated)
    User.objects.filter(pk=bob.pk).update(date_joined=old)

    out = StringIO()
    call_command("purgeaccounts", "--dry-run", stdout=out)
    assert out.getvalue().strip() == "would delete 1 unconfirmed account(s): dave"
    assert User.objects.filter(username="dave").exists()
    call_command("purgeaccounts", stdout=out)
    assert "deleted 1 unconfirmed account(s): dave" in out.getvalue()
    assert set(User.objects.values_list("username", flat=True)) >= {"young", "gone", "seated", "bob"}
    assert not User.objects.filter(username="dave").exists()
    # The name is free again.
    signup(SIGNUP)
    assert User.objects.filter(username="dave", is_active=False).exists()
    with pytest.raises(CommandError, match="days must be a whole number of 1 or more"):
        call_command("purgeaccounts", "--days", "0")


def test_the_daily_task_uses_the_setting_and_zero_keeps_them(signup, settings):
    from datetime import timedelta

    from django.utils import timezone

    from campaign import tasks

    assert (
        settings.CELERY_BEAT_SCHEDULE["purge-unconfirmed-accounts"]["task"]
        == "campaign.tasks.purge_unconfirmed_accounts"
    )
    User = get_user_model()
    signup(SIGNUP)
    User.objects.filter(username="dave").update(date_joined=timezone.now() - timedelta(days=3))
    settings.UNCONFIRMED_ACCOUNT_DAYS = 0
    assert tasks.purge_unconfirmed_accounts() == 0
    settings.UNCONFIRMED_ACCOUNT_DAYS = 7
    assert tasks.purge_unconfirmed_accounts() == 0
    settings.UNCONFIRMED_ACCOUNT_DAYS = 2
    assert tasks.purge_unconfirmed_accounts() == 1 and not User.objects.filter(username="dave").exists()


def test_createtoken_prints_a_working_key_once_and_refuses_a_stranger(bob):
    from io import StringIO

    from django.core.management import CommandError, call_command

    out = StringIO()
    call_command("createtoken", "bob", "--name", "cron", stdout=out)
    key = out.getvalue().strip()
    assert not _refused(key) and bob.api_tokens.get().name == "cron"
    call_command("createtoken", "bob", "--replace", stdout=StringIO())
    assert _refused(key) and bob.api_tokens.count() == 1
    with pytest.raises(CommandError, match="no user named"):
        call_command("createtoken", "nobody")


# --- changing your own email address (issue 34 item 6) ------------------------------------------

@pytest.fixture
def posting(client, django_capture_on_commit_callbacks):
    """client.post with the emails the action queues on commit sent."""
    def post(*args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(*args, **kwargs)
    return post


def _confirm_link(message) -> str:
    return re.search(r"https?://[^/\s]+(/accounts/email/confirm/\S+/)", message.body).group(1)


def test_an_email_change_needs_the_confirmation_link_and_tells_the_old_address(client, posting, bob):
    client.force_login(bob)
    response = posting(reverse("account-email"), {"email": "bob@new.example", "password": "pw-bob"})
    assert response.status_code == 302
    bob.refresh_from_db()
    assert bob.email == "bob@example.com"  # nothing changes before the link is used
    to_new, to_old = mail.outbox
    assert to_new.to == ["bob@new.example"] and to_old.to == ["bob@example.com"]
    link = _confirm_link(to_new)
    assert "/accounts/email/confirm/" not in to_old.body  # the old address gets no link

    page = client.get(link)  # a mail scanner's fetch changes nothing
    assert page.status_code == 200 and "bob@new.example" in page.content.decode()
    bob.refresh_from_db()
    assert bob.email == "bob@example.com"
    assert posting(link).status_code == 302
    bob.refresh_from_db()
    assert bob.email == "bob@new.example"
    assert mail.outbox[-1].to == ["bob@example.com"] and "was changed" in mail.outbox[-1].subject
    assert client.post(link).status_code == 400  # used: the address it was made for is gone


def test_an_email_change_is_refused_with_a_wrong_password_a_strangers_link_or_a_taken_address(
    client, posting, bob, carol
):
    client.force_login(bob)
    response = client.post(reverse("account-email"), {"email": "bob@new.example", "password": "wrong"})
    assert response.status_code == 200 and "not your password" in response.content.decode() and not mail.outbox
    posting(reverse("account-email"), {"email": "carol@example.com", "password": "pw-bob"})
    link = _confirm_link(mail.outbox[0])
    assert client.post(link).status_code == 409  # carol has that address
    bob.refresh_from_db()
    assert bob.email == "bob@example.com"
    client.force_login(carol)  # bob's link is no good to anyone else
    assert client.get(link).status_code == 400 and client.post(link).status_code == 400
    assert client.post("/accounts/email/confirm/forged/").status_code == 400
    carol.refresh_from_db()
    assert carol.email == "carol@example.com"


def test_a_password_change_outdates_an_email_change_link(client, posting, bob):
    client.force_login(bob)
    posting(reverse("account-email"), {"email": "bob@new.example", "password": "pw-bob"})
    link = _confirm_link(mail.outbox[0])
    bob.set_password("another-secret-99")
    bob.save()
    client.force_login(bob)
    assert client.post(link).status_code == 400
    bob.refresh_from_db()
    assert bob.email == "bob@example.com"


def test_the_21st_token_replaces_the_least_recently_used_one(bob):
    """At most TOKENS_PER_USER tokens: a used token outlives ones never used, on every database."""
    from django.utils import timezone

    from campaign import apitokens

    used, used_key = actions.create_api_token(user=bob, name="used")
    for n in range(apitokens.TOKENS_PER_USER - 1):
        actions.create_api_token(user=bob, name=f"idle {n}")
    apitokens.touch(used, timezone.now())
    actions.create_api_token(user=bob, name="newest")
    names = set(bob.api_tokens.values_list("name", flat=True))
    assert len(names) == apitokens.TOKENS_PER_USER and {"used", "newest"} <= names and "idle 0" not in names
    assert not _refused(used_key)
