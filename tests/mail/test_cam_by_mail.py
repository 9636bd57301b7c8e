"""CAM by mail (issue 18 item 7): confirm or dispute a scenario result by replying to its email."""

from __future__ import annotations

import base64

import pytest
from django.core import mail

from campaign.cam import actions, mailreply
from campaign.cam.models import CamScenario
from campaign.mail.models import InboundMessage
from campaign.models import AuditEntry
from tests.cam.conftest import at_the_table

from .conftest import eml


@pytest.fixture
def confirming(ingest, alice, bob, carol, django_capture_on_commit_callbacks):
    """Scenario 1 fought; carol entered the end, so it waits for bob's confirmation — and bob has
    the email asking for it."""
    c = at_the_table(alice, bob, carol)
    actions.enter_turn(campaign_id=c.pk, user=bob)
    actions.enter_turn(campaign_id=c.pk, user=carol)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.propose_end(campaign_id=c.pk, user=carol)
    [asking] = mail.outbox
    mail.outbox.clear()
    return c, asking


def scenario(c) -> CamScenario:
    return c.cam.scenario_rows.get(number=1)


def test_the_confirmation_email_carries_a_signed_reply_address(confirming, bob):
    c, asking = confirming
    assert asking.to == ["bob@example.com"]
    assert asking.reply_to == [mailreply.reply_address(c.pk, 1, bob.pk)]
    assert asking.reply_to[0].startswith(f"cam+{c.pk}.1.{bob.pk}.") and "CONFIRM" in asking.body


def test_confirm_by_reply_scores_the_scenario(confirming, ingest, bob):
    c, asking = confirming
    ingest(eml("cam_reply.eml", sender="bob@example.com", to=asking.reply_to[0], mid="c1@example.com",
               command="confirm"))
    assert scenario(c).stage == "scored"
    row = InboundMessage.objects.get()
    assert row.route == "cam" and row.outcome == "confirmed scenario 1" and row.reply_to == "bob@example.com"
    subjects = sorted(m.subject for m in mail.outbox)
    assert any("scenario 1 confirmed" in s for s in subjects) and any("scenario 1 report" in s for s in subjects)


def test_dispute_in_a_txt_attachment_with_its_reason(confirming, ingest, bob):
    c, asking = confirming
    text = "DISPUTE my cruiser was still on the table\nand firing.\n"
    ingest(eml("cam_dispute_attachment.eml", to=asking.reply_to[0],
               attachment=base64.b64encode(text.encode()).decode()))
    row = scenario(c)
    assert row.stage == "fighting" and row.proposed_by is None
    audit = AuditEntry.objects.get(action="cam_dispute")
    assert audit.user == bob and audit.note == "my cruiser was still on the table and firing."
    [reply] = mail.outbox
    assert reply.to == ["bob@example.com"] and "disputed" in reply.subject


def test_forged_sender_changes_nothing_and_the_owner_is_told(confirming, ingest, bob):
    c, asking = confirming
    ingest(eml("cam_reply.eml", sender="mallory@evil.example", to=asking.reply_to[0], mid="f@evil.example",
               command="CONFIRM"))
    assert scenario(c).stage == "confirming"
    [reply] = mail.outbox
    assert reply.to == ["bob@example.com"]  # the registered address, never the From:/Reply-To:
    assert "another address" in reply.body


def test_a_changed_address_is_refused(confirming, ingest, bob, carol):
    c, asking = confirming
    # carol (who entered the end) tries bob's address with her own user id: the signature breaks.
    forged = asking.reply_to[0].replace(f".{bob.pk}.", f".{carol.pk}.")
    ingest(eml("cam_reply.eml", sender="carol@example.com", to=forged, mid="x@example.com", command="CONFIRM"))
    assert scenario(c).stage == "confirming"
    assert "signature does not match" in InboundMessage.objects.get().outcome
    assert [m.to for m in mail.outbox] == [["carol@example.com"]]


def test_the_one_who_entered_the_result_cannot_confirm_it(confirming, ingest, carol):
    c, _ = confirming
    address = mailreply.reply_address(c.pk, 1, carol.pk)  # as if carol had been sent one
    ingest(eml("cam_reply.eml", sender="carol@example.com", to=address, mid="y@example.com", command="CONFIRM"))
    assert scenario(c).stage == "confirming"
    [reply] = mail.outbox
    assert "refused" in reply.body and "other player" in reply.body


def test_a_late_reply_finds_nothing_to_confirm(confirming, ingest, bob):
    c, asking = confirming
    for n in (1, 2):
        ingest(eml("cam_reply.eml", sender="bob@example.com", to=asking.reply_to[0], mid=f"late{n}@example.com",
                   command="CONFIRM"))
    assert scenario(c).stage == "scored"
    assert "not waiting for confirmation" in InboundMessage.objects.order_by("pk").last().outcome


def test_a_reply_without_a_command_is_not_understood(confirming, ingest, bob):
    c, asking = confirming
    ingest(eml("cam_reply.eml", sender="bob@example.com", to=asking.reply_to[0], mid="n@example.com",
               command="Looks fine to me"))
    assert scenario(c).stage == "confirming"
    assert "not understood" in mail.outbox[0].subject


def test_no_reply_address_while_the_site_takes_no_mail(db, alice, bob, carol, settings,
                                                        django_capture_on_commit_callbacks):
    settings.MAIL_IN_ENABLED = False
    c = at_the_table(alice, bob, carol)
    actions.enter_turn(campaign_id=c.pk, user=bob)
    actions.enter_turn(campaign_id=c.pk, user=carol)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.propose_end(campaign_id=c.pk, user=carol)
    [asking] = mail.outbox
    assert asking.reply_to == [] and "CONFIRM" not in asking.body


def test_the_envelope_recipient_given_by_the_mta_routes_the_reply(confirming, ingest, bob):
    # Some forwarders rewrite To:; the MTA pipe passes the envelope recipient (--recipient).
    c, asking = confirming
    raw = eml("cam_reply.eml", sender="bob@example.com", to="orders@sector.example.org", mid="env@example.com",
              command="CONFIRM")
    ingest(raw, "--recipient", asking.reply_to[0].upper())
    row = InboundMessage.objects.get()
    assert row.recipients == [asking.reply_to[0].lower()] and row.route == "cam"
    assert scenario(c).stage == "scored"
