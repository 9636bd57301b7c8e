"""Issue 31 on Star Trek Print&Play: an Event Horizon campaign whose battles are fought online on
Print&Play (rulings XC19-XC25). The option offers it, the battle is set up from the converted
fleets (dashboards, 001 Dashboards), handed to the computer at its deadline, played to its end on
Print&Play, and its result goes back to the turn as Event Horizon's (docs/battles.md "Result");
the tabletop record sheets are tests/tactical/convert/test_sheets_on_new_books.py."""

from __future__ import annotations

from datetime import timedelta

import pytest

from campaign import actions as campaign_actions
from campaign.eventhorizon.models import Ship
from campaign.models import Turn
from tactical.battles import actions
from tactical.models import Battle
from tactical.play import embedded
from tests.tactical.battle_support import contact_turn

pytestmark = pytest.mark.django_db


def _choose_printplay(campaign, alice):
    campaign_actions.set_campaign_option(campaign_id=campaign.pk, user=alice, key="battle_book", value="printplay")
    campaign.refresh_from_db()


def test_an_embedded_battle_is_fought_on_print_and_play_and_the_turn_takes_it_up(small_campaign, alice):
    from campaign import battles

    assert "printplay" in [k for k, _ in battles.handler().book_choices("eventhorizon")]
    _choose_printplay(small_campaign, alice)
    turn = contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    assert battle.ruleset == "printplay" and battle.converted
    layer = battle.layer_setup
    dashes = [e["dash"] for side in ("1", "2") for e in battle.setup["sides"][side]["ships"]]
    assert all(d["key"].startswith("eh-") and d["faction"] == "Federation" for d in dashes)  # XC20
    assert battle.log.filter(kind="converted", text__contains="XC19-XC25").exists()
    state = embedded.current_state(battle)
    assert state.ships and battle.status == "playing"  # a Print&Play state, fought online
    assert actions.settle_due_battles(now=battle.deadline + timedelta(minutes=1)) == 1
    battle.refresh_from_db()
    turn.refresh_from_db()
    assert battle.status == "resolved" and battle.resolved_how == "tactical"
    assert "round(s)" in battle.log.get(kind="tactical_over").text  # Print&Play's summary
    ids = {s["id"] for side in ("1", "2") for s in layer["sides"][side]["ships"]}
    assert {s["ship"] for s in battle.result["ships"]} == ids
    assert {s["fate"] for s in battle.result["ships"]} <= {"survived", "destroyed", "warped_out"}
    assert turn.status == Turn.Status.DONE  # the campaign took it up
    numbers = set(Ship.objects.filter(campaign=small_campaign).values_list("number", flat=True))
    destroyed = {s["ship"] for s in battle.result["ships"] if s["fate"] == "destroyed"}
    kept = {s["ship"] for s in battle.result["ships"] if s["fate"] in ("survived", "warped_out")}
    assert not destroyed & numbers and kept <= numbers


def test_the_battle_page_says_what_its_deadline_does_and_names_the_book(client, small_campaign, alice, bob):
    """A battle being played online said that at its deadline "an entered result nobody disputed
    stands; otherwise the battle is auto-resolved" (a tabletop battle's fate), while the sweep lets
    the computer play it to its end on the chosen book (settle_due_battle); and its Mode row named
    no book."""
    _choose_printplay(small_campaign, alice)
    contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    client.force_login(bob)
    page = client.get(f"/battles/{battle.pk}/").content.decode()
    note = page.split('id="deadline-note">')[1].split("</span>")[0]
    assert "the computer plays the battle to its end" in note and "auto-resolved" not in note
    mode = page.split('id="mode-text">')[1].split("</td>")[0]
    assert "Star Trek Print&amp;Play" in mode and "converted" in mode
    # the log's "converted" line names the rulings, not a repository file (tests/campaign/test_page_words.py)
    assert "XC19-XC25" in page and "docs/" not in page
    actions.settle_due_battles(now=battle.deadline + timedelta(minutes=1))
    battle.refresh_from_db()
    assert battle.resolved_how == "tactical"  # what the note says: played to its end, not auto-resolved


def test_the_decision_email_links_to_the_battle_with_the_sites_address(small_campaign, alice, settings, eager_tasks,
                                                                        django_capture_on_commit_callbacks):
    """The email telling a player a battle fought online waits for him said "Play it at
    /battles/<id>/play/": a path, not a link a mail reader can open. The decision passes from one
    player to the other as they act (who acts first is the dice bag's, 001 "Sequence of Play"); the
    email is a task, run in-process here even where the suite has a broker."""
    from django.core import mail

    from campaign.models import Empire
    from tactical.play import actions as play

    settings.SITE_URL = "https://sector.example"
    _choose_printplay(small_campaign, alice)
    with django_capture_on_commit_callbacks(execute=True):
        contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    users = {e.seat: e.user for e in Empire.objects.filter(campaign=small_campaign)}
    rules = embedded.rules_for(battle)
    for _ in range(60):
        decisions = [m for m in mail.outbox if "is yours" in m.body]
        battle.refresh_from_db()
        if decisions or battle.status != Battle.Status.PLAYING:
            break
        state = embedded.current_state(battle)
        seat = rules.acting_sides(state)[0]
        with django_capture_on_commit_callbacks(execute=True):
            play.take_action(battle_id=battle.pk, user=users[seat],
                             action_json=rules.action_json(play.doctrine_choice(rules, state, seat)))
    assert decisions, [m.body for m in mail.outbox]
    assert all(f"Play it at https://sector.example/battles/{battle.pk}/play/" in m.body for m in decisions), \
        [m.body for m in decisions]


def test_the_new_battle_email_names_the_book_and_links_to_the_battle(small_campaign, alice, settings,
                                                                     django_capture_on_commit_callbacks):
    """The email of a new battle said "A battle at (x, y) is to be embedded tactical battle, played
    online." (the mode's label pasted in): no rule book, no link."""
    from django.core import mail

    settings.SITE_URL = "https://sector.example"
    _choose_printplay(small_campaign, alice)
    with django_capture_on_commit_callbacks(execute=True):
        contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    news = [m for m in mail.outbox if "is to be" in m.body]
    assert len(news) == 2, [m.body for m in mail.outbox]  # one for each side
    said = f"is to be played online on Star Trek Print&amp;Play (the fleets converted): " \
           f"https://sector.example/battles/{battle.pk}/"
    assert all(said in m.alternatives[0][0] or said.replace("&amp;", "&") in m.body for m in news), news[0].body
    assert "to be played online on Star Trek Print&Play" in battle.log.get(kind="created").text


def test_the_play_page_and_board_show_each_empire_in_its_map_colour(client, small_campaign, alice, bob):
    """Fought on Print&Play, the play page's sides and board ships took Print&Play's own colours
    (seat 1 blue, seat 2 red) while the campaign's map and the battle page showed each empire in
    its own: a player looked for his ships in the wrong colour."""
    _choose_printplay(small_campaign, alice)
    contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    empires = {e.seat: e.colour for e in small_campaign.empires.all()}
    client.force_login(bob)
    page = client.get(f"/battles/{battle.pk}/play/").content.decode()
    for seat in (1, 2):
        side = page.split(f'id="side-{seat}"')[1].split("</span>")[0]
        assert f"background:{empires[seat]}" in side, side
    board = page.split('id="board"')[1].split("</svg>")[0]
    assert empires[1] in board and empires[2] in board


def test_a_cam_side_without_a_colour_is_not_grey_on_the_play_page(db, client, alice, bob, carol):
    """A CAM rubber's sides on My Trek V carry no colour: the page's swatches were grey (#999)
    beside the board's red and blue ships."""
    from tests.cam.conftest import make_cam
    from tests.cam.test_online import _begin

    c = make_cam(alice, bob, carol)
    campaign_actions.set_campaign_option(campaign_id=c.pk, user=alice, key="battle_book", value="mytrek")
    _begin(c, alice, bob, carol)
    battle = Battle.objects.get(campaign=c)
    client.force_login(bob)
    page = client.get(f"/battles/{battle.pk}/play/").content.decode()
    swatches = [page.split(f'id="side-{seat}"')[1].split("</span>")[0] for seat in (1, 2)]
    colours = [s.split("background:")[1].split('"')[0] for s in swatches]
    assert "#999" not in colours and colours[0] != colours[1]
    board = page.split('id="board"')[1].split("</svg>")[0]
    assert all(colour in board for colour in colours)  # the board draws each side in its swatch's colour


def test_the_play_page_names_the_book_the_battle_is_fought_on(client, small_campaign, alice, bob):
    """The play page of an Event Horizon battle fought on Print&Play was headed "Battle N at (x, y)
    — turn T" only: nothing said the rules on the page were Print&Play's."""
    _choose_printplay(small_campaign, alice)
    contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    client.force_login(bob)
    page = client.get(f"/battles/{battle.pk}/play/").content.decode()
    heading = page.split("<h1>")[1].split("</h1>")[0]
    assert heading.endswith("— turn 1, on Star Trek Print&amp;Play (converted)"), heading
