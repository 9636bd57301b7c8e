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


@transaction.atomic
def request_email_change(*, user, new_email: str) -> None:
    """Email a confirmation link to ``new_email`` and a notice to the current address (on commit);
    nothing changes until the link is used (``confirm_email_change``). The form checked the
    password and the limits."""
    if user is None or not user.is_authenticated:
        raise NotAllowed("log in to change your email address")
    transaction.on_commit(lambda: accounts_module().send_email_change_emails(user.pk, new_email), robust=True)
    _account_log().info("user %s asked to change their email address", user.pk)


@transaction.atomic
def confirm_email_change(*, user, token: str):
    """Apply an emailed address-change link for the logged-in ``user``. Refused if the link is
    not this user's, expired, or outdated (the address or password changed since), or another
    account has the address by now. The old address is told (on commit). Returns the user."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    if user is None or not user.is_authenticated:
        raise NotAllowed("log in to change your email address")
    locked = User.objects.select_for_update().get(pk=user.pk)
    new_email = accounts_module().read_email_change_token(token, locked)
    if new_email is None:
        raise ActionError("this link is wrong, has expired, has been used already or belongs to another account")
    if User.objects.filter(email__iexact=new_email).exclude(pk=locked.pk).exists():
        raise ActionError("another account has this email address")
    old_email = locked.email
    locked.email = new_email
    locked.save(update_fields=["email"])
    transaction.on_commit(lambda: accounts_module().send_email_changed_notice(locked.pk, old_email), robust=True)
    _account_log().info("user %s changed their email address", locked.pk)
    return locked


def accounts_module():
    from .. import accounts

    return accounts


@transaction.atomic
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
    for user in candidates:
        if any(r.related_model._default_manager.filter(**{r.field.name: user}).exists() for r in relations):
            continue
        gone.append(user.username)
        if not dry_run:
            user.delete()
            _account_log().info("user %s deleted: address not confirmed in %s days", user.pk, days)
    return gone


# API tokens (campaign/apitokens.py): stored as digests, the key shown once. A user may hold
# several, each named; the account page and /api/account/tokens/ list, make and revoke them, and
# a password change or reset revokes them all (accounts.RevokeApiTokenOnPasswordChange). Accounts
# have no campaign, so no AuditEntry: these are logged on the "campaign.accounts" logger.

def _account_log():
    import logging

    return logging.getLogger("campaign.accounts")


def _token_owner(user):
    from django.contrib.auth import get_user_model

    if user is None or not user.is_authenticated:
        raise NotAllowed("log in to manage your API tokens")
    # The user row is the lock: two requests at once make one token after the other.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()


@transaction.atomic
def create_api_token(*, user, name: str = "API token"):
    """A new API token for the user, beside the ones they have. Returns (token, key): the key is
    shown to the user once and stored nowhere. Past TOKENS_PER_USER the least recently used
    token is revoked."""
    from django.db.models import F

    from campaign import apitokens
    from campaign.models import ApiToken

    _token_owner(user)
    name = (name or "").strip() or "API token"
    if len(name) > 100:
        raise ActionError("a token's name is at most 100 characters")
    # Most recently used first, never used last (PostgreSQL would sort NULLs first), the newest first.
    held = list(ApiToken.objects.filter(user=user)
                .order_by(F("last_used").desc(nulls_last=True), "-created", "-pk").values_list("pk", flat=True))
    if len(held) >= apitokens.TOKENS_PER_USER:
        ApiToken.objects.filter(pk__in=held[apitokens.TOKENS_PER_USER - 1:]).delete()
    key = apitokens.new_key()
    token = ApiToken.objects.create(user=user, name=name, digest=apitokens.digest(key), prefix=key[:8])
    _account_log().info("API token %s (%s) created for user %s", token.pk, token.prefix, user.pk)
    return token, key


@transaction.atomic
def rotate_api_token(*, user, name: str = "API token"):
    """One new API token for the user, replacing every token they had. Returns (token, key)."""
    from campaign.models import ApiToken

    _token_owner(user)
    replaced = ApiToken.objects.filter(user=user).delete()[0]
    token, key = create_api_token(user=user, name=name)
    _account_log().info("API tokens of user %s replaced (%s revoked)", user.pk, replaced)
    return token, key


@transaction.atomic
def revoke_api_token(*, user, token_id=None, reason: str = "revoked by its owner") -> bool:
    """Delete one of the user's API tokens (``token_id``), or all of them; True if any was."""
    from campaign.models import ApiToken

    if user is None or user.pk is None:
        raise NotAllowed("log in to manage your API tokens")
    tokens = ApiToken.objects.filter(user_id=user.pk)
    if token_id is not None:
        tokens = tokens.filter(pk=token_id)
    revoked = tokens.delete()[0] > 0
    if revoked:
        _account_log().info("API token%s of user %s deleted: %s",
                            "" if token_id is None else f" {token_id}", user.pk, reason)
    return revoked
