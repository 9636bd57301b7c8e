"""Accounts: sign-up, activation and the API token.
"""
from __future__ import annotations

from django.db import transaction

from .errors import ActionError, NotAllowed, NotFound


@transaction.atomic
def create_account(*, username: str, email: str, password: str, active: bool = True):
    """A new player's account (the sign-up page validates the fields first: a free user name, an
    unused email address, a password the validators accept). Refused with ActionError if the
    name or address was taken meanwhile. ``active=False``: it cannot log in until its owner
    opens the confirmation link (``sign_up``)."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    email = User.objects.normalize_email(email)
    if User.objects.select_for_update().filter(username__iexact=username).exists():
        raise ActionError(f"the user name '{username}' is taken")
    if email and User.objects.filter(email__iexact=email).exists():
        raise ActionError("an account with this email address exists already")
    return User.objects.create_user(username=username, email=email, password=password, is_active=active)


@transaction.atomic
def sign_up(*, username: str, email: str, password: str, next_url: str = "") -> None:
    """The sign-up form, answered the same whether or not the address has an account, so the
    form does not tell who has one (docs/online-play.md "Accounts"):

    - a new address: the account is made inactive and a link to confirm the address is emailed;
      opening it (``activate_account``) lets the account log in;
    - an address an account has: nothing is made; its owner is emailed that someone tried to sign
      up with it (with the log-in and password reset links — or, if that account was never
      confirmed, a new confirmation link).

    The user name is checked by the form (user names are public on the site); one taken meanwhile
    is refused with ActionError. Emails are sent once the transaction commits."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from .. import accounts

    User = get_user_model()
    email = User.objects.normalize_email(email)
    existing = User.objects.filter(email__iexact=email).order_by("pk").first() if email else None
    if existing is not None:
        if User.objects.filter(username__iexact=username).exists():
            raise ActionError(f"the user name '{username}' is taken")
        make_password(password)  # the work a new account costs, so the answer's timing does not tell
        transaction.on_commit(lambda: accounts.send_signup_email(existing.pk, email, next_url,
                                                                 attempted_username=username), robust=True)
        _account_log().info("sign-up attempted with the address of user %s", existing.pk)
        return
    user = create_account(username=username, email=email, password=password, active=False)
    transaction.on_commit(lambda: accounts.send_signup_email(user.pk, email, next_url), robust=True)
    _account_log().info("user %s signed up; the address is not confirmed yet", user.pk)


@transaction.atomic
def activate_account(*, user_id: int):
    """Confirm a signed-up account's address (the emailed link was checked by the page): the
    account can log in from now on. Returns the user."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.select_for_update().filter(pk=user_id).first()
    if user is None:
        raise NotFound("no such account")
    if not user.is_active:
        user.is_active = True
        user.save(update_fields=["is_active"])
        _account_log().info("user %s confirmed their address", user.pk)
    return user


def purge_unconfirmed_accounts(*, now, days: int, dry_run: bool = False) -> list[str]:
    """Delete the sign-ups whose address was never confirmed ``days`` days after they were made
    (the emailed link lasts PASSWORD_RESET_TIMEOUT, 3 days by default), freeing their user names.
    Only accounts that were never active and never logged in, hold no staff rights and that
    nothing else on the site refers to (no seat, no campaign, no token: every reverse relation of
    the user model is checked, so a new app's rows keep their account too). Returns the user
    names deleted (or that would be, with ``dry_run``)."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model

    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise ActionError(f"days must be a whole number of 1 or more, not {days!r}")
    User = get_user_model()
    candidates = (User.objects.filter(is_active=False, last_login__isnull=True, is_staff=False, is_superuser=False,
                                      date_joined__lt=now - timedelta(days=days))
                  .order_by("pk").select_for_update(skip_locked=True))
    relations = [r for r in User._meta.related_objects if r.related_model is not User]
    gone = []
    with transaction.atomic():
        for user in candidates:
            if any(r.related_model._default_manager.filter(**{r.field.name: user}).exists() for r in relations):
                continue
            gone.append(user.username)
            if not dry_run:
                user.delete()
                _account_log().info("user %s deleted: address not confirmed in %s days", user.pk, days)
    return gone


# An account has at most one API token (DRF's Token). Its owner sees when it was made, makes a new
# one (the old key stops working at once) or revokes it; a password change or reset revokes it
# (accounts.RevokeApiTokenOnPasswordChange). Accounts have no campaign, so no AuditEntry: these
# are logged on the "campaign.accounts" logger.

def _account_log():
    import logging

    return logging.getLogger("campaign.accounts")


@transaction.atomic
def rotate_api_token(*, user):
    """A new API token for the user, replacing any they had. Returns the Token (its key is shown
    to the user once)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    if user is None or not user.is_authenticated:
        raise NotAllowed("log in to manage your API token")
    # The user row is the lock: two rotations at once make one token after the other.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    replaced = Token.objects.filter(user=user).delete()[0] > 0
    token = Token.objects.create(user=user)
    _account_log().info("API token %s for user %s", "rotated" if replaced else "created", user.pk)
    return token


@transaction.atomic
def revoke_api_token(*, user, reason: str = "revoked by its owner") -> bool:
    """Delete the user's API token; True if there was one."""
    from rest_framework.authtoken.models import Token

    if user is None or user.pk is None:
        raise NotAllowed("log in to manage your API token")
    revoked = Token.objects.filter(user_id=user.pk).delete()[0] > 0
    if revoked:
        _account_log().info("API token of user %s deleted: %s", user.pk, reason)
    return revoked
