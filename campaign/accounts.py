"""Accounts: the throttled log-in backend, the sign-up, log-in and password-reset forms, the
activation tokens and the sign-up email. The pages are ``campaign/views/accounts.py``; the API's
``POST /api/token/`` is ``campaign/api/token.py``.

Failed log-ins are throttled per account: at most ``LOGIN_FAILURE_LIMIT`` failures per account in
each clock hour, counted in Django's cache (Redis in production, local memory by default) under
the normalised username and the hour. Once an account reaches the limit every further attempt
for it is refused until the hour is over, even with the right password, so guessing a password
gets at most 100 tries an hour. Other accounts are not affected.

``ThrottledModelBackend`` keeps the count inside ``authenticate()`` itself, so every way in (the
log-in page, the admin's log-in, the API's token endpoint) is throttled alike; the log-in form and
the token endpoint check first to say why. Each attempt takes its place in the count with one
atomic increment *before* the password is checked (issue 14: checking first and counting after
let twelve simultaneous guesses all through past the limit): an attempt whose place is beyond
the limit is refused unchecked and gives its place back; a right password gives its place back
too, so the count is of wrong passwords checked, and exactly the limit are checked per hour
however many arrive at once.
"""

from __future__ import annotations

import hashlib
import time
import unicodedata
from datetime import UTC, datetime
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from . import actions, lookups

LOGIN_FAILURE_LIMIT = 100
LOGIN_WINDOW_SECONDS = 3600
PASSWORD_RESET_LIMIT = 5  # reset emails asked for one address in an hour


def clock() -> float:
    """Seconds since the epoch; tests patch this to move through the hour windows."""
    return time.time()


def _normalise(username: str) -> str:
    return unicodedata.normalize("NFKC", username or "").strip().casefold()


def _window() -> int:
    return int(clock() // LOGIN_WINDOW_SECONDS)


def _key(username: str, window: int, kind: str = "login-failures") -> str:
    # Hashed: usernames may hold characters that cache backends refuse in keys.
    digest = hashlib.sha256(_normalise(username).encode()).hexdigest()
    return f"{kind}:{window}:{digest}"


def _count(kind: str, name: str) -> int:
    """How many times ``kind`` happened to ``name`` in the current hour."""
    return int(cache.get(_key(name, _window(), kind)) or 0)


def _count_one(kind: str, name: str) -> int:
    """Count one ``kind`` for ``name``; returns the count in the current hour."""
    return _take_place(kind, name)[1]


def _take_place(kind: str, name: str) -> tuple[str, int]:
    """Count one ``kind`` for ``name`` atomically (cache ``add`` then ``incr``: Redis INCR, or
    local memory under its lock); returns the key and the count including this one."""
    window = _window()
    key = _key(name, window, kind)
    # Kept a little past the window's end, then the cache forgets it.
    timeout = int((window + 1) * LOGIN_WINDOW_SECONDS - clock()) + 60
    cache.add(key, 0, timeout=timeout)
    try:
        return key, cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 0, timeout=timeout)
        return key, cache.incr(key)


def _give_back(key: str) -> None:
    try:
        cache.decr(key)
    except ValueError:  # the window's key has expired meanwhile: nothing to give back
        pass


def login_failures(username: str) -> int:
    """Failed log-ins for this account in the current hour."""
    return _count("login-failures", username)


def is_locked(username: str) -> bool:
    return bool(username) and login_failures(username) >= LOGIN_FAILURE_LIMIT


def record_failure(username: str) -> int:
    """Count one failed log-in for the account; returns the count in the current hour."""
    return _count_one("login-failures", username)


def unlocks_at() -> datetime:
    return datetime.fromtimestamp((_window() + 1) * LOGIN_WINDOW_SECONDS, tz=UTC)


def lock_message() -> str:
    return (
        f"Too many failed log-ins for this account: it is locked until {unlocks_at():%H:%M} UTC. "
        "Forgotten your password? Reset it by email."
    )


class ThrottledModelBackend(ModelBackend):
    """Django's model backend, refusing any account that has reached its failure limit. The
    count is taken before the password is checked (see the module's docstring)."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        name = username if username is not None else kwargs.get(get_user_model().USERNAME_FIELD)
        if not isinstance(name, str) or not name:
            return super().authenticate(request, username=username, password=password, **kwargs)
        if is_locked(name):  # the common refusal, without touching the count
            raise PermissionDenied(lock_message())
        key, place = _take_place("login-failures", name)
        if place > LOGIN_FAILURE_LIMIT:  # others took the last places meanwhile
            _give_back(key)
            if request is not None:
                request.login_throttled = True  # the form and the token endpoint say why
            # PermissionDenied stops authenticate() at once: no other backend is asked.
            raise PermissionDenied(lock_message())
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            _give_back(key)  # only wrong passwords count
        return user

    def get_user(self, user_id):
        # Every logged-in request asks this once: one plain query instead of the ORM's
        # (campaign/lookups.py), the same user and the same refusal of inactive accounts.
        user = lookups.user_by_id(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None


class RevokeApiTokenOnPasswordChange:
    """Listed in AUTH_PASSWORD_VALIDATORS for Django's ``password_changed`` hook, which runs
    whenever a user is saved after ``set_password`` — the password change and reset pages, the
    admin, ``changepassword`` — but not when a hash is only upgraded: a new password revokes the
    account's API token, so a program holding the old one is signed out with the old password.
    It refuses no password."""

    def validate(self, password, user=None):
        return None

    def password_changed(self, password, user=None):
        if user is not None and user.pk is not None:
            actions.revoke_api_token(user=user, reason="the password changed")

    def get_help_text(self):
        return "Changing your password revokes your API token."


class ThrottledPasswordResetForm(PasswordResetForm):
    """Django's password reset, at most PASSWORD_RESET_LIMIT emails per address and hour, so the
    form cannot be used to flood someone's mailbox. Every address asked for is counted, whether
    or not an account has it: the answer never tells which addresses have accounts."""

    def clean_email(self):
        email = self.cleaned_data["email"]
        if _count("password-resets", email) >= PASSWORD_RESET_LIMIT:
            raise ValidationError(
                f"Too many password reset emails were asked for this address in the last hour: "
                f"try again after {unlocks_at():%H:%M} UTC.", code="throttled")
        return email

    def save(self, *args, **kwargs):
        _count_one("password-resets", self.cleaned_data["email"])
        # The link is built from SITE_URL, never from the request's Host header (which a client
        # chooses: with DEBUG on any host is allowed, so a forged Host would send the reset link,
        # token and all, to a site of the sender's choosing).
        site = urlsplit(settings.SITE_URL)
        kwargs.update(domain_override=site.netloc, use_https=site.scheme == "https",
                      extra_email_context={**(kwargs.get("extra_email_context") or {}),
                                           "site_url": settings.SITE_URL.rstrip("/")})
        return super().save(*args, **kwargs)


class ThrottledAuthenticationForm(AuthenticationForm):
    def clean(self):
        username = self.cleaned_data.get("username")
        if username and is_locked(username):
            raise ValidationError(lock_message(), code="throttled")
        try:
            return super().clean()
        except ValidationError:
            if getattr(self.request, "login_throttled", False):  # others took the last places meanwhile
                raise ValidationError(lock_message(), code="throttled") from None
            raise


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        help_text="For password resets and campaign emails (invitations, turn reports, reminders)."
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ["username", "email"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # What a new password must be, without what changing one later does (the API token a
        # new account does not have yet: RevokeApiTokenOnPasswordChange's help, issue 23 item 23).
        from django.contrib.auth import password_validation

        rules = [v for v in password_validation.get_default_password_validators()
                 if not isinstance(v, RevokeApiTokenOnPasswordChange)]
        if "password1" in self.fields:
            self.fields["password1"].help_text = password_validation.password_validators_help_text_html(rules)

    def clean_email(self):
        # Whether an account has this address is not said here (actions.sign_up emails its owner
        # instead). Sign-up emails are limited per address and hour like password resets, counted
        # the same whether or not an account has it.
        email = get_user_model().objects.normalize_email(self.cleaned_data["email"])
        if _count("signup-emails", email) >= PASSWORD_RESET_LIMIT:
            raise ValidationError(
                f"Too many sign-up emails were sent to this address in the last hour: try again after "
                f"{unlocks_at():%H:%M} UTC.", code="throttled")
        return email


def _over(kind: str, name: str, limit: int) -> tuple[str, bool]:
    """Take a place in ``kind``'s count for ``name`` (0: no limit); (its key, whether beyond)."""
    if limit <= 0:
        return "", False
    key, count = _take_place(kind, name)
    return key, count > limit


def seconds_to_next_window() -> int:
    return max(1, int(unlocks_at().timestamp() - clock()))


def take_invitation_place(sender, address: str) -> str | None:
    """Count one invitation email from ``sender`` to ``address`` (a campaign lobby's or a pickup
    battle's), as sign-up and reset emails are counted: at most INVITATION_EMAILS_PER_SENDER by one
    account and INVITATION_EMAILS_PER_ADDRESS to one address in each clock hour (issue 24: 200
    requests sent 200 emails). Over either, nothing is counted and the reason is returned; else None."""
    address = get_user_model().objects.normalize_email(address or "").strip().casefold()
    by_sender = _over("invitations-sent", str(sender.pk), settings.INVITATION_EMAILS_PER_SENDER)
    to_address = _over("invitations-received", address, settings.INVITATION_EMAILS_PER_ADDRESS)
    if not (by_sender[1] or to_address[1]):
        return None
    for key, _ in (by_sender, to_address):
        if key:
            _give_back(key)
    whom = "you have sent" if by_sender[1] else "this address was sent"
    return (f"too many invitation emails: {whom} the most an hour allows; try again after "
            f"{unlocks_at():%H:%M} UTC")


def take_pickup_place(user) -> str | None:
    """Count one pickup battle created by ``user``: at most PICKUP_CREATE_LIMIT in each clock hour
    (issue 24: 200 were made in 7 s). Over it, nothing is counted and the reason is returned."""
    key, over = _over("pickups-created", str(user.pk), settings.PICKUP_CREATE_LIMIT)
    if not over:
        return None
    _give_back(key)
    return (f"you have created {settings.PICKUP_CREATE_LIMIT} pickup battles this hour, the most allowed; "
            f"try again after {unlocks_at():%H:%M} UTC")


class ActivationTokenGenerator(PasswordResetTokenGenerator):
    """The sign-up confirmation link's token: valid for PASSWORD_RESET_TIMEOUT (3 days by default),
    and no longer once the account is active (the state is in the hash)."""

    key_salt = "campaign.accounts.ActivationTokenGenerator"

    def _make_hash_value(self, user, timestamp):
        return f"{user.pk}{user.password}{user.is_active}{user.email}{timestamp}"


activation_tokens = ActivationTokenGenerator()


def _site_link(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def send_signup_email(user_id: int, email: str, next_url: str = "", *, attempted_username: str | None = None) -> None:
    """Email the sign-up form's answer to ``email`` (run on commit by actions.sign_up): a
    confirmation link for a new or never-confirmed account, or — ``attempted_username`` set, the
    address having a confirmed account — a notice that someone tried to sign up with it."""
    from django.core.mail import send_mail
    from django.template.loader import render_to_string
    from django.utils.encoding import force_bytes
    from django.utils.http import urlencode, urlsafe_base64_encode

    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        return
    _count_one("signup-emails", email)
    context = {"user": user, "attempted_username": attempted_username, "site_url": settings.SITE_URL.rstrip("/"),
               "login_url": _site_link(reverse("login")), "reset_url": _site_link(reverse("password_reset"))}
    if user.is_active:
        subject, template = (
            "Sector Command: someone tried to sign up with your address",
            "registration/signup_exists_email.txt",
        )
    else:
        path = reverse(
            "activate", args=[urlsafe_base64_encode(force_bytes(user.pk)), activation_tokens.make_token(user)]
        )
        context["activation_url"] = _site_link(path) + (f"?{urlencode({'next': next_url})}" if next_url else "")
        subject, template = "Sector Command: confirm your email address", "registration/activation_email.txt"
    send_mail(
        subject=subject,
        message=render_to_string(template, context),
        from_email=None,
        recipient_list=[user.email],
    )


# --- changing your own email address ----------------------------------------------------------
# The address authorises mailed orders, so a change takes a link sent to the new address (proof
# that the owner reads it) while logged in as the account, and the old address is told. The link
# carries the user, the new address and a fingerprint of the current address and password: it
# stops working once either changes, and after PASSWORD_RESET_TIMEOUT.

EMAIL_CHANGE_SALT = "campaign.accounts.email-change"


def _email_change_fingerprint(user) -> str:
    from django.utils.crypto import salted_hmac

    return salted_hmac(EMAIL_CHANGE_SALT, f"{user.pk}:{user.email}:{user.password}").hexdigest()[:16]


def email_change_token(user, new_email: str) -> str:
    from django.core import signing

    return signing.dumps({"u": user.pk, "e": new_email, "f": _email_change_fingerprint(user)}, salt=EMAIL_CHANGE_SALT)


def read_email_change_token(token: str, user) -> str | None:
    """The new address a link for this user asks for, or None (forged, expired, another user's,
    or the address or password changed since it was sent)."""
    from django.core import signing

    try:
        data = signing.loads(token, salt=EMAIL_CHANGE_SALT, max_age=settings.PASSWORD_RESET_TIMEOUT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("u") != user.pk or data.get("f") != _email_change_fingerprint(user):
        return None
    return data.get("e") if isinstance(data.get("e"), str) else None


class EmailChangeForm(forms.Form):
    email = forms.EmailField(label="New email address", max_length=254,
                             help_text="A link to confirm it is sent there; your current address is told.")
    password = forms.CharField(label="Your password", widget=forms.PasswordInput, strip=False)

    def __init__(self, user, *args, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_password(self):
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise ValidationError("That is not your password.", code="password_incorrect")
        return password

    def clean_email(self):
        email = get_user_model().objects.normalize_email(self.cleaned_data["email"])
        if email.lower() == (self.user.email or "").lower():
            raise ValidationError("That is your address already.", code="same")
        if (
            _count("email-changes", email) >= PASSWORD_RESET_LIMIT
            or _count("email-changes", f"user:{self.user.pk}") >= PASSWORD_RESET_LIMIT
        ):
            raise ValidationError(f"Too many address changes were asked for in the last hour: try again after "
                                  f"{unlocks_at():%H:%M} UTC.", code="throttled")
        return email


def send_email_change_emails(user_id: int, new_email: str) -> None:
    """The confirmation link to the new address and a notice to the old one (run on commit by
    actions.request_email_change)."""
    from django.core.mail import send_mail
    from django.template.loader import render_to_string

    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        return
    _count_one("email-changes", new_email)
    _count_one("email-changes", f"user:{user.pk}")
    context = {"user": user, "new_email": new_email, "site_url": settings.SITE_URL.rstrip("/"),
               "confirm_url": _site_link(reverse("account-email-confirm", args=[email_change_token(user, new_email)])),
               "reset_url": _site_link(reverse("password_reset"))}
    send_mail(subject="Sector Command: confirm your new email address", from_email=None, recipient_list=[new_email],
              message=render_to_string("registration/email_change_email.txt", context))
    if user.email:
        send_mail(
            subject="Sector Command: a change of your email address was asked for",
            from_email=None,
            recipient_list=[user.email],
            message=render_to_string("registration/email_change_notice.txt", context),
        )


def send_email_changed_notice(user_id: int, old_email: str) -> None:
    from django.core.mail import send_mail
    from django.template.loader import render_to_string

    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None or not old_email:
        return
    context = {"user": user, "old_email": old_email, "reset_url": _site_link(reverse("password_reset"))}
    send_mail(subject="Sector Command: your email address was changed", from_email=None, recipient_list=[old_email],
              message=render_to_string("registration/email_changed_notice.txt", context))
