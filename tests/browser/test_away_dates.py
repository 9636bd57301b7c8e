"""Away dates in the browser at phone width (issue 32 item 1): bob declares an absence from the
campaign's page on a 390×844 phone, with a note for the moderator; carol, on her phone, sees on
the campaign's page that his seat is away, and until when, but never the note; the turn's
deadline inside the absence moved to its end. Screenshots: tests/artifacts/test_away_dates_*."""

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from campaign.models import Turn
from tests.browser.conftest import sideways_overflow


def test_a_player_declares_an_absence_and_the_other_player_sees_his_seat_away(new_page, login, shot, small_campaign):
    campaign = small_campaign
    now = timezone.now().replace(second=0, microsecond=0)
    starts, ends = now + timedelta(days=1), now + timedelta(days=4)
    Turn.objects.filter(campaign=campaign, number=campaign.turn).update(deadline=now + timedelta(days=2))

    bob = new_page(phone=True)
    assert bob.viewport_size == {"width": 390, "height": 844}
    login(bob, "bob", "pw-bob")
    bob.goto(reverse("campaign-detail", args=[campaign.pk]))
    bob.click("#away-link")
    bob.fill("input[name=starts]", starts.strftime("%Y-%m-%dT%H:%M"))
    bob.fill("input[name=ends]", ends.strftime("%Y-%m-%dT%H:%M"))
    bob.fill("input[name=note]", "Hiking the Kungsleden, no signal")
    assert sideways_overflow(bob) == []
    shot(bob, "phone-declare")
    with bob.expect_navigation():
        bob.click("#absence-form button[type=submit]")
    assert "Your absence is recorded" in bob.locator("main").inner_text()
    assert ends.strftime("%-d %b %Y %H:%M") in bob.locator("#my-absences").inner_text()
    assert "Bob's Realm (seat 1)" in bob.locator("#seats-away").inner_text()
    assert sideways_overflow(bob) == []
    shot(bob, "phone-declared")
    turn = Turn.objects.get(campaign=campaign, number=campaign.turn)
    assert turn.deadline == ends  # the deadline inside the absence moved to its end

    carol = new_page(phone=True)
    login(carol, "carol", "pw-carol")
    carol.goto(reverse("campaign-detail", args=[campaign.pk]))
    assert "1 away" in carol.locator("#away-link").inner_text()
    carol.click("#away-link")
    seats = carol.locator("#seats-away").inner_text()
    assert "Bob's Realm (seat 1)" in seats and ends.strftime("%-d %b %Y %H:%M") in seats
    assert "Kungsleden" not in carol.content() and "signal" not in carol.locator("main").inner_text()
    assert carol.locator("#absence-form").count() == 1  # she may declare her own, not see his
    assert sideways_overflow(carol) == []
    shot(carol, "phone-other-player")

    alice = new_page(phone=True)
    login(alice, "alice", "pw-alice")
    alice.goto(reverse("moderation-panel", args=[campaign.pk]))
    assert "Hiking the Kungsleden" in alice.locator("#away-card").inner_text()
    assert sideways_overflow(alice) == []
    shot(alice, "phone-moderator-panel")


def test_the_calendar_and_webhook_pages_fit_a_phone(new_page, login, shot, small_campaign, settings):
    campaign = small_campaign
    Turn.objects.filter(campaign=campaign, number=campaign.turn).update(deadline=timezone.now() + timedelta(days=2))
    bob = new_page(phone=True)
    login(bob, "bob", "pw-bob")
    bob.goto(reverse("account"))
    bob.click("#calendar-link")
    with bob.expect_navigation():
        bob.click("#calendar-rotate")
    url = bob.locator("#calendar-url code").inner_text()
    assert url.endswith(".ics") and "/calendar/" in url
    assert campaign.name in bob.locator("#calendar-events").inner_text()
    assert sideways_overflow(bob) == []
    shot(bob, "phone-calendar")
    feed = bob.request.get(url)
    assert feed.status == 200 and feed.headers["content-type"].startswith("text/calendar")
    assert "BEGIN:VEVENT" in feed.text()

    settings.GROUPS_WEBHOOK_ALLOW_PRIVATE = True  # the live server's own address stands in for a chat server
    alice = new_page(phone=True)
    login(alice, "alice", "pw-alice")
    alice.goto(reverse("moderation-panel", args=[campaign.pk]))
    alice.click("#away-card >> text=Webhooks")
    alice.fill("input[name=url]", "http://127.0.0.1:9/hook")
    alice.select_option("select[name=preset]", "discord")
    with alice.expect_navigation():
        alice.click("#webhook-form button[type=submit]")
    assert "Discord" in alice.locator(".webhook").first.inner_text()
    assert sideways_overflow(alice) == []
    shot(alice, "phone-webhooks")
