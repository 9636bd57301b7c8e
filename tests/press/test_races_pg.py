"""Press races on PostgreSQL, with real threads each on its own connection: players writing to
the same new conversation at once make one conversation; the same mailed reply processed by
several workers at once posts once. Skipped on SQLite (it serialises every write), required in
the PostgreSQL pass (REQUIRE_SERVICES=1)."""

from datetime import UTC, datetime

import pytest
from django.db import connection

from campaign.press import actions, replies
from campaign.press.models import Conversation, PressMessage
from tests.conftest import REQUIRE_SERVICES
from tests.eventhorizon.test_concurrency_pg import in_threads

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        if REQUIRE_SERVICES:
            pytest.fail(f"REQUIRE_SERVICES=1 but the database is {connection.vendor}: set DATABASE_URL=postgres://…")
        pytest.skip("needs PostgreSQL (row locks between real connections); SQLite serialises all writes")


def test_writing_to_a_new_conversation_at_once_makes_one(press_campaign, bob, carol, dave):
    writers = [(bob, [2, 3]), (carol, [1, 3]), (dave, [1, 2])] * 3
    results = in_threads([lambda u=u, to=to: actions.post(campaign_id=press_campaign.pk, user=u, to=to, text="now")
                          for u, to in writers])
    assert [kind for kind, _ in results] == ["ok"] * len(writers), results
    assert Conversation.objects.filter(key="1,2,3").count() == 1
    assert PressMessage.objects.filter(conversation__key="1,2,3").count() == len(writers)


def test_one_mailed_reply_processed_by_several_workers_posts_once(press_campaign, bob, carol):
    first = actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="Rim?")
    address = replies.reply_address(first.conversation.public_id, 2)
    at = datetime(2026, 11, 25, 12, tzinfo=UTC)
    results = in_threads([lambda: actions.receive_mail_reply(to_address=address, sender_email=carol.email,
                                                             text="Yes.", received_at=at)] * 5)
    assert all(kind == "ok" and value.ok for kind, value in results), results
    assert len({value.message.pk for _, value in results}) == 1
    assert PressMessage.objects.filter(via="mail").count() == 1
