"""Issue 23 "Done when": walk the `make run` demo at phone width (390×844) and screenshot every page
a newcomer meets — an Event Horizon turn, a CAM scenario fought online, a pickup battle against the
computer — into tests/artifacts/walk-*.png, to be looked at for the 25 items of issue 23.

Not a test (pytest does not collect it): run it against a demo built into a throw-away database::

    export DATABASE_URL=sqlite:////tmp/walk/db.sqlite3 SITE_URL=http://127.0.0.1:8741
    .venv/bin/python manage.py migrate && .venv/bin/python manage.py setupdemo --url $SITE_URL/
    .venv/bin/python manage.py runserver 127.0.0.1:8741 --noreload &
    .venv/bin/python tests/browser/walk_demo.py

The CAM rubber is created through the site's actions (as the moderator would on the lobby form,
"fought online" chosen); every page is then walked in the browser."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.urls import reverse  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from tests.browser.conftest import log_in, sideways_overflow  # noqa: E402

BASE = os.environ.get("SITE_URL", "http://127.0.0.1:8741").rstrip("/")
OUT = ROOT / "tests" / "artifacts"
PASSWORD = "sector-demo"
overflow: dict[str, list[str]] = {}


def shot(page, name: str) -> None:
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(OUT / f"walk-{name}.png"), full_page=True)
    if found := sideways_overflow(page):
        overflow[name] = found


def phone(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=BASE, is_mobile=True,
                                  has_touch=True)
    return context.new_page()


def eh_turn(browser):
    from campaign.models import Campaign

    campaign = Campaign.objects.get(name="Demo Sector")
    pk = campaign.pk
    mod, p1 = phone(browser), phone(browser)
    log_in(mod, "moderator", PASSWORD)
    log_in(p1, "player1", PASSWORD)
    for name, url in (("home", "/"), ("campaign", reverse("campaign-detail", args=[pk])),
                      ("orders", reverse("campaign-orders", args=[pk])),
                      ("map", reverse("campaign-map", args=[pk])),
                      ("paste", reverse("campaign-orders-text", args=[pk])),
                      ("dice", reverse("campaign-dice", args=[pk])),
                      ("press", reverse("press", args=[pk])), ("signup", "/accounts/signup/")):
        p1.goto(url)
        shot(p1, f"eh-p1-{name}")
    p1.goto(reverse("campaign-orders", args=[pk]))
    p1.click("#save-button")  # saved in place (the page's script)
    p1.wait_for_timeout(1500)
    shot(p1, "eh-p1-orders-saved")
    mod.goto("/")
    shot(mod, "eh-mod-home")
    mod.goto(reverse("moderation-panel", args=[pk]))
    shot(mod, "eh-mod-panel")
    for _ in range(1):  # process the open turn
        button = mod.locator("#process-now button")
        if not button.count() or button.first.is_disabled():
            break
        form = mod.locator("#process-now")
        if form.locator("input[type=checkbox]").count():  # process though not every player is ready
            form.locator("input[type=checkbox]").first.check()
        mod.once("dialog", lambda d: d.accept())
        with mod.expect_navigation(timeout=180_000):  # the computer seats' orders are made then
            button.first.click()
        mod.goto(reverse("moderation-panel", args=[pk]))
    shot(mod, "eh-mod-panel-after-turn")
    for name, url in (("campaign", reverse("campaign-detail", args=[pk])),
                      ("orders", reverse("campaign-orders", args=[pk])),
                      ("reports", reverse("campaign-reports", args=[pk])),
                      ("dice", reverse("campaign-dice", args=[pk]))):
        p1.goto(url)
        shot(p1, f"eh-p1-after-{name}")


def cam_online(browser):
    from campaign.cam import actions
    from campaign.cam.models import CamShip
    from tactical.models import Battle

    users = {u.username: u for u in get_user_model().objects.all()}
    campaign = actions.create_cam_campaign(
        user=users["moderator"], name="Walk Rubber", period=2, starting_points=100, scenarios=2, seed="walk-1",
        players=[{"username": "player1", "name": "Bob's Squadron", "faction": "UFP",
                  "fleet": ["constitution", "constitution", "firecat"]},
                 {"username": "player2", "name": "Carol's Raiders", "faction": "Klingons",
                  "fleet": ["d7", "d7", "war_talon"]}], scenario_mode="online")
    actions.start(campaign_id=campaign.pk, user=users["moderator"])
    actions.generate_scenario(campaign_id=campaign.pk, user=users["moderator"], nature="open_battle")
    for user, seat in ((users["player1"], 1), (users["player2"], 2)):
        ships = CamShip.objects.filter(player__cam=campaign.cam, player__seat=seat).order_by("number")
        actions.select_forces(campaign_id=campaign.pk, user=user, ships=[s.number for s in ships][:2])
    pages = {1: phone(browser), 2: phone(browser)}
    log_in(pages[1], "player1", PASSWORD)
    log_in(pages[2], "player2", PASSWORD)
    scenario = reverse("cam-scenario", args=[campaign.pk, 1])
    pages[1].goto("/")
    shot(pages[1], "cam-p1-home")
    pages[1].goto(reverse("campaign-detail", args=[campaign.pk]))
    shot(pages[1], "cam-p1-campaign")
    for seat, page in pages.items():
        page.goto(scenario)
        shot(page, f"cam-p{seat}-scenario")
    begin = pages[2].get_by_role("button", name="Roll the table and begin (CAM 2.3)")
    if not begin.count():
        pages[1].goto(scenario)
        begin, who = pages[1].get_by_role("button", name="Roll the table and begin (CAM 2.3)"), 1
    else:
        who = 2
    with pages[who].expect_navigation():
        begin.click()
    battle = Battle.objects.get(campaign=campaign)
    play = reverse("battle-play", args=[battle.pk])
    for n in range(4):
        for seat, page in pages.items():
            page.goto(play)
            if page.locator("#your-turn").count():
                shot(page, f"cam-play-{n}-p{seat}")
                form = page.locator("#actions form").first
                if form.count():
                    with page.expect_navigation():
                        form.locator("button").first.click()
                break
    for page in pages.values():
        page.goto(play)
        button = page.locator("#doctrine-button")
        if button.count():
            with page.expect_navigation():
                button.click()
    pages[1].goto(play)
    shot(pages[1], "cam-play-end")
    pages[1].goto(scenario)
    shot(pages[1], "cam-scenario-after")
    pages[1].goto(reverse("campaign-detail", args=[campaign.pk]))
    shot(pages[1], "cam-campaign-after")



def pickup(browser):
    from tactical.hosts.pickup.books import available, book
    from tactical.models import PickupBattle

    page = phone(browser)
    log_in(page, "player2", PASSWORD)
    names = [n for n, _, _ in available()]
    ruleset = "buoyz" if "buoyz" in names else "eventhorizon"
    rules = book(ruleset)
    page.goto(reverse("pickup-new"))
    page.select_option("#id_ruleset", ruleset)
    page.check("input[name=opponent][value=computer]")
    shot(page, "pickup-new")
    with page.expect_navigation():
        page.click("#create-pickup")
    user = get_user_model().objects.get(username="player2")
    pk = PickupBattle.objects.filter(creator=user).latest("pk").pk
    cheapest = min(rules.offers(user), key=lambda o: o.points)
    page.fill(f"#id_ship_{cheapest.key}", "2")
    shot(page, "pickup-fleet")
    with page.expect_navigation():
        page.click("#submit-fleet")
    page.wait_for_selector("#board svg")
    shot(page, "pickup-play")
    target = page.locator("#actions form").first.locator("button")
    if target.count():
        with page.expect_navigation():
            target.first.click()
        shot(page, "pickup-play-2")
    button = page.locator("#doctrine-button")
    if button.count():
        with page.expect_navigation():
            button.click()
    battle = PickupBattle.objects.get(pk=pk).battle_id
    page.goto(reverse("battle-play", args=[battle]))
    page.wait_for_selector("#battle-over", timeout=120_000)
    shot(page, "pickup-over")
    page.goto(reverse("pickup-detail", args=[pk]))
    shot(page, "pickup-detail")
    page.click("#replay-link")
    shot(page, "pickup-replay")
    page.goto(reverse("pickup-list"))
    shot(page, "pickup-list")


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium")
        for walk in [globals()[name] for name in (sys.argv[1:] or ("eh_turn", "cam_online", "pickup"))]:
            try:
                walk(browser)
            except Exception as exc:  # keep walking the other flows; say what stopped this one
                print(f"{walk.__name__} stopped: {exc!r}")
        browser.close()
    print("pages wider than the phone:", overflow or "none")
