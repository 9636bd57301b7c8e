"""Press in the browser (issue 18 item 6): bob, on a phone, writes to carol; carol answers on a
desktop; alice's announcement reaches both. Screenshots: tests/artifacts/test_press_*."""

from django.core import mail
from django.urls import reverse

from tests.browser.conftest import sideways_overflow


def test_two_players_exchange_press_and_the_announcement_reaches_both(new_page, login, shot, small_campaign_in_setup):
    campaign = small_campaign_in_setup
    bob = new_page(phone=True)
    login(bob, "bob", "pw-bob")
    bob.goto(reverse("campaign-detail", args=[campaign.pk]))
    bob.click("#press-link")
    bob.get_by_label("Carol's Combine (seat 2)").check()
    bob.fill("textarea[name=text]", "Carol, shall we split the Rim between us?")
    with bob.expect_navigation():
        bob.click("#compose button[type=submit]")
    assert bob.locator("#messages").inner_text().count("shall we split the Rim") == 1
    assert sideways_overflow(bob) == []
    shot(bob, "phone-sent")

    carol = new_page()
    login(carol, "carol", "pw-carol")
    carol.goto("/")
    carol.click("header nav >> text=Press")
    assert "1 new" in carol.locator("#press-campaigns").inner_text()
    carol.click(f"#press-campaigns >> text={campaign.name}")
    carol.click("#conversations >> text=Bob's Realm (seat 1) and you")
    assert "shall we split the Rim" in carol.locator("#messages").inner_text()
    carol.fill("#reply textarea", "Agreed: you take the north.")
    with carol.expect_navigation():
        carol.click("#reply button[type=submit]")

    bob.reload()
    assert "Agreed: you take the north." in bob.locator("#messages").inner_text()

    alice = new_page()
    login(alice, "alice", "pw-alice")
    alice.goto(reverse("press", args=[campaign.pk]))
    shot(alice, "desktop-moderator")
    alice.fill("#announce textarea", "Turn 1 is extended by a day.")
    with alice.expect_navigation():
        alice.click("#announce button[type=submit]")

    for reader in (bob, carol):
        reader.goto(reverse("press", args=[campaign.pk]))
        row = reader.locator("#conversations li", has_text="Moderator's announcements")
        assert "1 new" in row.inner_text()
        row.get_by_role("link").click()
        assert "Announcement from the moderator" in reader.locator("#messages").inner_text()
        assert "Turn 1 is extended by a day." in reader.locator("#messages").inner_text()
    assert sideways_overflow(bob) == []
    shot(bob, "phone-announcement")
    bob.goto(reverse("press", args=[campaign.pk]))
    assert sideways_overflow(bob) == []
    shot(bob, "phone-conversations")
    announcement_mail = [m for m in mail.outbox if "announcement from the moderator" in m.subject]
    assert sorted(m.to[0] for m in announcement_mail) == ["bob@example.com", "carol@example.com"]
