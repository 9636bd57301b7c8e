"""Star Sectors played in Chromium at phone width (issue 28, "Done when"): a 25-point battle against
the computer made on /battles/new/, some orders picked on the hex map by tapping its marks (a move,
a turn, an attack when one is offered; each then confirmed), a turn ended with its button; the map
opening zoomed in on the ship to order (its marks 24 px or more), zoom and pan that give no order;
then the rest handed to the computer, played to its end, with the replay and the dice log. And two
players, each on a phone of their own: a pickup battle by invitation link, ship turns taken by hand
on the map, the waiting seat unable to act out of turn, a cloaked raider (VI.A) hidden from the other
seat, then both fleets handed to the computer to the end. No page is wider than the phone.
Screenshots: tests/artifacts/test_star_sectors_*--*.png."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from django.urls import reverse

from tactical.models import Battle, BattleStep, PickupBattle
from tests.browser.conftest import sideways_overflow

SHOWN = "#board g.ss-plan:not([display]) .ss-go"  # the marks of the ship being ordered


def _state(page, battle_id: int) -> dict:
    return page.request.get(reverse("api-battle-state", args=[battle_id])).json()


def _tap(page, kinds=("attack", "move", "turn", "warp")) -> str | None:
    """Tap the first mark on the board of the first of ``kinds`` offered, confirm it; its label."""
    for kind in kinds:
        marks = page.locator(f'{SHOWN}[data-kind="{kind}"]')
        if not marks.count():
            continue
        mark = marks.first
        want = mark.get_attribute("data-label")
        mark.click(force=True)  # a hex under a ship's wedge: the mark is drawn on top
        assert page.inner_text("#ss-pick-label") == want
        assert page.input_value("#ss-pick-action") == mark.get_attribute("data-action")
        with page.expect_navigation():
            page.click("#ss-confirm")
        assert "Refused" not in page.content()
        return want
    return None


def _end_turn(page) -> None:
    with page.expect_navigation():
        page.locator(".ss-group:not([hidden]) .ss-end").click()
    assert "Refused" not in page.content()


def test_star_sectors_against_the_computer_on_a_phone(phone, new_page, login, shot, bob):
    page = phone
    login(page, "bob", "pw-bob")
    page.goto(reverse("pickup-new"))
    page.select_option("#id_ruleset", "starsectors")
    page.fill("#id_points", "25")
    page.check("input[name=opponent][value=computer]")
    with page.expect_navigation():
        page.click("#create-pickup")
    pickup = PickupBattle.objects.get(creator=bob)
    page.fill("#id_ship_fed-cruiser", "2")
    page.fill("#id_ship_fed-frigate", "1")
    shot(page, "01-fleet")
    assert sideways_overflow(page) == []
    with page.expect_navigation():
        page.click("#submit-fleet")
    pickup.refresh_from_db()
    battle_id = pickup.battle_id
    assert battle_id and Battle.objects.get(pk=battle_id).ruleset == "starsectors"

    page.goto(reverse("battle-play", args=[battle_id]))
    page.wait_for_selector("#board svg.ss-board")
    assert page.locator("#your-turn").count()  # the computer's side has played its turn, if first
    shot(page, "02-your-ship-turn")
    assert sideways_overflow(page) == []
    # The arc and reach of the ship to order; only its order buttons show beside the board.
    selected = page.get_attribute("#board svg", "data-selected")
    assert page.locator(f'#board g.ss-arc[data-for="{selected}"]:not([display]) .ss-pb').count() >= 1
    assert page.locator(".ss-group:not([hidden])").count() == 1

    # On a phone the map opens zoomed in on the ship to order: its marks a finger can take (24 px).
    opened = page.get_attribute("#board svg", "viewBox")
    for i in range(page.locator(SHOWN).count()):
        box = page.locator(SHOWN).nth(i).bounding_box()
        assert min(box["width"], box["height"]) >= 24, (page.locator(SHOWN).nth(i).get_attribute("data-label"), box)
    # Zoom and pan (static/map.js): "Whole map" shows it all, "+" zooms in, a drag pans and gives no order.
    page.click('[data-map-action="reset"]')
    home = page.get_attribute("#board svg", "viewBox")
    assert float(opened.split()[2]) < float(home.split()[2]) / 2
    page.click('[data-map-action="in"]')
    zoomed = page.get_attribute("#board svg", "viewBox")
    assert float(zoomed.split()[2]) < float(home.split()[2]) / 1.4
    box = page.locator("#board").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx - 50, cy - 20, steps=6)
    page.mouse.up()
    page.wait_for_timeout(200)
    assert page.get_attribute("#board svg", "viewBox") not in (zoomed, home)
    assert page.input_value("#ss-pick-action") == ""  # a pan, not an order
    page.click('[data-map-action="reset"]')
    assert page.get_attribute("#board svg", "viewBox") == home

    # A tap on a mark chooses it; "Clear" forgets it.
    first = page.locator(SHOWN).first
    first.click(force=True)
    assert not page.is_disabled("#ss-confirm")
    shot(page, "03-a-mark-chosen")
    page.click("#ss-clear")
    assert page.is_disabled("#ss-confirm") and page.input_value("#ss-pick-action") == ""
    several = page.locator(f"{SHOWN}[data-alts]")  # a hex a move and a warp jump reach, an attack with banks
    if several.count():
        several.first.click(force=True)
        alt = page.locator("#ss-pick-alts button.ss-alt").last
        alt.click()
        assert page.input_value("#ss-pick-action") == alt.get_attribute("data-action")
        assert page.inner_text("#ss-pick-label") == alt.inner_text()
        page.click("#ss-clear")

    taken: list[str] = []
    turns_ended = 0
    for _ in range(14):
        if len(taken) >= 5 and turns_ended >= 1:
            break
        if not _state(page, battle_id)["your_turn"]:
            break
        picked = _tap(page, ("attack", "move", "turn") if len(taken) % 2 == 0 else ("turn", "move", "attack"))
        if picked is None:
            _end_turn(page)
            turns_ended += 1
        else:
            taken.append(picked)
        if len(taken) == 1:
            shot(page, "04-an-order-given-on-the-board")
    assert len(taken) >= 3, taken
    assert any(t.startswith("Move") for t in taken) and any(t.startswith("Turn") for t in taken), taken
    by_hand = BattleStep.objects.filter(battle_id=battle_id, side=1, by_doctrine=False).count()
    assert by_hand >= len(taken) + turns_ended
    log = page.locator("#battle-log").inner_text()
    assert "moves forward" in log or "moves reverse" in log
    assert sideways_overflow(page) == []

    desk = new_page()  # the same page on a desktop: the board beside the orders
    login(desk, "bob", "pw-bob")
    desk.goto(reverse("battle-play", args=[battle_id]))
    desk.wait_for_selector("#board svg.ss-board")
    shot(desk, "05-desktop")
    assert sideways_overflow(desk) == []

    page.goto(reverse("battle-play", args=[battle_id]))
    if Battle.objects.get(pk=battle_id).status == Battle.Status.PLAYING:
        with page.expect_navigation(timeout=180_000):
            page.click("#doctrine-button")
    page.goto(reverse("battle-play", args=[battle_id]))
    page.wait_for_selector("#battle-over")
    shot(page, "06-over")
    assert sideways_overflow(page) == []
    battle = Battle.objects.get(pk=battle_id)
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_how == Battle.How.TACTICAL

    page.goto(reverse("battle-replay", args=[battle_id]) + "?step=3")
    page.wait_for_selector(".board-frame svg.ss-board")
    assert page.locator("table.ss-ships tbody tr").count() >= 1
    shot(page, "07-replay")
    assert sideways_overflow(page) == []
    page.goto(reverse("pickup-detail", args=[pickup.pk]))
    with page.expect_navigation():
        page.click("#dice-log")
    assert page.locator("table tbody tr").count() > 0
    shot(page, "08-dice-log")
    assert sideways_overflow(page) == []



# --- two players, each on a phone of their own ----------------------------------------------------

def _post_action(page, battle_id: int, action: dict):
    """``action`` posted to the API with this page's session and CSRF token, as a script would."""
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    return page.request.post(reverse("api-battle-action", args=[battle_id]), data=json.dumps(action),
                             headers={"Content-Type": "application/json", "X-CSRFToken": token})


def _cannot_act(waiting, mover, battle_id: int) -> None:
    """The seat that waits is told whose turn it is and gets no orders, no marks and no legal orders;
    an order it posts out of turn (the mover's own legal one, or one for its own ship) is a 409 on
    the API and "Refused" on the page's form, and changes nothing (004 III: one side's ship turn)."""
    waiting.goto(reverse("battle-play", args=[battle_id]))
    waiting.wait_for_selector("#board svg.ss-board")
    assert waiting.locator("#waiting").is_visible() and not waiting.locator("#your-turn").count()
    for absent in ("#actions", "#ss-picker", "#board .ss-go", "#board g.ss-plan"):
        assert not waiting.locator(absent).count(), absent
    mine = _state(waiting, battle_id)
    assert mine["your_turn"] is False and mine["legal"] == {}
    before = _state(mover, battle_id)
    assert before["your_turn"] is True and before["legal"]
    theirs = next(iter(before["legal"].values()))[0]
    own = next(s["id"] for s in mine["ships"] if s["side"] == mine["you"] and not s["destroyed"])
    steps = BattleStep.objects.filter(battle_id=battle_id).count()
    for order in (theirs, {"type": "end_turn", "ship": own}):
        answer = _post_action(waiting, battle_id, order)
        assert answer.status == 409 and "acting out of turn" in answer.json()["detail"], answer.text()
    token = waiting.locator("input[name=csrfmiddlewaretoken]").first.input_value()
    answer = waiting.request.post(reverse("battle-play", args=[battle_id]),
                                  form={"csrfmiddlewaretoken": token, "action": json.dumps(theirs)})
    assert "Refused" in answer.text() and "acting out of turn" in answer.text()
    assert BattleStep.objects.filter(battle_id=battle_id).count() == steps
    assert _state(mover, battle_id) == before


def _unseen(page, battle_id: int, ship: int) -> None:
    """The other seat's cloaked ``ship`` is nowhere on ``page`` (VI.A; rulings SS7, SS13): not drawn,
    not in the ship table, not in the API's answer, its orders and turn not in the log, no order
    names it."""
    page.goto(reverse("battle-play", args=[battle_id]))
    page.wait_for_selector("#board svg.ss-board")
    assert not page.locator(f'#board g.ss-ship[data-ship="{ship}"]').count()
    assert not page.locator(f'#ss-ships tr[data-ship="{ship}"]').count()
    state = _state(page, battle_id)
    assert ship not in [s["id"] for s in state["ships"]] and state["active"] != ship
    assert not any("cloak" in e["text"] for e in state["events"]), state["events"]
    assert not any(a.get("target") == ship for orders in state["legal"].values() for a in orders)
    assert f"Attack ship {ship} " not in page.content() and f"Ram ship {ship} " not in page.content()


def _aims_at_nothing(page, battle_id: int, ship: int) -> None:
    """On his turn, orders aimed at the unseen ``ship`` (an attack, a ram) get the words an order
    aimed at a ship that never existed gets, and change nothing: the answer does not tell him it is
    there (VI.A; ruling SS13)."""
    state = _state(page, battle_id)
    mine = int(next(iter(state["legal"])))
    never = 1 + max(ship, *(s["id"] for s in state["ships"])) + 40
    steps = BattleStep.objects.filter(battle_id=battle_id).count()
    for kind in ("attack", "ram"):
        answers = []
        for target in (ship, never):
            order = {"type": kind, "ship": mine, "target": target}
            if kind == "attack":
                order.update(roll=True, banks=[])
            answer = _post_action(page, battle_id, order)
            assert answer.status == 400, answer.text()
            answers.append(answer.json()["detail"].replace(str(target), "N"))
        assert answers[0] == answers[1], answers
    assert BattleStep.objects.filter(battle_id=battle_id).count() == steps
    assert _state(page, battle_id) == state


def _ship_turn(page, battle_id: int, cloak: bool, stay: bool) -> str | None:
    """One ship turn by hand: a mark tapped on the map and confirmed (a turn in place when the ship is
    to cloak or ``stay``s cloaked: it keeps its hex on its deployment row, where no terrain is, VI.A),
    the cloak (an Engineering duty, V.A) when asked, then "End the turn"; the mark's label."""
    picked = _tap(page, ("turn",) if cloak or stay else ("attack", "move", "turn"))
    if cloak:
        with page.expect_navigation():
            page.locator(".ss-group:not([hidden]) button.ss-order", has_text="Engineering: cloak").click()
        assert "Refused" not in page.content()
    if _state(page, battle_id)["your_turn"] and page.locator(".ss-group:not([hidden]) .ss-end").count():
        _end_turn(page)
    return picked


def test_star_sectors_two_players_on_phones(new_page, login, shot, bob, carol):
    """Bob makes a 25-point Star Sectors pickup battle on /battles/new/ and invites by link; Carol
    accepts on her phone and buys two Klingon raiders (a cloaking device each). They take ship turns
    by hand, orders tapped on the map and confirmed, each turn ended with its button: the seat that
    waits has no orders and cannot act out of turn (a 409, nothing changed). Carol cloaks a raider:
    Bob's page, his API answer, log and replay lose it; hers show it cloaked. Then both hand their
    fleets to the computer, which plays to the end; both see the result, the replay (the fog lifted)
    and the dice log. No page is wider than the phone.
    Screenshots: tests/artifacts/test_star_sectors_two_players_on_phones--*.png."""
    pages = {1: new_page(phone=True), 2: new_page(phone=True)}
    bob_page, carol_page = pages[1], pages[2]
    login(bob_page, "bob", "pw-bob")
    login(carol_page, "carol", "pw-carol")
    bob_page.goto(reverse("pickup-new"))
    bob_page.select_option("#id_ruleset", "starsectors")
    bob_page.fill("#id_points", "25")
    bob_page.check("input[name=opponent][value=link]")
    with bob_page.expect_navigation():
        bob_page.click("#create-pickup")
    pickup = PickupBattle.objects.get(creator=bob)
    assert pickup.ruleset == "starsectors" and not pickup.computer
    link = urlsplit(bob_page.input_value("#invite-url")).path
    bob_page.fill("#id_ship_fed-cruiser", "1")
    bob_page.fill("#id_ship_fed-frigate", "1")
    with bob_page.expect_navigation():
        bob_page.click("#submit-fleet")
    assert bob_page.locator("#your-fleet").count() == 1

    carol_page.goto(link)
    with carol_page.expect_navigation():
        carol_page.click("#accept-pickup")
    carol_page.fill("#id_ship_kli-raider", "2")
    shot(carol_page, "01-carol-buys-two-raiders")
    assert sideways_overflow(carol_page) == []
    with carol_page.expect_navigation():
        carol_page.click("#submit-fleet")
    pickup.refresh_from_db()
    assert pickup.opponent_id == carol.pk and pickup.battle_id
    battle_id = pickup.battle_id
    url = reverse("battle-play", args=[battle_id])
    raiders = {s["id"] for s in _state(carol_page, battle_id)["ships"] if s["card"] == "kli-raider"}
    assert len(raiders) == 2

    cloaked = None
    turns = {1: 0, 2: 0}
    taken: list[str] = []
    for _ in range(12):
        if min(turns.values()) >= 3 and cloaked is not None:
            break
        asked = [seat for seat, p in pages.items() if _state(p, battle_id)["your_turn"]]
        assert len(asked) == 1, asked  # one side's ship turn at a time (004 III)
        seat = asked[0]
        mover, waiting = pages[seat], pages[3 - seat]
        _cannot_act(waiting, mover, battle_id)
        if sum(turns.values()) == 0:
            shot(waiting, "02-the-other-seat-waits")
            assert sideways_overflow(waiting) == []
        mover.goto(url)
        mover.wait_for_selector("#board svg.ss-board")
        assert mover.locator("#your-turn").is_visible() and mover.locator(SHOWN).count()
        if cloaked is not None and seat == 1:
            _unseen(bob_page, battle_id, cloaked)  # on his turn: no order aims at it
            _aims_at_nothing(bob_page, battle_id, cloaked)
        cloak = seat == 2 and cloaked is None
        ship = int(mover.get_attribute("#board svg", "data-selected"))
        picked = _ship_turn(mover, battle_id, cloak, stay=ship == cloaked)
        if picked:
            taken.append(picked)
        turns[seat] += 1
        if cloak:
            cloaked = ship
            assert cloaked in raiders
            carol_page.goto(url)
            assert "cloaked" in carol_page.locator(f'#ss-ships tr[data-ship="{cloaked}"]').inner_text()
            assert carol_page.locator(f'#board g.ss-ship[data-ship="{cloaked}"]').count() == 1
            assert f"Ship {cloaked}, engineering: cloak." in carol_page.locator("#battle-log").inner_text()
            shot(carol_page, "03-carol-sees-her-cloaked-raider")
            _unseen(bob_page, battle_id, cloaked)
            shot(bob_page, "04-bob-does-not")
            cloak_step = next(st for st in BattleStep.objects.filter(battle_id=battle_id, side=2)
                              if st.action == {"type": "engineer", "ship": cloaked, "task": "cloak"})
            index = BattleStep.objects.filter(battle_id=battle_id, seq__lte=cloak_step.seq).count()
            bob_page.goto(reverse("battle-replay", args=[battle_id]) + f"?step={index}")
            assert "a hidden action" in bob_page.inner_text("#step-label")
            assert not bob_page.locator(f'.board-frame g.ss-ship[data-ship="{cloaked}"]').count()
            assert sideways_overflow(bob_page) == []
        for p in pages.values():
            assert sideways_overflow(p) == []
    assert cloaked is not None and min(turns.values()) >= 3, turns
    assert any(t.startswith(("Move", "Turn")) for t in taken), taken
    by_hand = BattleStep.objects.filter(battle_id=battle_id, by_doctrine=False)
    assert {1, 2} <= set(by_hand.values_list("side", flat=True))

    for p in pages.values():  # the rest to the computer, both fleets
        p.goto(url)
        if Battle.objects.get(pk=battle_id).status == Battle.Status.PLAYING:
            with p.expect_navigation(timeout=180_000):
                p.click("#doctrine-button")
    battle = Battle.objects.get(pk=battle_id)
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_how == Battle.How.TACTICAL
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.OVER
    for seat, p in pages.items():
        name = ("bob", "carol")[seat - 1]
        p.goto(url)
        p.wait_for_selector("#battle-over")
        # The fog lifted: both read carol's hidden lines, marked as one side's, and the legend no
        # longer tells bob they are his side's alone.
        assert p.locator("#battle-log li.private", has_text=f"Ship {cloaked}, engineering: cloak.").count() == 1
        legend = p.locator(".log p.muted").first.inner_text()
        assert "only your side sees" not in legend and "only one side saw" in legend, legend
        shot(p, f"05-over-{name}")
        assert sideways_overflow(p) == []
        p.goto(reverse("battle-replay", args=[battle_id]) + f"?step={index}")
        p.wait_for_selector(".board-frame svg.ss-board")
        assert p.locator(f'.board-frame g.ss-ship[data-ship="{cloaked}"]').count() == 1  # the fog lifted
        assert "a hidden action" not in p.inner_text("#step-label")
        shot(p, f"06-replay-{name}")
        assert sideways_overflow(p) == []
        p.goto(reverse("pickup-detail", args=[pickup.pk]))
        with p.expect_navigation():
            p.click("#dice-log")
        assert p.locator("table tbody tr").count() > 0
        shot(p, f"07-dice-log-{name}")
        assert sideways_overflow(p) == []
