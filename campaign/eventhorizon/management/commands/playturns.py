from django.core.management.base import BaseCommand, CommandError

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.management.commands._common import get_campaign
from campaign.rules.eventhorizon.setup import SETUP_TURN


class Command(BaseCommand):
    help = (
        "Process N turns of a campaign: computer players write their orders, then the turn is "
        "resolved (seats without orders keep their standing orders). A campaign still in its "
        "set-up round closes it first (computer players buy their set-up fleets; a seat without "
        "set-up orders gets the computer's purchase), then plays N turns. Stops early if the "
        "campaign ends."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="Campaign id.")
        parser.add_argument("--turns", type=int, default=1, help="How many turns to process (default 1).")

    def handle(self, *args, **opts):
        campaign = get_campaign(opts["campaign"])
        if opts["turns"] < 1:
            raise CommandError("--turns must be at least 1")
        rounds = opts["turns"] + (1 if campaign.turn == SETUP_TURN else 0)
        for _ in range(rounds):
            try:
                eh_actions.write_bot_orders(campaign_id=campaign.pk)
            except actions.TurnClosed as exc:
                raise CommandError(str(exc)) from None
            turn = eh_actions.process_turn(campaign_id=campaign.pk)
            campaign.refresh_from_db()
            if turn is None:
                raise CommandError(f"turn {campaign.turn} could not be processed")
            if turn.number == SETUP_TURN:
                self.stdout.write("Processed the set-up round.")
                continue
            self.stdout.write(f"Processed turn {turn.number}.")
            if campaign.status == campaign.Status.FINISHED:
                winner = campaign.winner.name if campaign.winner else "nobody"
                self.stdout.write(f"The campaign has ended; winner: {winner}.")
                break
