import json
import sys

from django.core.management.base import BaseCommand, CommandError

from campaign import layers

from ._common import get_campaign


class Command(BaseCommand):
    help = (
        "Write a campaign as JSON (docs/export-format.md) to standard output or --output FILE. "
        "The file holds the secret dice seed: keep it private until the campaign ends."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="Campaign id.")
        parser.add_argument("--output", "-o", help="File to write (default: standard output).")

    def handle(self, *args, **opts):
        campaign = get_campaign(opts["campaign"])
        layer = layers.of(campaign)  # each layer's record names its export (campaign/layers.py)
        if layer.export is None:
            raise CommandError(f"campaign {campaign.pk} is a {layer.title}, which has no export yet")
        text = json.dumps(layer.export(campaign), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        if opts["output"]:
            try:
                with open(opts["output"], "w", encoding="utf-8") as fh:
                    fh.write(text)
            except OSError as exc:
                raise CommandError(f"cannot write {opts['output']}: {exc.strerror}") from None
            self.stderr.write(f"Wrote campaign {campaign.pk} to {opts['output']}")
        else:
            sys.stdout.write(text)
