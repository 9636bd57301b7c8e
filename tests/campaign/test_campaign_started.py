"""Issue 23 items 7 and 8: when a campaign starts its players are emailed that it has started and
its set-up round is open (003 "Set Up"), and the round has one name everywhere: "the set-up
round", never "turn 0" nor "turn 1 is open" while it runs (docs/rulings.md SU10)."""

import re

import pytest
from django.core import mail
from django.urls import reverse

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.models import COLOUR_PALETTE, Campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def joined(alice, bob, carol):
    lobby = eh_actions.create_lobby(moderator=alice, name="Lobby Sector", grid="hex", width=14, height=12, seats=3,
                                 seed="lobby-1", turn_hours=48, setup_hours=72)
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="Bob's Realm", colour=COLOUR_PALETTE[0])
    actions.join_campaign(user=carol, token=lobby.invite_token, empire_name="Carol's Combine", colour=COLOUR_PALETTE[1])
    return lobby


def _start(client, campaign, alice, django_capture_on_commit_callbacks):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("lobby-start", args=[campaign.pk]), {"confirm": "yes"}, follow=True)
    assert response.status_code == 200
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.ACTIVE and campaign.turn == 0
    return response


def test_players_are_emailed_that_the_campaign_started_and_the_set_up_round_is_open(
        client, joined, alice, bob, carol, django_capture_on_commit_callbacks):
    _start(client, joined, alice, django_capture_on_commit_callbacks)
    started = [m for m in mail.outbox if "has started" in m.subject]
    assert sorted(m.to[0] for m in started) == ["bob@example.com", "carol@example.com"]  # players, not the bots
    bob_mail = next(m for m in started if m.to == ["bob@example.com"])
    assert "the set-up round is open" in bob_mail.subject
    assert "Bob's Realm" in bob_mail.body and f"/campaigns/{joined.pk}/orders/" in bob_mail.body
    assert "closes on" in bob_mail.body  # the set-up deadline (setup_hours)
    html = bob_mail.alternatives[0][0]
    assert "the set-up round is open" in html
    # Sent once: the start cannot happen twice, and a repeat finds its SentNotification rows.
    from campaign.actions.notifications import send_started_notifications

    assert send_started_notifications(campaign=joined) == 0


TURN_ZERO = re.compile(r"\b[Tt]urn 0\b|turn 1 is open|[Tt]urn 1 (?:is )?open")


def test_the_set_up_round_has_one_name_on_every_page(client, joined, alice, bob, django_capture_on_commit_callbacks):
    response = _start(client, joined, alice, django_capture_on_commit_callbacks)
    said = " ".join(str(m) for m in response.context["messages"])
    assert "set-up round is open" in said and not TURN_ZERO.search(said)
    pages = {"moderation panel": reverse("moderation-panel", args=[joined.pk]),
             "campaign": reverse("campaign-detail", args=[joined.pk]), "home": reverse("home")}
    for user, extra in ((alice, {}), (bob, {"orders": reverse("campaign-orders", args=[joined.pk]),
                                            "paste": reverse("campaign-orders-text", args=[joined.pk])})):
        client.force_login(user)
        for name, url in {**pages, **extra}.items():
            if name == "moderation panel" and user != alice:
                continue
            text = client.get(url).content.decode()
            found = TURN_ZERO.search(re.sub(r"<script.*?</script>", "", text, flags=re.S))
            assert found is None, f"the {name} page calls the set-up round {found.group(0)!r}"
            assert "set-up round" in text.lower(), f"the {name} page does not name the set-up round"
    for m in mail.outbox:
        assert not TURN_ZERO.search(m.subject + m.body), m.subject


def test_after_the_set_up_round_its_report_is_still_called_the_set_up_round(client, small_campaign, bob):
    # Found walking the demo: the campaign page listed the reports "Turn 4 · … · Turn 1 · Turn 0".
    client.force_login(bob)
    pages = {"campaign": reverse("campaign-detail", args=[small_campaign.pk]),
             "set-up report": reverse("campaign-report", args=[small_campaign.pk, 0]),
             "reports": reverse("campaign-reports", args=[small_campaign.pk])}
    for name, url in pages.items():
        response = client.get(url)
        assert response.status_code == 200, name
        text = re.sub(r"<script.*?</script>", "", response.content.decode(), flags=re.S)
        found = TURN_ZERO.search(text)
        assert found is None, f"the {name} page calls the set-up round {found.group(0)!r}"
        assert "set-up round" in text.lower(), name


def test_the_dice_log_names_the_set_up_rounds_rolls_set_up(client, small_campaign, bob):
    # Found walking the demo: the dice log's Turn column read "0" for the map and set-up rolls.
    client.force_login(bob)
    text = client.get(reverse("campaign-dice", args=[small_campaign.pk])).content.decode()
    rows = re.findall(r"<tr><td>\d+</td><td>([^<]*)</td>", text)
    assert rows and "0" not in rows and "set-up" in rows


def test_turn_1s_report_links_back_to_the_set_up_rounds(client, small_campaign, bob):
    # Found walking the demo: the pager began at turn 1 (the set-up round, number 0, read as "none").
    eh_actions.process_turn(campaign_id=small_campaign.pk)  # turn 1 (nobody sent orders): its report is made
    client.force_login(bob)
    text = client.get(reverse("campaign-report", args=[small_campaign.pk, 1])).content.decode()
    back = re.search(r'<a href="([^"]*)" id="report-previous">← ([^<]*)</a>', text)
    assert back and back.group(2) == "Set-up round"
    assert back.group(1) == reverse("campaign-report", args=[small_campaign.pk, 0])
    setup = client.get(back.group(1)).content.decode()
    assert 'id="report-previous"' not in setup and re.search(r'id="report-next">Turn 1 →', setup)
