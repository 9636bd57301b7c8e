from django.core.management.base import BaseCommand, CommandError

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.management.commands._common import parse_size


class Command(BaseCommand):
    help = (
        "Create an Event Horizon campaign: roll its map ('003 Creating a Map'), place home "
        "worlds and give each player 240 BP and a home dockyard ('003 Set Up'). The campaign "
        "opens in its set-up round (turn 0, no deadline), where each empire spends its 240 BP; "
        "seats without set-up orders get the computer's set-up fleet when it closes (playturns "
        "or processdue). Prints the new campaign's id."
    )

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="Campaign name.")
        parser.add_argument("--grid", choices=["hex", "square"], default="hex",
                            help="Map cells: hexes or squares (default hex).")
        parser.add_argument("--size", default="40x40", help="WIDTHxHEIGHT, each 1 to 250 (default 40x40).")
        parser.add_argument("--players", type=int, default=2, help="Number of players, 2 to 8 (default 2).")
        parser.add_argument(
            "--seed", default=None,
            help="Make the campaign's dice reproducible from this text. Without it the seed is "
                 "256 random bits. Anyone who knows the text can predict every roll.",
        )
        parser.add_argument("--no-economy-types", action="store_true",
                            help="Do not roll a Planetary Economy Type for planets (rule option).")
        parser.add_argument("--steered-drift", action="store_true",
                            help="A fleet drifting in a particle cloud is steered by the nearest opponent's "
                                 "standing drift order, not at random (rule option, docs/rulings.md P2).")

    def handle(self, *args, **opts):
        width, height = parse_size(opts["size"])
        try:
            campaign = eh_actions.create_campaign(
                name=opts["name"], grid=opts["grid"], width=width, height=height,
                players=opts["players"], seed=opts["seed"],
                options={"economy_types": not opts["no_economy_types"], "steered_drift": opts["steered_drift"]},
            )
        except actions.ActionError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(str(campaign.pk))
