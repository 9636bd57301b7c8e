"""Edits through the Django admin land in the campaign's audit log (issue 4, Moderation: "edit
state through admin pages with every edit in an audit log (who, when, before, after)"); the dice
log and the audit log are read-only there."""

import json

import pytest
from django.contrib import admin
from django.db.models import BooleanField, JSONField
from django.test import Client, RequestFactory

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.models import Fleet, Ship, World
from campaign.models import AuditEntry, Campaign, DiceRoll, Turn, TurnOrders

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(django_user_model):
    return django_user_model.objects.create_superuser("root", "root@example.com", "pw-root")


@pytest.fixture
def staff(root):
    client = Client()
    client.force_login(root)
    return client


def form_data(obj, **changes):
    """The admin change form's POST for ``obj`` with some fields changed."""
    data = {}
    for field in obj._meta.concrete_fields:
        if not field.editable or field.primary_key:
            continue
        value = changes.get(field.name, field.value_from_object(obj))
        if isinstance(field, JSONField):
            data[field.name] = json.dumps(value)
        elif isinstance(field, BooleanField):
            if value:
                data[field.name] = "on"
        else:
            data[field.name] = "" if value is None else value
    return data


def url(obj, what="change"):
    return f"/admin/{obj._meta.app_label}/{obj._meta.model_name}/{obj.pk}/{what}/"


def test_an_edit_is_recorded_with_before_and_after(small_campaign, staff, root):
    empire = small_campaign.empires.get(seat=1)
    bp_before = empire.bp  # what the set-up round left, plus turn 1's income
    response = staff.post(url(empire), form_data(empire, bp=999, name="Bob's Hegemony"))
    assert response.status_code == 302, response.content.decode()[:2000]
    empire.refresh_from_db()
    assert empire.bp == 999
    [entry] = AuditEntry.objects.filter(campaign=small_campaign)
    assert entry.user == root and entry.action == "admin_change" and "Bob's Hegemony" in entry.target
    assert entry.before["bp"] == bp_before and entry.after["bp"] == 999
    assert entry.before["name"] == "Bob's Realm" and entry.after["name"] == "Bob's Hegemony"


def test_a_world_given_to_another_empire(small_campaign, staff):
    world = World.objects.filter(campaign=small_campaign, owner__isnull=True).first()
    carol_empire = small_campaign.empires.get(seat=2)
    assert staff.post(url(world), form_data(world, owner=carol_empire.pk)).status_code == 302
    [entry] = AuditEntry.objects.filter(campaign=small_campaign)
    assert entry.before["owner_id"] is None and entry.after["owner_id"] == carol_empire.pk


def test_deletions_are_recorded(small_campaign, staff):
    for empire in small_campaign.empires.all():
        dock = empire.structures.get(resource="dockyard").number
        eh_actions.submit_orders(empire_id=empire.pk, raw={"purchases": [
            {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dock}]})
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    ship = Ship.objects.filter(campaign=small_campaign).first()
    assert ship is not None
    assert staff.post(url(ship, "delete"), {"post": "yes"}).status_code == 302
    assert not Ship.objects.filter(pk=ship.pk).exists()
    [entry] = AuditEntry.objects.filter(campaign=small_campaign, action="admin_delete")
    assert entry.before["number"] == ship.number and entry.after is None
    # "Delete selected" from the list goes through the same path, one entry per row.
    fleets = list(Fleet.objects.filter(campaign=small_campaign, ships__isnull=True).values_list("pk", flat=True))
    staff.post("/admin/eventhorizon/fleet/", {"action": "delete_selected", "_selected_action": fleets, "post": "yes"})
    assert AuditEntry.objects.filter(campaign=small_campaign, action="admin_delete").count() == 1 + len(fleets)


def test_inline_rows_are_recorded(small_campaign, staff):
    turn = Turn.objects.get(campaign=small_campaign, number=1)
    row, _ = eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk, raw={}, ready=False)
    data = form_data(turn)
    data.update({
        "orders-TOTAL_FORMS": "1", "orders-INITIAL_FORMS": "1", "orders-MIN_NUM_FORMS": "0",
        "orders-MAX_NUM_FORMS": "1000", "orders-0-id": row.pk, "orders-0-turn": turn.pk,
        "orders-0-empire": row.empire_id, "orders-0-ready": "on", "orders-0-revision": 1,
        "orders-0-orders": json.dumps({"standing": {"loss_order": "costliest"}}),
    })
    response = staff.post(url(turn), data)
    assert response.status_code == 302, [
        f.errors for f in response.context["inline_admin_formsets"][0].formset
    ] + [response.context["adminform"].form.errors]
    assert TurnOrders.objects.get(pk=row.pk).ready
    changed = AuditEntry.objects.get(campaign=small_campaign, target__startswith="turn orders")
    assert changed.before["ready"] is False and changed.after["ready"] is True
    assert changed.after["orders"] == {"standing": {"loss_order": "costliest"}}


def test_campaign_edits_never_copy_the_dice_seed(small_campaign, root):
    campaign_admin = admin.site._registry[Campaign]
    request = RequestFactory().post("/")
    request.user = root
    campaign = Campaign.objects.get(pk=small_campaign.pk)
    campaign.turn_hours = 12
    campaign_admin.save_model(request, campaign, None, True)
    [entry] = AuditEntry.objects.filter(campaign=small_campaign)
    assert entry.before["turn_hours"] == 72 and entry.after["turn_hours"] == 12
    assert "dice_seed" not in entry.before and small_campaign.dice_seed not in json.dumps([entry.before, entry.after])


def test_no_new_campaign_in_the_admin(staff):
    assert staff.get("/admin/campaign/campaign/add/").status_code == 403


def test_the_dice_log_is_read_only(small_campaign, staff):
    roll = DiceRoll.objects.filter(campaign=small_campaign).first()
    assert staff.get(url(roll)).status_code == 200  # it can be looked at
    assert staff.post(url(roll), {"total": 1}).status_code == 403
    assert staff.post(url(roll, "delete"), {"post": "yes"}).status_code == 403
    assert staff.get("/admin/campaign/diceroll/add/").status_code == 403
    assert DiceRoll.objects.filter(pk=roll.pk, total=roll.total).exists()


def test_the_audit_log_is_read_only(small_campaign, staff, alice):
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
    entry = AuditEntry.objects.get()
    assert staff.post(url(entry, "delete"), {"post": "yes"}).status_code == 403
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


def test_non_staff_cannot_use_the_admin(small_campaign, alice):
    client = Client()
    client.force_login(alice)  # the moderator, but not site staff
    empire = small_campaign.empires.get(seat=1)
    bp_before = empire.bp
    response = client.post(url(empire), form_data(empire, bp=999))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    empire.refresh_from_db()
    assert empire.bp == bp_before != 999 and not AuditEntry.objects.exists()


def test_invitations_are_listed_and_revoked_in_the_admin_with_an_audit_entry(small_campaign, staff, root, alice):
    from campaign.models import Invitation

    invitation = Invitation.objects.create(campaign=small_campaign, email="dave@example.com",
                                           token="secret-token-of-the-link", invited_by=alice)
    listing = staff.get("/admin/campaign/invitation/")
    assert listing.status_code == 200 and "dave@example.com" in listing.content.decode()
    page = staff.get(url(invitation))
    assert page.status_code == 200 and "secret-token-of-the-link" not in page.content.decode()
    assert staff.get("/admin/campaign/invitation/add/").status_code == 403  # sent from the lobby
    assert staff.post(url(invitation, "delete"), {"post": "yes"}).status_code == 302
    assert not Invitation.objects.filter(pk=invitation.pk).exists()
    [entry] = AuditEntry.objects.filter(campaign=small_campaign, action="admin_delete")
    assert entry.user == root and entry.before["email"] == "dave@example.com"
    assert "token" not in entry.before  # the link's secret is not kept in the log
