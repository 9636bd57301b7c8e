"""In a real browser, at phone and desktop width, under the Content-Security-Policy: sign up,
confirm the address by the emailed link, make an API token (shown once), replace and revoke it
(issue 14 item 7). Screenshots: tests/artifacts/test_sign_up_and_manage_the_api_token*.png."""

import re

import pytest
from django.core import mail

PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("viewport", [PHONE, {"width": 1280, "height": 900}], ids=["phone", "desktop"])
def test_sign_up_and_manage_the_api_token(page, shot, viewport):
    from campaign.models import ApiToken

    page.set_viewport_size(viewport)
    page.goto("/accounts/signup/")
    page.fill("input[name=username]", "dave")
    page.fill("input[name=email]", "dave@example.com")
    page.fill("input[name=password1]", "a-long-passphrase-42")
    page.fill("input[name=password2]", "a-long-passphrase-42")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.locator("h1").inner_text() == "Check your email"
    shot(page, "check-your-email")

    (message,) = mail.outbox
    link = re.search(r"https?://\S+(/accounts/activate/\S+)", message.body).group(1)
    page.goto(link)
    with page.expect_navigation():
        page.get_by_role("button", name="Confirm and log in").click()
    if viewport == PHONE:  # the site's links fold behind "Menu" on a phone
        page.locator("header").get_by_text("Menu").click()
    assert page.locator("header").get_by_text("dave").is_visible()

    page.goto("/accounts/")
    assert page.get_by_text("You have no token.").is_visible()
    with page.expect_navigation():
        page.get_by_role("button", name="Create a token").click()
    key = page.locator("code.token-key").inner_text()
    assert len(key) == 40 and ApiToken.objects.get(user__username="dave").prefix == key[:8]
    card = page.locator("#api-token").bounding_box()
    assert card and card["x"] + card["width"] <= viewport["width"]  # nothing sticks out sideways
    shot(page, "token-shown-once")
    page.reload()
    assert key not in page.content() and page.get_by_text("never used").is_visible()

    page.fill("#token-name", "phone")
    with page.expect_navigation():
        page.get_by_role("button", name="Create a token").click()
    new_key = page.locator("code.token-key").inner_text()
    assert new_key != key and ApiToken.objects.filter(user__username="dave").count() == 2
    with page.expect_navigation():
        page.get_by_role("button", name="Revoke all my tokens").click()
    assert page.get_by_text("You have no token.").is_visible()
    assert not ApiToken.objects.filter(user__username="dave").exists()
    shot(page, "revoked")
