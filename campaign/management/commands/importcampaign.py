import json

from django.core.management.base import BaseCommand, CommandError

from campaign import actions


class Command(BaseCommand):
    help = (
        "Create a campaign from a file written by exportcampaign (docs/export-format.md) and "
        "print its new id. The whole file is checked first, dice log included; a bad file "
        "changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="The export file ('-' for standard input).")

    def handle(self, *args, **opts):
        try:
            if opts["file"] == "-":
                import sys

                doc = json.load(sys.stdin)
            else:
                with open(opts["file"], encoding="utf-8") as fh:
                    doc = json.load(fh)
        except OSError as exc:
            raise CommandError(f"cannot read {opts['file']}: {exc.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CommandError(f"{opts['file']} is not valid JSON: {exc}") from None
        try:
            campaign = actions.import_campaign(doc)
        except actions.ActionError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(str(campaign.pk))
