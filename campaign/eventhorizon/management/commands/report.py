import json

from django.core.management.base import BaseCommand, CommandError

from campaign.eventhorizon.reports import ReportError, turn_report
from campaign.management.commands._common import get_campaign
from campaign.models import Membership
from campaign.rules.eventhorizon.report import render_text
from campaign.sanitise import whole_number


def _moderator(campaign):
    """Who reads the full report: the campaign's moderator, or, when it has none (its account was
    deleted), its first co-moderator. Any moderator may open every battle page of the campaign
    (``tactical.battles.actions.visible_battles``), so the links are the same whichever reads;
    None (no links) when nobody moderates."""
    if campaign.moderator is not None:
        return campaign.moderator
    first = (campaign.memberships.filter(role=Membership.Role.MODERATOR).select_related("user")
             .order_by("joined_at", "pk").first())
    return first.user if first is not None else None


class Command(BaseCommand):
    help = (
        "Print a player's report of a processed turn: income (interdicted worlds named), "
        "purchases, movements, neutral world rolls, battles with their dice, changes of "
        "ownership and victory status. Without --player, the moderator's full report. As the turn "
        "report email's text: each battle the reader may open (ruling BR5) is followed by "
        "'battle page: <address>', built from SITE_URL; the reader is the player's account with "
        "--player (a computer seat's report links none), the campaign's moderator without it (when it "
        "has none, its first co-moderator: every moderator may open every battle page)."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="Campaign id.")
        parser.add_argument("turn", type=int, help="Turn number (a processed turn).")
        parser.add_argument("--player", help="Seat number or the player's username.")
        parser.add_argument("--json", action="store_true", help="Print the structured report as JSON.")

    def handle(self, *args, **opts):
        campaign = get_campaign(opts["campaign"])
        # Whose report, and who reads it: links go only to the battle pages the reader may open,
        # as in the emails (ruling BR5, fog of war FW4). The full report is the moderators'.
        seat, reader = None, _moderator(campaign)
        if opts["player"] is not None:
            player = opts["player"]
            number = whole_number(player)
            empire = (campaign.empires.filter(seat=number).first() if number is not None
                      else campaign.empires.filter(user__username=player).first())
            if empire is None:
                raise CommandError(f"campaign {campaign.pk} has no player '{player}' (give a seat number or username)")
            seat, reader = empire.seat, empire.user
        try:
            report = turn_report(campaign, opts["turn"], seat, reader=reader, absolute=True)
        except ReportError as exc:
            raise CommandError(str(exc)) from None
        if opts["json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=1))
        else:
            self.stdout.write(render_text(report))
