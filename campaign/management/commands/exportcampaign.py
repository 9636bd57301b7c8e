import sys

from django.core.management.base import BaseCommand, CommandError

from campaign import exports

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
        try:  # each layer's record names its export (campaign/layers.py)
            text = exports.as_text(exports.export(campaign))
        except exports.NoExport as exc:
            raise CommandError(str(exc)) from None
        if opts["output"]:
            try:
                with open(opts["output"], "w", encoding="utf-8") as fh:
                    fh.write(text)
            except OSError as exc:
                raise CommandError(f"cannot write {opts['output']}: {exc.strerror}") from None
            self.stderr.write(f"Wrote campaign {campaign.pk} to {opts['output']}")
        else:
            sys.stdout.write(text)
