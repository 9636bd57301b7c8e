from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaign import actions, versioning
from campaign.eventhorizon import actions as eh_actions
from campaign.models import Campaign, Membership

DEMO_NAME = "Demo Sector"
DEMO_PASSWORD = "sector-demo"
DEMO_USERS = [("moderator", True), ("player1", False), ("player2", False)]
DEMO_TURNS = 3


class Command(BaseCommand):
    help = (
        "Create the demo: users moderator, player1 and player2 (password 'sector-demo'; the "
        "moderator is also a site admin) and a 4-player Event Horizon campaign three turns in "
        "(its set-up round and turns 1-3 played by the computer); seats 3 and 4 stay computer "
        "players. Safe to run again: "
        "an existing demo is left as it is."
    )

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="Where the site will be served.")

    def handle(self, *args, **opts):
        # The demo is built in one transaction; its emails are sent when it commits. Where to log
        # in is printed after that, as the last lines (`make run` starts the server next).
        with transaction.atomic():
            campaign = self._build()
        url = opts["url"].rstrip("/")
        self.stdout.write(
            "\n"
            f"  Sector Command is ready at {url}/\n"
            f"  {self._where_emails_go()}\n"
            f"  The demo campaign: {url}/campaigns/{campaign.pk}/\n"
            f"  Log in at {url}/accounts/login/ as moderator, player1 or player2,\n"
            f"  password '{DEMO_PASSWORD}'. The moderator can also use {url}/admin/.\n"
        )

    @staticmethod
    def _where_emails_go() -> str:
        backend = settings.EMAIL_BACKEND.rsplit(".", 2)[-2]
        if backend == "filebased":
            return f"Emails the site sends are written to {Path(getattr(settings, 'EMAIL_FILE_PATH', '.')).resolve()}/."
        if backend == "console":
            return "Emails the site sends are printed in the server's output."
        return f"Emails the site sends go through {settings.EMAIL_BACKEND}."

    def _build(self) -> Campaign:
        User = get_user_model()
        users = {}
        for username, admin in DEMO_USERS:
            user, created = User.objects.get_or_create(
                username=username, defaults={"email": f"{username}@example.com", "is_staff": admin,
                                             "is_superuser": admin},
            )
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            users[username] = user

        campaign = Campaign.objects.filter(name=DEMO_NAME).first()
        if campaign is None:
            try:
                campaign = eh_actions.create_campaign(
                    name=DEMO_NAME, grid="hex", width=30, height=24, players=4, seed="demo",
                    moderator=users["moderator"],
                    empire_names=["Venetian Star Republic", "Knights of S.T.J.O.N",
                                  "Automann Torque Empire", "Cyber-Corsairs"],
                )
                empires = {e.seat: e for e in campaign.empires.all()}
                empires[1].user = users["player1"]
                empires[2].user = users["player2"]
                empires[1].save(update_fields=["user"])
                empires[2].save(update_fields=["user"])
                # Members as if they had joined in the lobby (the moderator's membership is
                # made by create_campaign).
                for seat, username in ((1, "player1"), (2, "player2")):
                    Membership.objects.create(
                        campaign=campaign, user=users[username], role=Membership.Role.PLAYER,
                        empire=empires[seat], empire_name=empires[seat].name, colour=empires[seat].colour,
                    )
                # The computer plays the set-up round (buying every seat's set-up fleet) and the
                # opening turns for every seat, so the demo starts a few turns in; afterwards
                # seats 3 and 4 stay computer players.
                campaign.empires.update(is_bot=True)
                versioning.bump(campaign.pk)
                for _ in range(DEMO_TURNS + 1):
                    eh_actions.write_bot_orders(campaign_id=campaign.pk)
                    eh_actions.process_turn(campaign_id=campaign.pk)
                campaign.empires.filter(seat__in=[1, 2]).update(is_bot=False)
                versioning.bump(campaign.pk)
            except actions.ActionError as exc:
                raise CommandError(f"could not build the demo campaign: {exc}") from None
            self.stdout.write(f"Created the demo campaign '{DEMO_NAME}' (id {campaign.pk}).")
        else:
            self.stdout.write(f"The demo campaign '{DEMO_NAME}' (id {campaign.pk}) already exists.")
        return campaign
