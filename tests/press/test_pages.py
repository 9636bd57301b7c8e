"""Press pages: the conversation list with unread counts, composing, a conversation, the
moderator's options, the links from the campaign pages; outsiders get 404."""

import pytest
from django.urls import reverse

from campaign.press import actions
from campaign.press.models import Conversation, PressMessage

pytestmark = pytest.mark.django_db


def page(client, user, name, *args, **kwargs):
    client.force_login(user)
    return client.get(reverse(name, args=args), **kwargs)


def test_outsiders_get_404_everywhere(client, press_campaign, bob, mallory):
    message = actions.post(campaign_id=press_campaign.pk, user=bob, to="all", text="Public words")
    client.force_login(mallory)
    for url in (reverse("press", args=[press_campaign.pk]),
                reverse("press-conversation", args=[press_campaign.pk, message.conversation.public_id])):
        assert client.get(url).status_code == 404
        assert client.post(url, {"to": ["all"], "text": "x"}).status_code == 404
    assert client.post(reverse("press-options", args=[press_campaign.pk]), {"press": ""}).status_code == 404
    assert "Press Sector" not in client.get(reverse("press-index")).content.decode()
    assert PressMessage.objects.count() == 1


def test_compose_to_one_seat_and_read_it(client, press_campaign, bob, carol):
    client.force_login(bob)
    response = client.post(reverse("press", args=[press_campaign.pk]), {"to": ["2"], "text": "Meet at the Rim."})
    message = PressMessage.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "press-conversation", args=[press_campaign.pk, message.conversation.public_id]
    )
    client.force_login(carol)
    listing = client.get(reverse("press", args=[press_campaign.pk])).content.decode()
    assert "Bob&#x27;s Realm (seat 1) and you" in listing and "1 new" in listing
    assert "1 new" in client.get(reverse("campaign-detail", args=[press_campaign.pk])).content.decode()
    assert "1 new" in client.get(reverse("press-index")).content.decode()
    thread = client.get(reverse("press-conversation", args=[press_campaign.pk, message.conversation.public_id]))
    assert "Meet at the Rim." in thread.content.decode()
    assert "new" not in client.get(reverse("press", args=[press_campaign.pk])).content.decode().split(
        'id="conversations"')[1].split("</ul>")[0]
    client.post(
        reverse("press-conversation", args=[press_campaign.pk, message.conversation.public_id]),
        {"text": "Agreed"},
    )
    assert list(PressMessage.objects.order_by("id").values_list("sender_seat", "text")) == [
        (1, "Meet at the Rim."), (2, "Agreed")]


@pytest.mark.parametrize(("post", "error"), [
    ({"to": ["all", "2"], "text": "x"}, "either everyone or some seats"),
    ({"to": ["1"], "text": "x"}, "Select a valid choice"),  # one's own seat is not offered
    ({"to": ["9"], "text": "x"}, "Select a valid choice"),
    ({"text": "x"}, "Choose who to write to"),
    ({"to": ["2"], "text": "   "}, "This field is required"),
    ({"to": ["2"], "text": "x" * 5001}, "at most 5000 characters"),
])
def test_a_bad_compose_is_a_form_error_and_changes_nothing(client, press_campaign, bob, post, error):
    client.force_login(bob)
    response = client.post(reverse("press", args=[press_campaign.pk]), post)
    assert response.status_code == 200 and error in response.content.decode()
    assert not PressMessage.objects.exists()


def test_a_post_over_the_rate_limit_is_a_form_error_and_changes_nothing(client, press_campaign, bob, settings):
    settings.PRESS_RATE_LIMIT = 1
    client.force_login(bob)
    client.post(reverse("press", args=[press_campaign.pk]), {"to": ["2"], "text": "first"})
    response = client.post(reverse("press", args=[press_campaign.pk]), {"to": ["2"], "text": "second"})
    assert response.status_code == 200 and "1 press message in this campaign" in response.content.decode()
    assert list(PressMessage.objects.values_list("text", flat=True)) == ["first"]


def test_the_moderator_announces_and_switches_the_options(client, press_campaign, alice, bob):
    client.force_login(alice)
    page_ = client.get(reverse("press", args=[press_campaign.pk])).content.decode()
    assert 'id="announce"' in page_ and 'id="compose"' not in page_ and 'id="press-options"' in page_
    client.post(reverse("press", args=[press_campaign.pk]), {"announce": "1", "text": "Turn 2 is extended."})
    assert PressMessage.objects.get().announcement
    client.post(reverse("press-options", args=[press_campaign.pk]), {"moderator_reads": "on"})  # press unticked
    press_campaign.refresh_from_db()
    assert press_campaign.options["press"] is False and press_campaign.options["press_moderator_reads"] is True
    client.force_login(bob)
    page_ = client.get(reverse("press", args=[press_campaign.pk])).content.decode()
    assert 'id="press-off"' in page_ and "The moderators can read private press" in page_
    assert 'id="press-options"' not in page_
    assert client.post(reverse("press-options", args=[press_campaign.pk]), {"press": "on"}).status_code == 403


def test_the_observer_reads_public_press_and_cannot_write(client, press_campaign, bob, erin):
    actions.post(campaign_id=press_campaign.pk, user=bob, to="all", text="Hear ye")
    client.force_login(erin)
    page_ = client.get(reverse("press", args=[press_campaign.pk])).content.decode()
    assert "Everyone" in page_ and 'id="compose"' not in page_
    assert client.post(reverse("press", args=[press_campaign.pk]), {"to": ["all"], "text": "hi"}).status_code == 403
    conversation = Conversation.objects.get()
    thread = client.get(
        reverse("press-conversation", args=[press_campaign.pk, conversation.public_id])
    ).content.decode()
    assert "Hear ye" in thread and 'id="reply"' not in thread


def test_the_cam_campaign_page_links_to_press(client, db, alice, bob, carol):
    from tests.cam.conftest import make_cam

    campaign = make_cam(alice, bob, carol, start=False)
    actions.post(campaign_id=campaign.pk, user=carol, to=[1], text="Qapla'")
    client.force_login(bob)
    detail = client.get(reverse("cam-detail", args=[campaign.pk])).content.decode()
    assert reverse("press", args=[campaign.pk]) in detail and "1 new" in detail
    press_page = client.get(reverse("press", args=[campaign.pk])).content.decode()
    assert "Carol&#x27;s Raiders (seat 2) and you" in press_page
    assert f'href="{reverse("cam-detail", args=[campaign.pk])}"' in press_page  # back to the layer's own page
