"""Account pages: log in (throttled per account, campaign/accounts.py), sign up, activate, my
account and its API token."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from campaign import accounts, actions, sanitise


class LoginView(auth_views.LoginView):
    authentication_form = accounts.ThrottledAuthenticationForm


def _next_url(request, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                       require_https=request.is_secure()):
        return target
    return default


def signup(request):
    """Sign up: the same answer whether or not the address has an account (actions.sign_up)."""
    if request.user.is_authenticated:
        return redirect(_next_url(request, reverse("home")))
    form = accounts.SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            actions.sign_up(username=form.cleaned_data["username"], email=form.cleaned_data["email"],
                            password=form.cleaned_data["password1"], next_url=_next_url(request, ""))
        except actions.ActionError as exc:
            form.add_error(None, str(exc))
            return render(request, "registration/signup.html", {"form": form, "next": _next_url(request, "")})
        return redirect("signup-sent")
    return render(request, "registration/signup.html", {"form": form, "next": _next_url(request, "")})


def signup_sent(request):
    return render(request, "registration/signup_sent.html")


def activate(request, uidb64: str, token: str):
    """The emailed confirmation link: a page with one button (a mail scanner that fetches the
    link confirms nothing); pressing it activates the account and logs in."""
    from django.utils.encoding import force_str
    from django.utils.http import urlsafe_base64_decode

    try:
        user_id = int(force_str(urlsafe_base64_decode(uidb64)))
    except (TypeError, ValueError, OverflowError):
        user_id = None
    user = get_user_model().objects.filter(pk=user_id).first() if user_id is not None else None
    valid = user is not None and not user.is_active and accounts.activation_tokens.check_token(user, token)
    if not valid:
        return render(request, "registration/activate.html", {"validlink": False}, status=400)
    if request.method == "POST":
        user = actions.activate_account(user_id=user.pk)
        login(request, user, backend="campaign.accounts.ThrottledModelBackend")
        messages.success(request, f"Welcome, {user.username}: your account is ready.")
        return redirect(_next_url(request, reverse("home")))
    return render(request, "registration/activate.html",
                  {"validlink": True, "account": user, "next": _next_url(request, "")})


NEW_TOKEN_SESSION_KEY = "new-api-token"


@login_required
def account(request):
    from campaign import apitokens

    memberships = request.user.memberships.select_related("campaign", "empire").order_by("-campaign__created_at")
    tokens = list(request.user.api_tokens.all())
    for token in tokens:
        token.expires_at = apitokens.expires_at(token)
        token.expired = apitokens.expired(token)
    # A new key is shown once, on the page right after it was made; never again afterwards.
    new = request.session.pop(NEW_TOKEN_SESSION_KEY, None)
    new_key = None
    if isinstance(new, dict) and any(t.pk == new.get("id") for t in tokens):
        new_key = new.get("key")
    return render(request, "registration/account.html", {
        "memberships": memberships, "tokens": tokens, "new_key": new_key,
        "idle_days": apitokens.idle_limit().days if apitokens.idle_limit() else None,
    })


@login_required
@require_POST
def create_token(request):
    try:
        token, key = actions.create_api_token(user=request.user, name=request.POST.get("name", ""))
    except actions.ActionError as exc:
        messages.error(request, str(exc))
        return redirect(reverse("account") + "#api-token")
    request.session[NEW_TOKEN_SESSION_KEY] = {"id": token.pk, "key": key}
    messages.success(request, f"Your new API token “{token.name}” is below: copy it now, it is not shown again.")
    return redirect(reverse("account") + "#api-token")


@login_required
@require_POST
def revoke_token(request):
    token_id = request.POST.get("token")
    number = sanitise.whole_number(token_id) if token_id is not None else None
    if token_id is not None and number is None:
        messages.error(request, "No such token.")
    elif actions.revoke_api_token(user=request.user, token_id=number):
        messages.success(request, "Revoked: programs using that token are refused from now on."
                         if token_id is not None else "All your API tokens are revoked.")
    else:
        messages.info(request, "You had no such token.")
    return redirect(reverse("account") + "#api-token")


@login_required
def change_email(request):
    form = accounts.EmailChangeForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        actions.request_email_change(user=request.user, new_email=form.cleaned_data["email"])
        messages.success(request, f"A link to confirm {form.cleaned_data['email']} is on its way there. "
                                  "Your address changes when you open it.")
        return redirect("account")
    return render(request, "registration/email_change.html", {"form": form})


@login_required
def confirm_email(request, token: str):
    """The emailed link: a page with one button (a mail scanner fetching the link changes nothing)."""
    new_email = accounts.read_email_change_token(token, request.user)
    if request.method == "POST" and new_email is not None:
        try:
            actions.confirm_email_change(user=request.user, token=token)
        except actions.ActionError as exc:
            return render(request, "registration/email_change_confirm.html", {"error": str(exc)}, status=409)
        messages.success(request, f"Your email address is now {new_email}.")
        return redirect("account")
    if new_email is None:
        return render(
            request,
            "registration/email_change_confirm.html",
            {
                "error": "This link is wrong, has expired, has been used already or belongs to another account."
            },
            status=400,
        )
    return render(request, "registration/email_change_confirm.html", {"new_email": new_email})
