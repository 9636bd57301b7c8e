"""API authentication classes (REST_FRAMEWORK's DEFAULT_AUTHENTICATION_CLASSES).

Kept apart from campaign/accounts.py, which imports DRF views: DRF loads these classes while its
views module is being imported, so this module must not import views itself."""

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from .. import apitokens, lookups


class LeanTokenAuthentication(TokenAuthentication):
    """DRF's token authentication (``Authorization: Token <key>``) over the site's hashed tokens
    (campaign/apitokens.py): the key's digest and its user in one plain query
    (campaign/lookups.py); a token unused for API_TOKEN_IDLE_DAYS is refused as expired."""

    def authenticate_credentials(self, key):
        found = lookups.user_and_token(key) if isinstance(key, str) else None
        if found is None:
            raise AuthenticationFailed(_("Invalid token."))
        user, token = found
        if not user.is_active:
            raise AuthenticationFailed(_("User inactive or deleted."))
        if apitokens.expired(token):
            raise AuthenticationFailed(_("This token expired: it was not used for %(days)s days. Make a new one.")
                                       % {"days": settings.API_TOKEN_IDLE_DAYS})
        apitokens.touch(token)
        return user, token

    def authenticate_header(self, request):
        """A request that presented a token and was refused gets DRF's 401 with
        ``WWW-Authenticate: Token`` (issue 23 item 24: it was 403). One with no credentials at all
        keeps the session convention of the rest of the site, 403 (this class is listed first
        in REST_FRAMEWORK so that DRF asks it)."""
        return self.keyword if request.META.get("HTTP_AUTHORIZATION") else None
