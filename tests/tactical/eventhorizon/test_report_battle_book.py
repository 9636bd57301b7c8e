"""Ruling BR5 (docs/rulings.md; 003 "Result of a Tactical Battle", issue 31): a battle fought
online is reported with the rule book it was fought on ("fought online on My Trek V") — in the turn
report (the engine's text), the emails that send it, the battle pages and the API — and the report
links each battle to its page, for the battles its reader may open only.

Before, the report said "fought online" whatever the book, and gave no way to the battle's page.
Fog of war: a seat's report, its emails and the report API answer the same, byte for byte, whether
or not two other empires fought a battle that turn.
"""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core import mail
from django.core.management import call_command
from django.urls import reverse

from campaign import actions as campaign_actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import reports
from campaign.models import Turn
from campaign.rules.eventhorizon import conflict
from tactical.battles import actions
from tactical.models import Battle
from tests.eventhorizon.setup_round import finish_setup
from tests.tactical.battle_support import contact_turn
from tests.tactical.test_battle_pages import client_for, text

# The turn report emails go out by a task: in-process here even on the broker-backed pass.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


def _fight_online(campaign, alice, book: str, django_capture_on_commit_callbacks) -> tuple[Battle, Turn]:
    """A battle between seats 1 and 2 fought online on ``book``, played out at its deadline by the
    doctrine (ruling C19); the turn is done and its emails are sent."""
    if book != "eventhorizon":
        campaign_actions.set_campaign_option(campaign_id=campaign.pk, user=alice, key="battle_book", value=book)
    contact_turn(campaign, "tactical")
    battle = Battle.objects.get(campaign=campaign)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert actions.settle_due_battles(now=battle.deadline + timedelta(minutes=1)) == 1
    battle.refresh_from_db()
    turn = Turn.objects.get(campaign=campaign, number=battle.turn)
    assert battle.resolved_how == "tactical" and turn.status == Turn.Status.DONE
    return battle, turn


def _command(campaign, number, player=None) -> str:
    """What ``manage.py report`` prints of turn ``number`` (``player``: its --player)."""
    out = StringIO()
    call_command("report", str(campaign.pk), str(number), *(["--player", player] if player else []), stdout=out)
    return out.getvalue()


def _battle_event(turn) -> dict:
    [event] = [e for e in turn.events if e["kind"] == "battle"]
    return event


def _email_to(user) -> str:
    [message] = [m for m in mail.outbox if m.to == [user.email] and "has been processed" in m.subject]
    return message.body + "\n" + message.alternatives[0][0]


def test_settled_text_names_the_book_of_a_battle_fought_online_only():
    assert conflict.settled_text("tactical", "My Trek V") == "fought online on My Trek V"
    assert conflict.settled_text("tactical_moderator", "Star Sectors") == \
        "fought online on Star Sectors, settled by the moderator"
    assert conflict.settled_text("tactical") == "fought online"  # a result stored before BR5
    assert conflict.settled_text("tabletop", "My Trek V") == "fought on the tabletop, result confirmed"
    assert conflict.settled_text("auto_deadline", "My Trek V") == "auto-resolved at the battle deadline"


@pytest.mark.parametrize(("book", "title"), [("mytrek", "My Trek V"), ("eventhorizon", "Event Horizon Quick Play")])
def test_a_battle_fought_online_names_its_book_and_links_its_page(small_campaign, alice, bob, carol, mallory,
                                                                   book, title, django_capture_on_commit_callbacks):
    battle, turn = _fight_online(small_campaign, alice, book, django_capture_on_commit_callbacks)
    event = _battle_event(turn)
    assert f"(fought online on {title})" in event["text"]
    assert event["data"]["book"] == title and event["data"]["index"] == battle.index
    path = reverse("battle-detail", args=[battle.pk])
    # The page: the engine's words, and a link to the battle, for both sides and the moderator.
    for user in (bob, carol, alice):
        page = text(client_for(user).get(reverse("campaign-report", args=[small_campaign.pk, turn.number])))
        assert f"fought online on {title}" in page
        assert f'<a href="{path}" class="battle-link"' in page
        assert client_for(user).get(path).status_code == 200  # a page the reader may open
    # The emails (text and HTML): the same, with the battle's full address.
    for user in (bob, carol, alice):
        sent = _email_to(user)
        assert f"fought online on {title}" in sent
        site = settings.SITE_URL.rstrip("/")
        assert f"battle page: {site}{path}" in sent and f'href="{site}{path}"' in sent
    # manage.py report prints the same links: a seat's report as its player reads it, the full one as the
    # moderator reads it (it printed none).
    for player in ("bob", "2", None):
        assert f"battle page: {site}{path}" in _command(small_campaign, turn.number, player)
    # The battle pages and the battle API say it in the same words (BR1).
    page = text(client_for(bob).get(path))
    assert f"fought online on {title}" in page
    listed = text(client_for(bob).get(reverse("battle-list", args=[small_campaign.pk])))
    assert f"ought online on {title}" in listed
    api = client_for(bob).get(reverse("api-battle", args=[battle.pk])).json()
    assert api["settled"] == f"fought online on {title}"
    # The report API gives the battle's page with its event.
    report = client_for(bob).get(reverse("api-report", args=[small_campaign.pk, turn.number])).json()
    [linked] = [e for s in report["sections"] for e in s["events"] if e.get("link")]
    assert linked["link"] == path and linked["kind"] == "battle"


def test_the_full_report_of_a_campaign_without_its_moderator_links_for_a_co_moderator(
        small_campaign, alice, bob, django_user_model, django_capture_on_commit_callbacks):
    """The creator's account is gone (``Campaign.moderator`` is null); a co-moderator moderates on.
    The full report is read as hers: she may open every battle page, so it links them (it linked none)."""
    battle, turn = _fight_online(small_campaign, alice, "mytrek", django_capture_on_commit_callbacks)
    path = f"{settings.SITE_URL.rstrip('/')}{reverse('battle-detail', args=[battle.pk])}"
    erin = django_user_model.objects.create_user("erin", "erin@example.com", "pw-erin")
    campaign_actions.add_moderator(campaign_id=small_campaign.pk, user=alice, username="erin")
    alice.delete()
    small_campaign.refresh_from_db()
    assert small_campaign.moderator is None
    assert client_for(erin).get(reverse("battle-detail", args=[battle.pk])).status_code == 200
    assert f"battle page: {path}" in _command(small_campaign, turn.number)
    # Nobody moderates any more: the full report still prints, linking nothing.
    small_campaign.memberships.filter(user=erin).delete()
    full = _command(small_campaign, turn.number)
    assert "fought online on My Trek V" in full and "battle page:" not in full


def test_a_report_stored_before_battles_carried_their_index_still_links(small_campaign, alice, bob,
                                                                        django_capture_on_commit_callbacks):
    battle, turn = _fight_online(small_campaign, alice, "mytrek", django_capture_on_commit_callbacks)
    for event in turn.events:
        (event.get("data") or {}).pop("index", None)
    turn.save(update_fields=["events"])
    path = reverse("battle-detail", args=[battle.pk])
    page = text(client_for(bob).get(reverse("campaign-report", args=[small_campaign.pk, turn.number])))
    assert f'<a href="{path}" class="battle-link"' in page


def test_a_tabletop_battle_links_its_page_and_names_no_book(small_campaign, alice, bob, carol):
    campaign_actions.set_campaign_option(campaign_id=small_campaign.pk, user=alice, key="battle_book",
                                         value="mytrek")
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get(campaign=small_campaign)
    client_for(alice).post(reverse("battle-settle", args=[battle.pk]), {"how": "auto"})
    turn = Turn.objects.get(campaign=small_campaign, number=battle.turn)
    assert "(auto-resolved by the moderator)" in _battle_event(turn)["text"]
    assert "book" not in _battle_event(turn)["data"]
    report = reports.render_report_text(small_campaign, turn.number, carol)
    assert "My Trek V" not in report
    assert f"battle page: {settings.SITE_URL.rstrip('/')}{reverse('battle-detail', args=[battle.pk])}" in report


# --- fog of war: a third seat learns nothing of a battle it did not fight -------------------------

@pytest.fixture
def three_seats(db, alice, bob, carol, django_user_model):
    """Bob (seat 1) and carol (seat 2) will fight; dave (seat 3) plays the same campaign."""
    dave = django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")
    campaign = eh_actions.create_campaign(name="Three Sector", grid="hex", width=14, height=14, players=3,
                                          seed="test-br5", moderator=alice)
    for seat, user in ((1, bob), (2, carol), (3, dave)):
        campaign.empires.filter(seat=seat).update(user=user, name=f"{user.username.title()}'s Realm")
    return finish_setup(campaign), dave


def _normalised(html: str) -> str:
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    return re.sub(r'nonce="[^"]*"', "", html)


def _answers(campaign, number, user) -> dict:
    client = client_for(user)
    return {
        "page": _normalised(client.get(reverse("campaign-report", args=[campaign.pk, number])).content.decode()),
        "api": client.get(reverse("api-report", args=[campaign.pk, number])).json(),
        "email text": reports.render_report_text(campaign, number, user),
        "email html": _normalised(reports.render_report_html(campaign, number, user)),
        "command": _command(campaign, number, user.username),
    }


def _without_the_battle(battle, turn) -> None:
    """The same turn as if seats 1 and 2 had not fought: no battle row, no battle event."""
    turn.events = [e for e in turn.events
                   if not (e["step"] == "battles" and (e.get("data") or {}).get("index") == battle.index)]
    turn.save(update_fields=["events"])
    battle.delete()


def test_a_seat_learns_nothing_of_a_battle_it_may_not_see(three_seats, alice, bob,
                                                          django_capture_on_commit_callbacks):
    campaign, dave = three_seats
    battle, turn = _fight_online(campaign, alice, "mytrek", django_capture_on_commit_callbacks)
    assert 3 not in battle.seats
    dave_with, bob_with = _answers(campaign, turn.number, dave), _answers(campaign, turn.number, bob)
    assert "My Trek V" in bob_with["email text"]  # the fighters are told (the comparison means something)
    assert "battle page:" not in dave_with["email text"] and "battle-link" not in dave_with["page"]
    assert "battle page:" not in dave_with["command"] and "battle page:" in bob_with["command"]
    sent = _email_to(dave)
    assert "My Trek V" not in sent and f"/battles/{battle.pk}/" not in sent
    _without_the_battle(battle, turn)
    assert _answers(campaign, turn.number, dave) == dave_with
    assert _answers(campaign, turn.number, bob) != bob_with
