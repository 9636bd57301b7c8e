"""An embedded tactical battle played online in a real browser (issue 5, "Done when": "A browser
test plays an embedded battle between two players to its end and the campaign receives the
result"). The campaign turn hands the battle off through the lead's lifecycle
(tests/tactical/battle_support.contact_turn with battle mode "tactical"); bob (the invader, seat 1)
and carol (seat 2) each play activations on their battle page — activate, move by clicking a
green square, lock on and fire, end the activation — then both hand their fleets to the computer
doctrine, which finishes the battle; the result goes back to the campaign and its turn completes.
The replay page then steps through the battle with every die. Screenshots:
tests/artifacts/test_two_players_fight_an_embedded_battle--*.png.

Rules followed: 003 "The Turn Sequence" (cards, activations, three actions in order), "Movement",
"Lock On", "Ranges"; rulings TP1–TP7 (docs/rulings.md).
"""

from __future__ import annotations

from django.urls import reverse

from campaign.models import Turn
from tactical.models import Battle
from tests.tactical.battle_support import contact_turn

MAX_DECISIONS = 80


def _state(page, battle_id: int) -> dict:
    return page.request.get(reverse("api-battle-state", args=[battle_id])).json()


def _open(page, battle_id: int) -> None:
    """Go to the battle page (a waiting page reloads itself when the battle moves on, which can
    interrupt a navigation: then try again)."""
    from playwright.sync_api import Error

    for attempt in range(4):
        try:
            # Leave the old page first: its poller may be reloading it right now (the other side
            # just acted), and that reload would interrupt this navigation.
            page.goto("about:blank")
            page.goto(reverse("battle-play", args=[battle_id]))
            return
        except Error as exc:
            if "interrupted by another navigation" not in str(exc) or attempt == 3:
                raise
            page.wait_for_load_state()


def _distance(a, b) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _play_one_decision(page, battle_id: int, seat: int, done: dict, shot, tag: str) -> None:
    """On this player's page: activate a ship, or with one activated, fire if a target is in
    reach, else move towards the enemy, else end the activation."""
    _open(page, battle_id)
    page.wait_for_selector("#your-turn")
    activate = page.locator("#actions form button", has_text="Activate ship")
    if activate.count():
        with page.expect_navigation():
            activate.first.click()
        done["activations"] += 1
        return
    state = _state(page, battle_id)
    acted = state["activation"]["actions"]
    if page.locator("#fire-form").count() and "fire" not in acted:
        shot(page, f"{tag}-fire")
        with page.expect_navigation():
            page.click("#fire-button")
        done["fires"] += 1
        return
    if page.locator("#move-select").count() and "move" not in acted and "fire" not in acted:
        enemies = [s["pos"] for s in state["ships"] if s["side"] != seat and s["status"] == "active"]
        options = page.locator("#board rect.sq.reach").evaluate_all(
            "sqs => sqs.map(q => [parseInt(q.dataset.x), parseInt(q.dataset.y)])")
        # close to two squares of the nearest enemy (long range for most weapons, out of reach of none)
        best = min(options, key=lambda c: (abs(min(_distance(c, e) for e in enemies) - 1), c))
        page.click(f'#board rect.sq.reach[data-x="{best[0]}"][data-y="{best[1]}"]', force=True)
        assert page.locator("#move-dest").inner_text() == f"({best[0]}, {best[1]})", (
            "clicking a green square chooses it"
        )
        shot(page, f"{tag}-move")
        with page.expect_navigation():
            page.locator("#move-facings button").first.click()
        done["moves"] += 1
        return
    with page.expect_navigation():
        page.locator("#actions form button", has_text="End activation").first.click()


def test_two_players_fight_an_embedded_battle(eager_tasks, small_campaign, new_page, login, shot, bob, carol):
    turn = contact_turn(small_campaign, "tactical")
    assert turn.status == Turn.Status.BATTLES
    battle = Battle.objects.get(campaign=small_campaign, turn=turn.number)
    assert battle.status == Battle.Status.PLAYING and battle.mode == Battle.Mode.TACTICAL

    pages = {1: new_page(), 2: new_page()}
    login(pages[1], "bob", "pw-bob")
    login(pages[2], "carol", "pw-carol")
    for page in pages.values():
        page.goto(reverse("battle-play", args=[battle.pk]))
        assert page.locator("#board svg").count() == 1
        assert page.get_by_role("link", name=small_campaign.name).count()
    shot(pages[1], "01-bob-opens-the-battle")
    shot(pages[2], "01-carol-opens-the-battle")

    done = {s: {"activations": 0, "moves": 0, "fires": 0} for s in (1, 2)}
    waited = False
    for i in range(MAX_DECISIONS):
        state = _state(pages[1], battle.pk)
        if state["status"] != "playing":
            break
        seat = state["acting_side"]
        other = 2 if seat == 1 else 1
        if not waited:
            # the waiting player's page says so and reloads itself once the other side has acted
            _open(pages[other], battle.pk)
            pages[other].wait_for_selector("#waiting")
            shot(pages[other], "02-waiting-for-the-other-side")
            waited = True
        _play_one_decision(pages[seat], battle.pk, seat, done[seat], shot, f"03-{i:02d}-seat{seat}")
        if all(d["moves"] and d["fires"] for d in done.values()):
            break
    assert all(d["activations"] and d["moves"] for d in done.values()), done
    assert sum(d["fires"] for d in done.values()) >= 1, done
    # Freshly loaded: a waiting page reloads itself when the other side acts, and a count taken
    # mid-reload sees an empty document.
    _open(pages[1], battle.pk)
    assert pages[1].locator("#battle-log li").count() > 0

    # To finish in reasonable time both hand their fleets to the computer doctrine.
    for seat in (1, 2):
        page = pages[seat]
        _open(page, battle.pk)
        if page.locator("#doctrine-button").count():
            with page.expect_navigation():
                page.click("#doctrine-button")
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_how == Battle.How.TACTICAL
    assert battle.result and battle.result["holder"] in (1, 2, None)
    # the campaign received the result: the turn that waited for its battle is done
    assert Turn.objects.get(campaign=small_campaign, number=turn.number).status == Turn.Status.DONE
    small_campaign.refresh_from_db()
    assert small_campaign.turn == turn.number + 1
    for seat, page in pages.items():
        _open(page, battle.pk)
        page.wait_for_selector("#battle-over")
        shot(page, f"04-seat{seat}-battle-over")

    # Battle report and replay: step through the activations on the board, every die shown.
    page = pages[1]
    page.goto(reverse("battle-replay", args=[battle.pk]) + "?step=0")
    assert "shuffle the deck" in page.locator("#step-dice").inner_text()
    shot(page, "05-replay-set-up")
    for _ in range(4):
        with page.expect_navigation():
            page.click("#next")
    assert page.locator("#position").inner_text().startswith("Step 4 of")
    shot(page, "06-replay-step-4")
    with page.expect_navigation():
        page.click("#last")
    shot(page, "07-replay-end")
