"""Unread press beyond the press pages (issue 23 item 6): the site menu's "Press" carries the
reader's unread count over every campaign, and each home-page card its campaign's, in a fixed
number of queries whatever the number of campaigns."""

import re

import pytest
from django.urls import reverse

from campaign.eventhorizon import actions as eh_actions
from campaign.press import actions
from tests.cam.conftest import make_cam

pytestmark = pytest.mark.django_db


def _menu(html: str) -> str:
    return html.split('<nav aria-label="Site">')[1].split("</nav>")[0]


def _card(html: str, campaign_id: int) -> str:
    return html.split(f'data-campaign="{campaign_id}"')[1].split("</li>")[0]


def test_the_menu_and_the_home_cards_count_unread_press(client, press_campaign, alice, bob, carol, dave):
    cam = make_cam(alice, bob, carol, start=False)
    actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="For Carol")
    actions.post(campaign_id=press_campaign.pk, user=bob, to="all", text="For everyone")
    actions.post(campaign_id=cam.pk, user=bob, to=[2], text="Qapla'")
    actions.post(campaign_id=press_campaign.pk, user=bob, to=[3], text="For Dave only")  # not carol's to read
    client.force_login(carol)
    home = client.get(reverse("home")).content.decode()
    assert re.search(r'href="/press/"[^>]*>Press <span class="pill"[^>]*>3 new</span>', _menu(home))
    assert f'href="{reverse("press", args=[press_campaign.pk])}"' in _card(home, press_campaign.pk)
    assert "2 new" in _card(home, press_campaign.pk) and "1 new" in _card(home, cam.pk)
    # The menu is on every page; reading a conversation counts it read there at once.
    conversation = actions.post(campaign_id=cam.pk, user=bob, to=[2], text="Again").conversation.public_id
    assert "4 new" in _menu(client.get(reverse("design-library")).content.decode())
    client.get(reverse("press-conversation", args=[cam.pk, conversation]))
    assert "2 new" in _menu(client.get(reverse("design-library")).content.decode())
    home = client.get(reverse("home")).content.decode()
    assert "new" not in _card(home, cam.pk)
    # The writer has nothing unread; the moderator reads the public message only.
    client.force_login(bob)
    assert "new" not in _menu(client.get(reverse("home")).content.decode())
    client.force_login(alice)
    home = client.get(reverse("home")).content.decode()
    assert "1 new" in _menu(home) and "1 new" in _card(home, press_campaign.pk)


def test_the_kept_map_page_shows_the_unread_count_of_now(client, small_campaign, bob, carol):
    client.force_login(carol)
    url = reverse("campaign-map", args=[small_campaign.pk])
    assert "new" not in _menu(client.get(url).content.decode())
    actions.post(campaign_id=small_campaign.pk, user=bob, to=[2], text="Hello")
    assert "1 new" in _menu(client.get(url).content.decode())


def test_home_counts_unread_press_in_a_fixed_number_of_queries(client, press_campaign, alice, bob, carol,
                                                               django_assert_max_num_queries):
    actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="one")
    cam = make_cam(alice, bob, carol, start=False)  # both layers from the start: each asks its seats once
    client.force_login(carol)
    with django_assert_max_num_queries(40) as one:
        client.get(reverse("home"))
    for n in range(3):
        other = eh_actions.create_campaign(name=f"More {n}", grid="hex", width=12, height=12, players=2,
                                                 seed=f"more-{n}", moderator=alice)
        other.empires.filter(seat=1).update(user=bob)
        other.empires.filter(seat=2).update(user=carol)
        actions.post(campaign_id=other.pk, user=bob, to=[2], text="more")
    actions.post(campaign_id=cam.pk, user=bob, to=[2], text="more")
    with django_assert_max_num_queries(len(one.captured_queries)):
        home = client.get(reverse("home")).content.decode()
    assert "5 new" in _menu(home)


def test_a_staff_players_unread_count_holds_no_private_press_of_other_seats(client, press_campaign, alice, bob, carol,
                                                                             dave):
    """Ruling MO8: staff see as their own role does. Dave (seat 3) is staff; a private message
    between seats 1 and 2 that the moderator may read (press_moderator_reads) is not his to count."""
    actions.set_press_options(campaign_id=press_campaign.pk, user=alice, moderator_reads=True)
    dave.is_staff = True
    dave.save()
    client.force_login(dave)
    assert "new" not in _menu(client.get(reverse("home")).content.decode())
    actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="Between us")
    home = client.get(reverse("home")).content.decode()
    assert "new" not in _menu(home) and "new" not in _card(home, press_campaign.pk)
    actions.post(campaign_id=press_campaign.pk, user=bob, to=[3], text="For Dave")  # his own: counted
    assert "1 new" in _menu(client.get(reverse("home")).content.decode())
