"""A CAM rubber in a real browser (issue 6, "Done when"): the moderator creates a two-player CAM
campaign and starts it; two scenarios are fought with tabletop entry — force selection (CAM 2.2),
the table roll (CAM 2.3), a game turn's losses that make a side check break contact (CAM 3.1),
the end entered by one player and confirmed by the other — with the CAM 4.2 step between them;
the standings (CAM 4.3) are shown at the end. Screenshots: tests/artifacts/test_cam_rubber*.png.
"""

from django.urls import reverse

from campaign.cam.models import CamScenario, CamShip
from campaign.models import Campaign


def test_cam_rubber_of_two_scenarios(new_page, login, shot, django_user_model):
    for name in ("alice", "bob", "carol"):
        django_user_model.objects.create_user(name, f"{name}@example.com", f"pw-{name}")
    alice, bob, carol = new_page(), new_page(), new_page()
    login(alice, "alice", "pw-alice")
    login(bob, "bob", "pw-bob")
    login(carol, "carol", "pw-carol")

    # the moderator creates the campaign (CAM 4.0/4.1) and starts it
    alice.goto(reverse("cam-create"))
    alice.fill("#id_name", "Browser Rubber")
    alice.fill("#id_period", "2")
    alice.fill("#id_starting_points", "100")
    alice.fill("#id_scenarios", "2")
    alice.fill("#id_seed", "browser-cam")
    alice.fill("#id_p1_username", "bob")
    alice.fill("#id_p1_name", "Bob's Squadron")
    alice.fill("#id_p1_faction", "UFP")
    alice.fill("#id_p1_fleet", "constitution: USS Hood\nconstitution: USS Exeter\nfirecat\nkobayashi_maru")
    alice.fill("#id_p2_username", "carol")
    alice.fill("#id_p2_name", "Carol's Raiders")
    alice.fill("#id_p2_faction", "Klingons")
    alice.fill("#id_p2_fleet", "d7: IKS Doomslayer\nd7: IKS Gorkon\nwar_talon")
    shot(alice, "01-create")
    with alice.expect_navigation():
        alice.get_by_role("button", name="Create CAM campaign").click()
    campaign = Campaign.objects.get(name="Browser Rubber")
    detail = reverse("cam-detail", args=[campaign.pk])
    with alice.expect_navigation():
        alice.get_by_role("button", name="Start the rubber").click()
    shot(alice, "02-started")

    def bob_ships():
        return list(CamShip.objects.filter(player__seat=1, player__cam=campaign.cam).values_list("number", flat=True))

    def carol_ships():
        return list(CamShip.objects.filter(player__seat=2, player__cam=campaign.cam, status="ready")
                    .values_list("number", flat=True))

    for number in (1, 2):
        # CAM 2.1 (the moderator chooses an open battle beforehand, CAM 4.1)
        alice.goto(detail)
        alice.select_option("select[name=nature]", "open_battle")
        with alice.expect_navigation():
            alice.get_by_role("button", name=f"Generate scenario {number}").click()
        scenario_url = reverse("cam-scenario", args=[campaign.pk, number])
        # CAM 2.2 force selection by each player
        b = [n for n in bob_ships() if CamShip.objects.get(number=n).status == "ready"]
        assert len(carol_ships()) >= 2, "a D7 was lost; carol still has a D7 and the War Talon"
        bob.goto(scenario_url)
        for n in b[:2]:
            bob.check(f"#ship-{n}")
        shot(bob, f"s{number}-03-forces")
        with bob.expect_navigation():
            bob.get_by_role("button", name="Choose this force").click()
        assert "Force chosen" in bob.content()
        carol.goto(scenario_url)
        for n in carol_ships()[:2]:
            carol.check(f"#ship-{n}")
        with carol.expect_navigation():
            carol.get_by_role("button", name="Choose this force").click()
        assert "Force chosen" in carol.content()
        # CAM 2.3 table and edges
        with carol.expect_navigation():
            carol.get_by_role("button", name="Roll the table and begin (CAM 2.3)").click()
        assert "Table: rolled" in carol.inner_text("#scenario-summary")
        shot(carol, f"s{number}-04-table")
        if number == 1:
            # carol loses a D7 (15 points >= her break level of 12): she must check (CAM 3.1)
            carol.check(f"input[name=destroyed][value='ship:{carol_ships()[0]}']")
            with carol.expect_navigation():
                carol.get_by_role("button", name="Enter turn 1").click()
            assert "Must check break contact" in carol.inner_text("#side-2")
            shot(carol, "s1-05-must-check")
        else:
            with carol.expect_navigation():
                carol.get_by_role("button", name="Enter turn 1").click()
        bob.goto(scenario_url)
        with bob.expect_navigation():
            bob.get_by_role("button", name="Enter turn 1").click()
        events = bob.inner_text("#events")
        if number == 1:
            assert "Seat 2 must check at the end of turn 1" in events and "+1 (Klingons)" in events
            shot(bob, "s1-06-break-contact-check")
        # bob enters the end of the game; carol confirms (CAM 3.1 / 4.3)
        with bob.expect_navigation():
            bob.get_by_role("button", name="Enter the end of the game").click()
        carol.goto(scenario_url)
        assert "Result entered by Bob" in carol.inner_text("#confirm")
        shot(carol, f"s{number}-07-confirm")
        with carol.expect_navigation():
            carol.get_by_role("button", name="Confirm the result").click()
        assert CamScenario.objects.get(cam=campaign.cam, number=number).stage == "scored"
        if number == 1:
            # CAM 4.2 between scenarios: both players ready
            for page in (bob, carol):
                page.goto(detail)
                with page.expect_navigation():
                    page.get_by_role("button", name="Ready for the next scenario").click()
            shot(carol, "s1-08-between")
            campaign.cam.refresh_from_db()
            assert campaign.cam.replacements_done == 1

    # the standings across the rubber
    bob.goto(reverse("cam-standings", args=[campaign.pk]))
    verdict = bob.inner_text("#verdict")
    assert "The rubber is over" in verdict and "Bob's Squadron wins the campaign" in verdict
    rows = bob.inner_text("#standings")
    assert "Bob's Squadron" in rows and "Carol's Raiders" in rows
    assert bob.locator("#cp-chart").count() == 1
    shot(bob, "09-standings")
