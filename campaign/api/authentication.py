"""API authentication classes (REST_FRAMEWORK's DEFAULT_AUTHENTICATION_CLASSES).

Kept apart from campaign/accounts.py, which imports DRF views: DRF loads these classes while its
views module is being imported, so this module must not import views itself."""

from django.utils.translation import gettext_lazy as _
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from .. import lookups


class LeanTokenAuthentication(TokenAuthentication):
    """DRF's token authentication (``Authorization: Token <key>``), reading the token and its
    user in one plain query (campaign/lookups.py): same answers, same refusals."""

    def authenticate_credentials(self, key):
        found = lookups.user_and_token(key) if isinstance(key, str) else None
        if found is None:
            raise AuthenticationFailed(_("Invalid token."))
        user, token = found
        if not user.is_active:
            raise AuthenticationFailed(_("User inactive or deleted."))
        return user, token
