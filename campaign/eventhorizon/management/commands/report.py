import json

from django.core.management.base import BaseCommand, CommandError

from campaign.eventhorizon.reports import ReportError, turn_report
from campaign.management.commands._common import get_campaign
from campaign.rules.eventhorizon.report import render_text


class Command(BaseCommand):
    help = (
        "Print a player's report of a processed turn: income (interdicted worlds named), "
        "purchases, movements, neutral world rolls, battles with their dice, changes of "
        "ownership and victory status. Without --player, the moderator's full report."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="Campaign id.")
        parser.add_argument("turn", type=int, help="Turn number (a processed turn).")
        parser.add_argument("--player", help="Seat number or the player's username.")
        parser.add_argument("--json", action="store_true", help="Print the structured report as JSON.")

    def handle(self, *args, **opts):
        campaign = get_campaign(opts["campaign"])
        seat = None
        if opts["player"] is not None:
            player = opts["player"]
            empire = (campaign.empires.filter(seat=int(player)).first() if player.isdigit()
                      else campaign.empires.filter(user__username=player).first())
            if empire is None:
                raise CommandError(f"campaign {campaign.pk} has no player '{player}' (give a seat number or username)")
            seat = empire.seat
        try:
            report = turn_report(campaign, opts["turn"], seat)
        except ReportError as exc:
            raise CommandError(str(exc)) from None
        if opts["json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=1))
        else:
            self.stdout.write(render_text(report))
