"""The site side of the real-servers test (tests/mail/test_real_servers.py), run as the site's
user with the site's environment file, like every other process of the deployed site:

    python tests/mail/realsite.py setup   migrate; a campaign at turn 1 (bob seat 1, carol seat 2, dave
                                          seat 3), bob's order secret, a private press message
                                          from bob to carol; prints JSON
    python tests/mail/realsite.py state   the mail store and bob's orders, as JSON

Every email the site sends on the way (turn reports, the press email) goes through the real
Postfix the environment names, to the players' real mailboxes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PLAYERS = {"alice": "alice@players.test", "bob": "bob@players.test", "carol": "carol@players.test",
           # dave's address is at a domain the test's Postfix cannot reach: mail to him bounces
           "dave": "dave@elsewhere.test"}


def setup() -> dict:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from campaign.eventhorizon import actions as eh_actions
    from campaign.eventhorizon.actions.textorders import rotate_order_secret
    from campaign.press import actions as press
    from tests.eventhorizon.setup_round import finish_setup

    call_command("migrate", "--noinput", verbosity=0)
    users = {name: get_user_model().objects.create_user(name, address, f"pw-{name}")
             for name, address in PLAYERS.items()}
    campaign = eh_actions.create_campaign(name="Mail Sector", grid="hex", width=12, height=12, players=3,
                                       seed="mail-1", moderator=users["alice"])
    for seat, name in ((1, "bob"), (2, "carol"), (3, "dave")):
        campaign.empires.filter(seat=seat).update(user=users[name], name=f"{name.title()}'s Realm")
    campaign = finish_setup(campaign)
    bob_empire = campaign.empires.get(seat=1)
    secret = rotate_order_secret(empire_id=bob_empire.pk, user=users["bob"])
    press.post(campaign_id=campaign.pk, user=users["bob"], to=[2], text="Shall we split the Rim?")
    return {"campaign": campaign.pk, "turn": campaign.turn, "seat": 1, "secret": secret}


def state() -> dict:
    from campaign.mail.models import InboundMessage
    from campaign.models import Campaign, TurnOrders
    from campaign.press.models import PressMessage

    campaign = Campaign.objects.get()
    return {
        "messages": list(InboundMessage.objects.order_by("pk").values(
            "message_id", "via", "status", "route", "outcome", "reply_to", "recipients", "received_at")),
        "orders_revision": max(TurnOrders.objects.filter(
            empire__campaign=campaign, empire__seat=1, turn__number=campaign.turn).values_list("revision", flat=True),
                               default=0),
        "press": list(PressMessage.objects.order_by("pk").values_list("text", flat=True)),
    }


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    print(json.dumps({"setup": setup, "state": state}[sys.argv[1]](), default=str))
