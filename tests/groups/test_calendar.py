"""The deadline calendar (issue 32 item 2, docs/groups.md): a private RFC 5545 feed at a secret
URL, read here with a real parser (``icalendar``); it follows extensions, pauses and away dates."""

from datetime import UTC, datetime, timedelta

import icalendar
import pytest
from django.urls import reverse

from campaign import actions
from campaign.groups import away, calendar
from campaign.models import Turn

SOON = (datetime.now(UTC) + timedelta(days=2)).replace(second=0, microsecond=0)


@pytest.fixture
def running(small_campaign):
    Turn.objects.filter(campaign=small_campaign, number=small_campaign.turn).update(deadline=SOON)
    return small_campaign


def _feed(client, secret):
    response = client.get(reverse("calendar-feed", args=[secret]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    raw = response.content
    assert all(len(line) <= 75 for line in raw.split(b"\r\n")), "RFC 5545 3.1: folded at 75 octets"
    return icalendar.Calendar.from_ical(raw)


def _events(cal):
    return [c for c in cal.walk("VEVENT")]


def test_the_feed_parses_and_lists_the_turn_deadline_with_alarms_and_its_page(running, bob, client):
    secret = calendar.rotate_feed(user=bob)
    cal = _feed(client, secret)
    assert str(cal["VERSION"]) == "2.0" and "Sector Command" in str(cal["PRODID"])
    (event,) = _events(cal)
    assert event.decoded("DTSTART") == SOON
    assert running.name in str(event["SUMMARY"]) and "deadline" in str(event["SUMMARY"])
    assert str(event["URL"]).endswith(reverse("campaign-orders", args=[running.pk]))  # where he acts on it
    triggers = sorted(alarm.decoded("TRIGGER") for alarm in event.walk("VALARM"))
    assert triggers == [timedelta(hours=-24), timedelta(hours=-1)]
    assert {str(alarm["ACTION"]) for alarm in event.walk("VALARM")} == {"DISPLAY"}


def test_the_feed_follows_an_extension_a_pause_and_an_absence(running, alice, bob, carol, client):
    secret = calendar.rotate_feed(user=bob)
    (before,) = _events(_feed(client, secret))
    actions.extend_deadline(campaign_id=running.pk, user=alice, hours=24)
    (after,) = _events(_feed(client, secret))
    assert after.decoded("DTSTART") == SOON + timedelta(hours=24)
    assert str(after["UID"]) == str(before["UID"])  # the same event, moved
    assert int(after["SEQUENCE"]) > int(before["SEQUENCE"])

    absence = away.declare_absence(user=carol, starts=SOON, ends=SOON + timedelta(days=3), campaign_id=running.pk)
    (away_event,) = _events(_feed(client, secret))
    assert away_event.decoded("DTSTART") == SOON + timedelta(days=3)
    away.end_absence(absence_id=absence.pk, user=carol)
    assert _events(_feed(client, secret))[0].decoded("DTSTART") == SOON + timedelta(hours=24)

    actions.pause_campaign(campaign_id=running.pk, user=alice)
    assert _events(_feed(client, secret)) == []  # paused: no deadline


def test_the_moderators_event_links_to_the_campaign_page(running, alice, client):
    (event,) = _events(_feed(client, calendar.rotate_feed(user=alice)))
    assert str(event["URL"]).endswith(reverse("campaign-detail", args=[running.pk]))


def test_a_secret_is_revocable_and_replaced_and_others_campaigns_never_show(running, bob, mallory, client):
    old = calendar.rotate_feed(user=bob)
    new = calendar.rotate_feed(user=bob)
    assert client.get(reverse("calendar-feed", args=[old])).status_code == 404
    assert len(_events(_feed(client, new))) == 1
    calendar.revoke_feed(user=bob)
    assert client.get(reverse("calendar-feed", args=[new])).status_code == 404
    assert client.get("/calendar/not-a-secret.ics").status_code == 404
    outsider = calendar.rotate_feed(user=mallory)
    assert _events(_feed(client, outsider)) == []


def test_a_cam_step_deadline_is_in_the_feed(alice, bob, carol, client):
    from campaign.cam.models import CamCampaign
    from tests.cam.conftest import make_cam

    rubber = make_cam(alice, bob, carol)
    CamCampaign.objects.filter(pk=rubber.pk).update(deadline=SOON)
    (event,) = _events(_feed(client, calendar.rotate_feed(user=carol)))
    assert event.decoded("DTSTART") == SOON and rubber.name in str(event["SUMMARY"])
    assert str(event["URL"]).endswith(reverse("cam-detail", args=[rubber.pk]))


def test_the_calendar_page_shows_the_url_once_and_the_api_makes_and_revokes_it(running, bob, client):
    client.force_login(bob)
    page = client.post(reverse("calendar")).content.decode()
    assert "/calendar/" in page and ".ics" in page and running.name in page
    assert ".ics" not in client.get(reverse("calendar")).content.decode()  # shown once
    made = client.post(reverse("api-calendar"))
    assert made.status_code == 201
    url = made.json()["url"]
    assert client.get(url).status_code == 200
    assert client.delete(reverse("api-calendar")).status_code == 204
    assert client.get(url).status_code == 404


def test_text_is_escaped_and_long_lines_are_folded(running, bob, client):
    running.name = "A; very, long\\slashed " + "é" * 60
    running.save(update_fields=["name"])
    (event,) = _events(_feed(client, calendar.rotate_feed(user=bob)))
    assert str(event["SUMMARY"]).startswith("A; very, long\\slashed " + "é" * 60)


def test_a_battle_decision_deadline_is_in_its_sides_feeds_only(running, bob, carol, client, django_user_model):
    from campaign.models import Membership
    from tactical.models import Battle
    from tests.tactical.play_support import make_battle

    battle = make_battle(running, start=False)
    Battle.objects.filter(pk=battle.pk).update(deadline=SOON + timedelta(hours=5))
    olive = django_user_model.objects.create_user("olive", "olive@example.com", "pw-olive")
    Membership.objects.create(campaign=running, user=olive, role=Membership.Role.OBSERVER)
    sides = {battle.attacker, battle.defender}
    for user, seat in ((bob, 1), (carol, 2)):
        found = [e for e in _events(_feed(client, calendar.rotate_feed(user=user))) if "battle" in str(e["UID"])]
        if seat in sides:
            (event,) = found
            assert event.decoded("DTSTART") == SOON + timedelta(hours=5)
            assert str(event["URL"]).endswith(reverse("battle-detail", args=[battle.pk]))
        else:
            assert found == []
    assert _events(_feed(client, calendar.rotate_feed(user=olive))) == []  # observers: no deadlines
