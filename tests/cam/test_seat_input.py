"""A ``seat`` that is not a seat number (text, a list, an object, true) is a 400 naming the
problem on every CAM endpoint that takes one, never a 500, and changes nothing."""

import pytest
from rest_framework.test import APIClient

from campaign.models import AuditEntry
from tactical.models import Battle, BattleStep

from .conftest import make_cam
from .test_online import _begin

BAD_SEATS = ["x", "1", [1], {"seat": 1}, True, 1.5]


def api(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


@pytest.mark.parametrize("seat", BAD_SEATS)
def test_a_bad_seat_is_a_400_on_the_online_battle_endpoints(db, alice, bob, carol, seat):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    battle = Battle.objects.get(campaign=c)
    steps, audits = BattleStep.objects.filter(battle=battle).count(), AuditEntry.objects.count()
    base = f"/api/cam/campaigns/{c.pk}/scenarios/1/"
    for path, body in (("act/", {"action": {"type": "begin"}, "seat": seat}),
                       ("doctrine/", {"on": True, "seat": seat})):
        r = api(bob).post(base + path, body, format="json")  # a player naming his seat (the moderator names none, MO9)
        assert r.status_code == 400, (path, seat, r.status_code, r.content[:300])
        assert "seat" in r.json()["detail"]
    assert (BattleStep.objects.filter(battle=battle).count(), AuditEntry.objects.count()) == (steps, audits)


@pytest.mark.parametrize("seat", BAD_SEATS)
def test_a_bad_seat_is_a_400_on_the_fleet_endpoint(db, alice, bob, carol, seat):
    c = make_cam(alice, bob, carol, start=False)
    r = api(alice).put(f"/api/cam/campaigns/{c.pk}/fleet/", {"fleet": [], "seat": seat}, format="json")
    assert r.status_code == 400, (seat, r.status_code, r.content[:300])
    assert "seat" in r.json()["detail"]
