"""Away dates (issue 32 item 1, docs/groups.md): a deadline inside an absence moves to its end
(up to the campaign's limit), through the campaign's layer record, audited, and moves back when
the player returns early; standing orders and the computer through the record's ``hold_seat``;
other players see that a seat is away, never the note."""

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from campaign import layers
from campaign.actions.errors import ActionError, NotFound
from campaign.groups import away
from campaign.groups.models import AwayEffect, AwayPolicy
from campaign.models import AuditEntry, Turn

# An hour on the hour tomorrow: the pages read the real clock, so the absences must lie ahead of it.
NOW = (datetime.now(UTC) + timedelta(days=1)).replace(minute=0, second=0, microsecond=0)


def _deadline(campaign):
    return layers.of(campaign).current_step(campaign).deadline


def _set_deadline(campaign, when):
    Turn.objects.filter(campaign=campaign, number=campaign.turn).update(deadline=when)


@pytest.fixture
def running(small_campaign):
    _set_deadline(small_campaign, NOW + timedelta(days=2))
    return small_campaign


def test_a_deadline_inside_the_absence_moves_to_its_end_and_back_on_an_early_return(running, bob, client, carol):
    original = NOW + timedelta(days=2)
    absence = away.declare_absence(user=bob, starts=NOW + timedelta(days=1), ends=NOW + timedelta(days=4),
                                   note="Sailing off Crete", campaign_id=running.pk, now=NOW)
    assert _deadline(running) == NOW + timedelta(days=4)
    effect = AwayEffect.objects.get(absence=absence)
    assert (effect.kind, effect.seat, effect.step) == ("extend", 1, running.turn)
    entry = AuditEntry.objects.get(campaign=running, action="away_extend")
    assert entry.user == bob and datetime.fromisoformat(entry.after["deadline"]) == NOW + timedelta(days=4)

    # carol sees that seat 1 is away, never where or why
    client.force_login(carol)
    page = client.get(reverse("campaign-away", args=[running.pk])).content.decode()
    assert "Bob&#x27;s Realm (seat 1)" in page and "away" in page
    assert "Crete" not in page and "Sailing" not in page
    api = client.get(reverse("api-campaign-away", args=[running.pk])).json()
    assert [row["seat"] for row in api["away"]] == [1] and "Crete" not in str(api)

    back = NOW + timedelta(days=1, hours=3)
    away.end_absence(absence_id=absence.pk, user=bob, now=back)
    assert _deadline(running) == original
    effect.refresh_from_db()
    assert effect.undone_at == back
    undo = AuditEntry.objects.get(campaign=running, action="away_undo")
    assert datetime.fromisoformat(undo.after["deadline"]) == original
    client.force_login(carol)
    assert "No seat is away" in client.get(reverse("campaign-away", args=[running.pk])).content.decode()


def test_the_extension_stops_at_the_campaigns_limit(running, bob, alice):
    away.set_away_policy(campaign_id=running.pk, user=alice, mode="extend", limit_hours=24)
    away.declare_absence(user=bob, starts=NOW, ends=NOW + timedelta(days=10), campaign_id=running.pk, now=NOW)
    assert _deadline(running) == NOW + timedelta(days=3)  # 2 days + 24 h, not the absence's end
    assert AuditEntry.objects.filter(campaign=running, action="away_policy").count() == 1


def test_a_deadline_outside_the_absence_stays_and_a_later_step_inside_it_is_extended_by_the_sweep(running, bob):
    absence = away.declare_absence(user=bob, starts=NOW + timedelta(days=5), ends=NOW + timedelta(days=8),
                                   campaign_id=running.pk, now=NOW)
    assert _deadline(running) == NOW + timedelta(days=2)
    assert not AwayEffect.objects.filter(absence=absence).exists()
    _set_deadline(running, NOW + timedelta(days=6))  # the next turn opened with its deadline inside
    assert away.apply_absences(now=NOW + timedelta(days=3)) == 1
    assert _deadline(running) == NOW + timedelta(days=8)
    assert away.apply_absences(now=NOW + timedelta(days=3, minutes=1)) == 0  # once per step


def test_an_absence_for_all_campaigns_reaches_each_and_returning_keeps_another_players_extension(running, bob, carol):
    mine = away.declare_absence(user=bob, starts=NOW, ends=NOW + timedelta(days=3), now=NOW)
    assert mine.campaign is None and _deadline(running) == NOW + timedelta(days=3)
    # carol is away longer: the deadline (now day 3) is inside her absence too, so it moves on to her end
    theirs = away.declare_absence(user=carol, starts=NOW, ends=NOW + timedelta(days=5), campaign_id=running.pk,
                                  now=NOW)
    assert AwayEffect.objects.get(absence=theirs).after["deadline"] == (NOW + timedelta(days=5)).isoformat()
    assert _deadline(running) == NOW + timedelta(days=5)
    away.end_absence(absence_id=mine.pk, user=bob, now=NOW + timedelta(hours=1))
    # bob's return does not take carol's extension away
    assert _deadline(running) == NOW + timedelta(days=5)


def test_a_deadline_the_moderator_moved_meanwhile_is_left_alone(running, bob, alice):
    from campaign import actions

    absence = away.declare_absence(user=bob, starts=NOW, ends=NOW + timedelta(days=3), campaign_id=running.pk,
                                   now=NOW)
    actions.extend_deadline(campaign_id=running.pk, user=alice, hours=12, now=NOW)
    moved = _deadline(running)
    away.end_absence(absence_id=absence.pk, user=bob, now=NOW + timedelta(hours=1))
    assert _deadline(running) == moved
    assert "left as it is" in AwayEffect.objects.get(absence=absence).undo_note


def test_an_early_return_after_the_original_deadline_gives_an_hour(running, bob):
    absence = away.declare_absence(user=bob, starts=NOW, ends=NOW + timedelta(days=4), campaign_id=running.pk,
                                   now=NOW)
    back = NOW + timedelta(days=3)  # the original deadline (day 2) has passed
    away.end_absence(absence_id=absence.pk, user=bob, now=back)
    assert _deadline(running) == back + away.RETURN_GRACE


def test_computer_play_while_away_and_the_seat_back_on_return(running, bob, alice):
    away.set_away_policy(campaign_id=running.pk, user=alice, mode="computer")
    absence = away.declare_absence(user=bob, starts=NOW - timedelta(hours=1), ends=NOW + timedelta(days=3),
                                   campaign_id=running.pk, now=NOW)
    empire = running.empires.get(seat=1)
    assert empire.is_bot and empire.auto_bot and empire.user == bob
    assert _deadline(running) == NOW + timedelta(days=2)  # no extension under this policy
    assert AuditEntry.objects.filter(campaign=running, action="away_computer").count() == 1
    away.end_absence(absence_id=absence.pk, user=bob, now=NOW + timedelta(days=1))
    empire.refresh_from_db()
    assert not empire.is_bot and not empire.auto_bot
    assert AuditEntry.objects.filter(campaign=running, action="away_return").count() == 1


def test_standing_orders_turns_missed_while_away_do_not_count(running, bob, alice):
    away.set_away_policy(campaign_id=running.pk, user=alice, mode="standing")
    running.empires.filter(seat=1).update(missed_turns=1)
    away.declare_absence(user=bob, starts=NOW, ends=NOW + timedelta(days=3), campaign_id=running.pk, now=NOW)
    running.empires.filter(seat=1).update(missed_turns=3, is_bot=True, auto_bot=True)  # the limit struck meanwhile
    assert away.apply_absences(now=NOW + timedelta(days=3, minutes=1)) == 1  # the absence ended: seat given back
    empire = running.empires.get(seat=1)
    assert (empire.missed_turns, empire.is_bot, empire.auto_bot) == (1, False, False)


def test_a_named_substitute_is_asked(running, bob, alice, carol, django_user_model):
    from django.core import mail

    sub = django_user_model.objects.create_user("sam", "sam@example.com", "pw")
    away.set_away_policy(campaign_id=running.pk, user=alice, mode="substitute", substitute="sam")
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        away.declare_absence(user=bob, starts=NOW - timedelta(minutes=1), ends=NOW + timedelta(days=1),
                             campaign_id=running.pk, now=NOW)
    assert any(m.to == [sub.email] and "seat 1" in m.subject for m in mail.outbox)
    assert AuditEntry.objects.get(campaign=running, action="away_substitute").after == {"asked": "sam"}


@pytest.mark.parametrize("starts, ends, why", [
    (NOW + timedelta(days=2), NOW + timedelta(days=1), "ends after it starts"),
    (NOW - timedelta(days=3), NOW - timedelta(days=1), "already over"),
    (NOW, NOW + timedelta(days=100), "at most 90 days"),
    ("tomorrow", NOW + timedelta(days=1), "dates and times"),
])
def test_bad_absences_are_refused_and_change_nothing(running, bob, starts, ends, why):
    with pytest.raises(ActionError, match=why):
        away.declare_absence(user=bob, starts=starts, ends=ends, campaign_id=running.pk, now=NOW)
    assert _deadline(running) == NOW + timedelta(days=2)
    assert not bob.absences.exists()


def test_an_outsider_cannot_declare_for_a_campaign_or_see_its_away_page(running, mallory, client, bob):
    with pytest.raises(NotFound):
        away.declare_absence(user=mallory, starts=NOW, ends=NOW + timedelta(days=1), campaign_id=running.pk, now=NOW)
    away.declare_absence(user=bob, starts=NOW, ends=NOW + timedelta(days=1), campaign_id=running.pk, now=NOW)
    client.force_login(mallory)
    assert client.get(reverse("campaign-away", args=[running.pk])).status_code == 404
    assert client.get(reverse("api-campaign-away", args=[running.pk])).status_code == 404
    with pytest.raises(NotFound):
        away.end_absence(absence_id=bob.absences.get().pk, user=mallory, now=NOW)


def test_only_a_moderator_sets_the_policy_and_only_what_the_layer_offers(running, bob, alice):
    from campaign.actions.errors import NotAllowed

    with pytest.raises(NotAllowed):
        away.set_away_policy(campaign_id=running.pk, user=bob, mode="computer")
    with pytest.raises(ActionError, match="offers"):
        away.set_away_policy(campaign_id=running.pk, user=alice, mode="holiday")
    assert not AwayPolicy.objects.exists()


def test_the_moderator_sees_the_note_on_the_panel_and_the_lobby_page_others_do_not(running, bob, alice, carol,
                                                                                    client):
    away.declare_absence(user=bob, starts=NOW, ends=NOW + timedelta(days=3), note="Sailing off Crete",
                         campaign_id=running.pk, now=NOW)
    client.force_login(alice)
    panel = client.get(reverse("moderation-panel", args=[running.pk])).content.decode()
    assert "Sailing off Crete" in panel and 'id="away-card"' in panel
    assert "Sailing off Crete" in client.get(reverse("campaign-away", args=[running.pk])).content.decode()
    client.force_login(carol)
    for name in ("campaign-away", "campaign-detail"):
        page = client.get(reverse(name, args=[running.pk])).content.decode()
        assert "Crete" not in page
    assert "1 away" in client.get(reverse("campaign-detail", args=[running.pk])).content.decode()


def test_the_api_declares_and_ends_an_absence(running, bob, client):
    from django.utils import timezone

    client.force_login(bob)
    starts, ends = timezone.now() + timedelta(days=1), timezone.now() + timedelta(days=3)
    made = client.post(reverse("api-away"), {"starts": starts.isoformat(), "ends": ends.isoformat(),
                                             "campaign": running.pk, "note": "x"}, content_type="application/json")
    assert made.status_code == 201, made.content
    assert [a["id"] for a in client.get(reverse("api-away")).json()["absences"]] == [made.json()["id"]]
    bad = client.post(reverse("api-away"), {"starts": ends.isoformat(), "ends": starts.isoformat()},
                      content_type="application/json")
    assert bad.status_code == 400 and "ends after it starts" in bad.json()["detail"]
    assert client.post(reverse("api-away-end", args=[made.json()["id"]])).status_code == 200
    assert client.get(reverse("api-away")).json()["absences"] == []
    assert client.post(reverse("api-away-end", args=[made.json()["id"]])).status_code == 400


def test_the_pickup_host_and_a_finished_campaign_get_nothing(running, bob):
    assert layers.get("pickup").away_modes == frozenset()
    running.status = "finished"
    running.save(update_fields=["status"])
    away.declare_absence(user=bob, starts=NOW, ends=NOW + timedelta(days=3), now=NOW)
    assert not AwayEffect.objects.exists()


def test_a_cam_steps_deadline_moves_through_its_layer_record_and_back(alice, bob, carol):
    from campaign.cam.models import CamCampaign
    from tests.cam.conftest import make_cam

    rubber = make_cam(alice, bob, carol)
    original = NOW + timedelta(days=1)
    CamCampaign.objects.filter(pk=rubber.pk).update(deadline=original)
    assert layers.of(rubber).current_step(rubber).open
    absence = away.declare_absence(user=carol, starts=NOW, ends=NOW + timedelta(days=2), campaign_id=rubber.pk,
                                   now=NOW)
    assert _deadline(rubber) == NOW + timedelta(days=2)
    assert AwayEffect.objects.get(absence=absence).seat == 2
    with pytest.raises(ActionError, match="offers"):  # no computer play in a rubber
        away.set_away_policy(campaign_id=rubber.pk, user=alice, mode="computer")
    away.end_absence(absence_id=absence.pk, user=carol, now=NOW + timedelta(hours=2))
    assert _deadline(rubber) == original


def test_the_moderator_sees_a_joined_players_absence_in_the_lobby_and_observers_cannot_declare(
        alice, bob, carol, client):
    from campaign.actions.errors import NotAllowed
    from campaign.eventhorizon import actions as eh_actions
    from campaign.models import Membership

    lobby = eh_actions.create_lobby(moderator=alice, name="Lobby Sector", width=12, height=12, seats=2)
    Membership.objects.create(campaign=lobby, user=bob, role=Membership.Role.PLAYER)
    Membership.objects.create(campaign=lobby, user=carol, role=Membership.Role.OBSERVER)
    away.declare_absence(user=bob, starts=NOW, ends=NOW + timedelta(days=3), note="Exams week",
                         campaign_id=lobby.pk, now=NOW)
    with pytest.raises(NotAllowed):
        away.declare_absence(user=carol, starts=NOW, ends=NOW + timedelta(days=3), campaign_id=lobby.pk, now=NOW)
    client.force_login(alice)
    page = client.get(reverse("lobby-detail", args=[lobby.pk])).content.decode()
    assert 'id="away-card"' in page and "Exams week" in page and "bob" in page
    client.force_login(bob)
    assert "away-card" not in client.get(reverse("lobby-detail", args=[lobby.pk])).content.decode()


def test_the_api_sets_the_policy_for_moderators_only(running, alice, bob, client):
    url = reverse("api-campaign-away", args=[running.pk])
    client.force_login(bob)
    assert client.put(url, {"mode": "computer"}, content_type="application/json").status_code == 403
    assert "policy" not in client.get(url).json()
    client.force_login(alice)
    made = client.put(url, {"mode": "computer", "limit_hours": 48}, content_type="application/json")
    assert made.status_code == 200 and made.json()["mode"] == "computer"
    assert client.get(url).json()["policy"] == {"mode": "computer", "limit_hours": 48, "substitute": None}
    bad = client.put(url, {"mode": "holiday"}, content_type="application/json")
    assert bad.status_code == 400 and "offers" in bad.json()["detail"]
