"""Issue 33: the pages that list a user's campaigns cost a fixed number of queries whatever the
number of his campaigns: home (Event Horizon campaigns and CAM rubbers), /press/,
/api/campaigns/ and a campaign's own page. A per-campaign query coming back makes these fail."""

from django.urls import reverse

from campaign.eventhorizon import actions as eh_actions
from campaign.models import Campaign
from campaign.views import dashboard
from tests.cam.conftest import make_cam
from tests.scale.counting import counted


def add_campaigns(n, alice, bob, carol, start=0):
    """n Event Horizon campaigns (bob seat 1, carol seat 2, in their set-up round) and n CAM
    rubbers (bob and carol play), through the public actions; alice moderates."""
    made = []
    for i in range(start, start + n):
        campaign = eh_actions.create_campaign(name=f"Sector {i}", grid="hex", width=12, height=12, players=2,
                                           seed=f"scale-{i}", moderator=alice)
        campaign.empires.filter(seat=1).update(user=bob, name=f"Bob {i}")
        campaign.empires.filter(seat=2).update(user=carol, name=f"Carol {i}")
        eh_actions.submit_orders(empire_id=campaign.empires.get(seat=1).pk, raw={}, ready=True)
        make_cam(alice, bob, carol, seed=f"cam-scale-{i}")
        made.append(campaign)
    return made


def queries(client, url):
    with counted() as sql:
        response = client.get(url)
    assert response.status_code == 200
    return len(sql)


def counts(client, urls):
    return {url: queries(client, url) for url in urls}


def test_pages_cost_the_same_for_a_user_in_1_or_10_campaigns(client, db, alice, bob, carol):
    first = add_campaigns(1, alice, bob, carol)[0]
    urls = [reverse("home"), reverse("press-index"), "/api/campaigns/",
            reverse("campaign-detail", args=[first.pk])]
    by_user = {}
    for user in (bob, alice):  # a player, the moderator
        client.force_login(user)
        counts(client, urls)  # warm the per-process caches (the menu's, the memos)
        by_user[user.username] = counts(client, urls)
    add_campaigns(9, alice, bob, carol, start=1)
    for user in (bob, alice):
        client.force_login(user)
        counts(client, urls)
        assert counts(client, urls) == by_user[user.username], user.username
    client.force_login(bob)
    assert len(client.get(reverse("home")).context["rows"]) == dashboard.PER_PAGE == 10  # a page of 20
    assert len(client.get("/api/campaigns/").json()["results"]) == 10


def test_home_shows_my_campaigns_a_page_at_a_time(client, db, alice, bob, carol, mallory):
    """A user in many campaigns gets a page of them (newest first) and links to the others; each
    page costs the same queries; a page that is not a number or past the end is still a page."""
    add_campaigns(8, alice, bob, carol)  # 16 campaigns: pages of 10 and 6
    client.force_login(bob)
    home = reverse("home")
    queries(client, home)
    first, second = client.get(home), client.get(home, {"page": 2})
    names = [row.campaign.name for row in first.context["rows"]] + [row.campaign.name for row in second.context["rows"]]
    assert len(first.context["rows"]) == 10 and len(second.context["rows"]) == 6
    assert names == [c.name for c in Campaign.objects.order_by("-created_at", "-id")]
    assert 'href="?page=2">Older' in first.content.decode()
    assert "Page 2 of 2: 16 campaigns" in second.content.decode() and 'href="?page=1">' in second.content.decode()
    assert queries(client, home + "?page=2") == queries(client, home)
    assert [r.campaign.pk for r in client.get(home, {"page": "x"}).context["rows"]] == \
        [r.campaign.pk for r in first.context["rows"]]
    assert [r.campaign.pk for r in client.get(home, {"page": 99}).context["rows"]] == \
        [r.campaign.pk for r in second.context["rows"]]
    # A user with one page sees no pager.
    first_only = eh_actions.create_campaign(name="Lone", grid="hex", width=12, height=12, players=2, seed="lone",
                                         moderator=mallory)
    client.force_login(mallory)
    response = client.get(home)
    assert [r.campaign for r in response.context["rows"]] == [first_only]
    assert 'class="pager"' not in response.content.decode()


def test_unread_press_builds_the_same_query_for_1_or_10_campaigns(db, alice, bob, carol):
    """The unread count's filter has a term per seat number the user holds, not per campaign (the
    campaign page, home and the menu all build it; issue 33)."""
    from campaign.press import visibility

    def seat_terms():
        with counted() as sql:
            visibility.unread_by_campaign(bob)
        return max(s.count('."seat"') for s in sql)

    add_campaigns(1, alice, bob, carol)
    one = seat_terms()
    add_campaigns(9, alice, bob, carol, start=1)
    assert seat_terms() == one


def test_the_campaign_page_builds_the_same_sql_for_a_player_in_1_or_10_campaigns(client, db, alice, bob, carol):
    """Not only as many queries: the same SQL. The battles card's filter had a term per seat the
    viewer held anywhere on the site (tactical/battles/actions.py: visible_battles), so a player's
    campaign page cost 232 ms in 200 campaigns against 69 in 1, with the same 28 queries."""
    first = add_campaigns(1, alice, bob, carol)[0]
    url = reverse("campaign-detail", args=[first.pk])
    client.force_login(bob)

    def sql():
        client.get(url)  # warm the per-process caches
        with counted() as seen:
            assert client.get(url).status_code == 200
        return sorted(seen)

    one = sql()
    add_campaigns(9, alice, bob, carol, start=1)
    assert sql() == one


def test_the_press_index_shows_a_page_of_campaigns_at_a_time(client, db, alice, bob, carol):
    """/press/ lists 25 campaigns a page (the newest first) with their unread counts, each page in
    the same queries."""
    from campaign.press.views import INDEX_PAGE

    add_campaigns(14, alice, bob, carol)  # 28 running campaigns: pages of 25 and 3
    client.force_login(bob)
    url = reverse("press-index")
    queries(client, url)
    first, second = client.get(url), client.get(url, {"page": 2})
    assert INDEX_PAGE == 25 and len(first.context["rows"]) == 25 and len(second.context["rows"]) == 3
    listed = [r["campaign"].pk for r in first.context["rows"] + second.context["rows"]]
    assert listed == list(Campaign.objects.order_by("-created_at", "-id").values_list("pk", flat=True))
    assert "Page 2 of 2: 28 campaigns" in second.content.decode()
    assert queries(client, url + "?page=2") == queries(client, url)
