from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from campaign import accounts
from campaign.api import token as token_api
from campaign.views import accounts as account_views


class FaviconView(RedirectView):
    permanent = True

    def get_redirect_url(self, *args, **kwargs):
        return static("favicon.svg")  # per request: the manifest's hashed name in production


# The API, tried first and Event Horizon's own first: Django tries the patterns in order, and order
# submission and the map are the API's most frequent calls (issue 34 item 10). No two of these
# share an address, so the order changes what each address costs to find, never what it finds.
api_patterns = [
    path("", include("campaign.eventhorizon.api.urls")),
    path("token/", token_api.ObtainTokenView.as_view(), name="api-token"),
    path("cam/", include("campaign.cam.api_urls")),
    path("", include("campaign.press.api_urls")),
    path("", include("campaign.groups.api_urls")),
    path("", include("campaign.api.urls")),
]

urlpatterns = [
    path("api/", include(api_patterns)),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico on pages that name none (JSON, the admin's): the site's icon.
    path("favicon.ico", FaviconView.as_view()),
    # Accounts (campaign/accounts.py): log-in is throttled per account, and so is /api/token/.
    path("accounts/login/", account_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", account_views.signup, name="signup"),
    path("accounts/signup/sent/", account_views.signup_sent, name="signup-sent"),
    path("accounts/activate/<uidb64>/<token>/", account_views.activate, name="activate"),
    path("accounts/", account_views.account, name="account"),
    path("accounts/token/", account_views.create_token, name="account-token-create"),
    path("accounts/email/", account_views.change_email, name="account-email"),
    path("accounts/email/confirm/<str:token>/", account_views.confirm_email, name="account-email-confirm"),
    path("accounts/token/revoke/", account_views.revoke_token, name="account-token-revoke"),
    path("accounts/password/change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "accounts/password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "accounts/password/reset/",
        auth_views.PasswordResetView.as_view(form_class=accounts.ThrottledPasswordResetForm),
        name="password_reset",
    ),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("", include("campaign.cam.urls")),
    path("", include("tactical.urls")),
    path("", include("campaign.press.urls")),
    path("", include("campaign.groups.urls")),
    path("", include("campaign.urls")),
    path("", include("campaign.eventhorizon.urls")),
]

if settings.BENCH_VIEWS:
    # bench/http.py's baseline and floors; off unless BENCH_VIEWS=1 (never on a normal site).
    from campaign.views import bench as bench_views

    urlpatterns[:0] = [
        path("bench/bare", bench_views.bare, name="bench-bare"),
        path("bench/login", bench_views.login, name="bench-login"),
        path("bench/token", bench_views.TokenView.as_view(), name="bench-token"),
    ]
