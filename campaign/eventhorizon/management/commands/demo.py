from django.core.management.base import BaseCommand, CommandError

from campaign import actions, versioning
from campaign.eventhorizon import actions as eh_actions
from campaign.management.commands._common import parse_size
from campaign.models import Turn


class Command(BaseCommand):
    help = (
        "Play a whole campaign between computer players and print one line per turn (turn, and "
        "per player BP, worlds, ships and battles; turn 0 is the set-up round, where each buys "
        "its set-up fleet) and the winner. The same seed gives the same campaign."
    )

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=4, help="Computer players, 2 to 8 (default 4).")
        parser.add_argument("--size", default="40x40", help="Map WIDTHxHEIGHT (default 40x40).")
        parser.add_argument("--grid", choices=["hex", "square"], default="hex", help="Map cells (default hex).")
        parser.add_argument("--turns", type=int, default=60, help="At most this many turns (default 60).")
        parser.add_argument("--seed", default="1", help="Seed text for the campaign's dice (default 1).")

    def handle(self, *args, **opts):
        width, height = parse_size(opts["size"])
        if opts["turns"] < 1:
            raise CommandError("--turns must be at least 1")
        try:
            campaign = eh_actions.create_campaign(
                name=f"Demo {opts['players']}p seed {opts['seed']}", grid=opts["grid"], width=width,
                height=height, players=opts["players"], seed=opts["seed"],
            )
        except actions.ActionError as exc:
            raise CommandError(str(exc)) from None
        campaign.empires.update(is_bot=True)
        versioning.bump(campaign.pk)
        from campaign.rules.eventhorizon.victory import PURPOSES

        self.stdout.write(f"Campaign {campaign.pk}: {width}x{height} {opts['grid']}, {opts['players']} players, "
                          f"purpose {campaign.purpose} ({PURPOSES[campaign.purpose].name})")
        self.stdout.write(
            "turn | " + " | ".join(f"P{s} bp/worlds/ships/battles" for s in range(1, opts["players"] + 1))
        )
        # The set-up round (turn 0: every seat buys its set-up fleet), then the turns.
        for _ in range(opts["turns"] + 1):
            eh_actions.write_bot_orders(campaign_id=campaign.pk)
            eh_actions.process_turn(campaign_id=campaign.pk)
            campaign.refresh_from_db()
            turn = Turn.objects.filter(campaign=campaign, status=Turn.Status.DONE).order_by("-number").first()
            cells = []
            for seat in range(1, opts["players"] + 1):
                row = turn.summary.get(str(seat), {})
                cells.append("out" if row.get("eliminated") else
                             f"{row.get('bp', 0)}/{row.get('worlds', 0)}/{row.get('ships', 0)}/{row.get('battles', 0)}")
            self.stdout.write(f"{turn.number:>4} | " + " | ".join(f"{c:>22}" for c in cells))
            if campaign.status == campaign.Status.FINISHED:
                break
        if campaign.winner:
            self.stdout.write(f"Winner: {campaign.winner.name} (seat {campaign.winner.seat}) on turn {turn.number}.")
        else:
            self.stdout.write(f"No winner after {turn.number} turns.")
