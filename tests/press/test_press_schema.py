"""Press answers as the schema declares them (tests/openapi_check.py): a message written is 201,
one over PRESS_RATE_LIMIT is 429 naming the limit — by a new message and by a reply alike."""

from __future__ import annotations

import pytest

from tests.openapi_check import api, sent

pytestmark = pytest.mark.django_db


def test_press_over_the_rate_limit_answers_the_429_it_declares(press_campaign, bob, settings):
    settings.PRESS_RATE_LIMIT, settings.PRESS_RATE_WINDOW = 1, 3600
    press = f"/api/campaigns/{press_campaign.pk}/press/"
    message = sent(api(bob).post(press, {"to": [2], "text": "one"}, format="json"), "post", press, 201)
    refusal = sent(api(bob).post(press, {"to": "all", "text": "two"}, format="json"), "post", press, 429)
    assert "1 press message" in refusal["detail"]
    reply = f"{press}{message['conversation']}/"
    refusal = sent(api(bob).post(reply, {"text": "two"}, format="json"), "post", reply, 429)
    assert "1 press message" in refusal["detail"]
