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

from campaign import accounts, actions


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
    from rest_framework.authtoken.models import Token

    memberships = request.user.memberships.select_related("campaign", "empire").order_by("-campaign__created_at")
    token = Token.objects.filter(user=request.user).only("created").first()
    # A new key is shown once, on the page right after it was made; never again afterwards.
    new_key = request.session.pop(NEW_TOKEN_SESSION_KEY, None)
    return render(request, "registration/account.html", {
        "memberships": memberships, "token": token,
        "new_key": new_key if token is not None and new_key == token.key else None,
    })


@login_required
@require_POST
def rotate_token(request):
    token = actions.rotate_api_token(user=request.user)
    request.session[NEW_TOKEN_SESSION_KEY] = token.key
    messages.success(request, "Your new API token is below: copy it now, it is not shown again. "
                              "The previous token, if any, no longer works.")
    return redirect(reverse("account") + "#api-token")


@login_required
@require_POST
def revoke_token(request):
    if actions.revoke_api_token(user=request.user):
        messages.success(request, "Your API token is revoked: programs using it are refused from now on.")
    else:
        messages.info(request, "You had no API token.")
    return redirect(reverse("account") + "#api-token")
