"""A CAM rubber through the platform's own lobby and moderation pages (issue 15, "Done when"): the
moderator creates it on the lobby's create page (CAM rubber, 48 hours per step), invites bob by
email and carol by the link; both join by invitation; the moderator starts it from the lobby page;
the fleets are set and the rubber begun on the CAM page, a scenario generated; then, on the
moderation panel Event Horizon uses, the moderator extends the step's deadline, pauses, resumes
and rolls back the scenario step. Screenshot at phone width: tests/artifacts/…--phone-panel.png.
"""

from urllib.parse import urlparse

from django.urls import reverse

from campaign.cam.models import CamCampaign, CamScenario
from campaign.models import AuditEntry, Campaign, Invitation
from tests.browser.conftest import sideways_overflow


def test_cam_rubber_through_the_lobby_and_moderation_pages(new_page, login, shot, django_user_model):
    for name in ("alice", "bob", "carol"):
        django_user_model.objects.create_user(name, f"{name}@example.com", f"pw-{name}")
    alice, bob, carol = new_page(), new_page(), new_page()
    login(alice, "alice", "pw-alice")
    login(bob, "bob", "pw-bob")
    login(carol, "carol", "pw-carol")

    # The lobby's create page, CAM rubber picked: the deadline of each step is 48 hours.
    alice.goto(reverse("lobby-create"))
    with alice.expect_navigation():
        alice.locator("#layer-picker").get_by_role("link", name="CAM rubber").click()
    alice.fill("#id_name", "Lobby Rubber")
    alice.fill("#id_step_hours", "48")
    alice.fill("#id_period", "2")
    alice.fill("#id_starting_points", "100")
    alice.fill("#id_scenarios", "2")
    alice.fill("#id_seed", "browser-cam-lobby")
    with alice.expect_navigation():
        alice.get_by_role("button", name="Create campaign").click()
    campaign = Campaign.objects.get(name="Lobby Rubber")
    assert campaign.layer == "cam" and campaign.turn_hours == 48
    lobby = reverse("lobby-detail", args=[campaign.pk])
    assert alice.url.endswith(lobby)

    # Invitations: bob by email, carol by the link.
    alice.fill("#id_email", "bob@example.com")
    with alice.expect_navigation():
        alice.get_by_role("button", name="Send invitation").click()
    token = Invitation.objects.get(campaign=campaign, email="bob@example.com").token
    link = urlparse(alice.locator("#invite-url").inner_text().strip()).path  # the shown link names SITE_URL
    for page, url, fleet, power in ((bob, reverse("lobby-join", args=[token]), "Bob's Squadron", "UFP"),
                                    (carol, link, "Carol's Raiders", "Klingons")):
        page.goto(url)
        page.fill("#id_empire_name", fleet)
        page.select_option("#id_faction", power)  # the CAM 4.2 powers, offered (issue 23 item 12)
        with page.expect_navigation():
            page.get_by_role("button", name="Join").click()
        assert page.url.endswith(lobby)
    assert Invitation.objects.get(token=token).accepted_by.username == "bob"

    # Started from the lobby page, after the confirmation.
    alice.goto(lobby)
    with alice.expect_navigation():
        alice.get_by_role("button", name="Start the campaign").click()
    with alice.expect_navigation():
        alice.get_by_role("button", name="Yes, start it now").click()
    detail = reverse("cam-detail", args=[campaign.pk])
    assert alice.url.endswith(detail)

    # The CAM page as before: each player's fleet, the moderator begins the rubber, scenario 1.
    for page, fleet in ((bob, "constitution\nconstitution\nfirecat"), (carol, "d7\nd7\nwar_talon")):
        page.goto(detail)
        page.get_by_text("Edit the list as text").click()
        page.locator("textarea[name=fleet]").fill(fleet)
        with page.expect_navigation():
            page.get_by_role("button", name="Save fleet").click()
    alice.goto(detail)
    with alice.expect_navigation():
        alice.get_by_role("button", name="Start the rubber").click()
    with alice.expect_navigation():
        alice.get_by_role("button", name="Generate scenario 1").click()
    assert CamScenario.objects.filter(cam_id=campaign.pk).count() == 1
    deadline = CamCampaign.objects.get(pk=campaign.pk).deadline
    assert deadline is not None

    # The moderation panel Event Horizon uses: extend, pause, resume, roll back.
    alice.goto(detail)
    with alice.expect_navigation():
        alice.get_by_role("link", name="Moderate").click()
    panel = reverse("moderation-panel", args=[campaign.pk])
    assert alice.url.endswith(panel)
    assert "scenario 1: force selection" in alice.locator("#step").inner_text()
    alice.fill("#id_hours", "5")
    with alice.expect_navigation():
        alice.get_by_role("button", name="Extend").click()
    assert (CamCampaign.objects.get(pk=campaign.pk).deadline - deadline).total_seconds() == 5 * 3600
    with alice.expect_navigation():
        alice.get_by_role("button", name="Pause").click()
    assert "paused" in alice.locator("#status").inner_text()
    with alice.expect_navigation():
        alice.get_by_role("button", name="Resume").click()
    with alice.expect_navigation():
        alice.locator("#rollback-link").click()
    shot(alice, "01-rollback-confirm")
    with alice.expect_navigation():
        alice.get_by_role("button", name="Roll back step 1").click()
    assert alice.url.endswith(panel)
    assert not CamScenario.objects.filter(cam_id=campaign.pk).exists()
    assert "has been rolled back" in alice.locator("main").inner_text()
    actions = list(AuditEntry.objects.filter(campaign=campaign).order_by("id").values_list("action", flat=True))
    assert actions[-4:] == ["extend", "pause", "resume", "roll_back"]

    # The same panel on a phone: nothing wider than the screen.
    handset = new_page(phone=True)
    login(handset, "alice", "pw-alice")
    handset.goto(panel)
    assert "paused" in handset.locator("#status").inner_text()  # a roll-back leaves the rubber paused
    assert sideways_overflow(handset) == []
    shot(handset, "phone-panel")
