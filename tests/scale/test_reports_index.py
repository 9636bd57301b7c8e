"""Issue 33 item 3: the reports index lists a campaign's turns from two small columns; it never
reads (and decodes) a turn's events, summary, snapshot or pending JSON, so it does not grow with
the size of the turns."""

from campaign.eventhorizon import actions as eh_actions
from campaign.models import Campaign, Turn
from tests.scale.counting import counted

BIG = ("snapshot", "events", "summary", "pending")


def test_the_reports_index_reads_no_turn_json(client, small_campaign, alice, bob, settings):
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0  # the sweep's own reads are tested in test_sweep_queries.py
    eh_actions.process_turn(campaign_id=small_campaign.pk)  # turn 1 processed: two turns in the list
    assert Turn.objects.filter(campaign=small_campaign, status=Turn.Status.DONE).count() == 2
    for user in (bob, alice):
        client.force_login(user)
        with counted() as captured:
            response = client.get(f"/campaigns/{small_campaign.pk}/reports/")
        assert response.status_code == 200
        assert f"/campaigns/{small_campaign.pk}/reports/1/" in response.content.decode()
        turn_reads = [sql for sql in captured if 'FROM "campaign_turn"' in sql]
        assert turn_reads
        for sql in turn_reads:
            assert not any(f'"campaign_turn"."{column}"' in sql for column in BIG), sql


def test_a_finished_campaign_reads_only_its_last_turn_s_events(client, small_campaign, bob, settings):
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    Campaign.objects.filter(pk=small_campaign.pk).update(status=Campaign.Status.FINISHED)
    client.force_login(bob)
    with counted() as captured:
        assert client.get(f"/campaigns/{small_campaign.pk}/reports/").status_code == 200
    for sql in captured:
        assert '"campaign_turn"."snapshot"' not in sql
