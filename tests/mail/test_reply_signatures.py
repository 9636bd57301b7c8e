"""Signed reply addresses (campaign/mail/addresses.py) survive a key rotation: made with the old
SECRET_KEY, they verify while it is listed in SECRET_KEY_FALLBACKS, and stop once it is gone.
Press addresses are signed by the same helper in their old form (issue 34 item 5)."""

import hashlib
import hmac

import pytest

from campaign.mail import addresses
from campaign.press import replies

OLD, NEW = "old-secret-key-" + "x" * 40, "new-secret-key-" + "y" * 40


@pytest.fixture
def rotated(settings):
    settings.MAIL_DOMAIN = "mail.example.org"
    settings.SECRET_KEY = OLD
    made = {"press": replies.reply_address(41, 2), "cam": addresses.make("cam", 7, 1, 3)}
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = NEW, [OLD]
    return made


def test_a_reply_address_made_with_the_old_key_verifies_while_it_is_a_fallback(rotated, settings):
    assert replies.read_reply_address(rotated["press"]) == (41, 2)
    assert addresses.read("cam", rotated["cam"], 3) == (7, 1, 3)
    # New addresses are signed with the new key.
    assert replies.reply_address(41, 2) != rotated["press"]
    assert replies.read_reply_address(replies.reply_address(41, 2)) == (41, 2)


def test_without_the_fallback_the_old_addresses_are_refused(rotated, settings):
    settings.SECRET_KEY_FALLBACKS = []
    with pytest.raises(addresses.BadAddress, match="signature"):
        replies.read_reply_address(rotated["press"])
    with pytest.raises(addresses.BadAddress, match="signature"):
        addresses.read("cam", rotated["cam"], 3)


def test_press_addresses_keep_the_form_they_were_sent_with(settings):
    """The signature is still Django's salted HMAC of "conversation.seat" with press's salt, so
    addresses mailed before the helpers were merged still verify."""
    settings.SECRET_KEY, settings.MAIL_DOMAIN = OLD, "mail.example.org"
    key = hashlib.sha256(("campaign.press.reply-address" + OLD).encode()).digest()
    expected = hmac.new(key, b"41.2", hashlib.sha256).hexdigest()[:20]
    assert replies.reply_address(41, 2) == f"press+41.2.{expected}@mail.example.org"
