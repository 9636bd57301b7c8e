from django.core.management.base import BaseCommand

from campaign.eventhorizon import adapters
from campaign.management.commands._common import get_campaign
from campaign.rules.eventhorizon import mapgen


class Command(BaseCommand):
    help = "Print a campaign's map as text: terrain, planets, colonies and home worlds by seat."

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="Campaign id.")

    def handle(self, *args, **opts):
        campaign = get_campaign(opts["campaign"])
        self.stdout.write(f"{campaign.name} — {campaign.width}×{campaign.height} {campaign.grid} map")
        self.stdout.write(mapgen.render_text(adapters.map_state(campaign)))
