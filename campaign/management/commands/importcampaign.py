import sys

from django.core.management.base import BaseCommand, CommandError

from campaign import actions, layers, sanitise


class Command(BaseCommand):
    help = (
        "Create a campaign from a file written by exportcampaign (docs/export-format.md: an Event "
        "Horizon campaign or a CAM rubber, told apart by its campaign.layer) and print its new id. "
        "The whole file is checked first — every number against its column's range and the rules, "
        "numbers unique where they must be, text free of NUL and lone surrogates, the dice log "
        "included; a bad file is refused with the path of the first problem (e.g. "
        "ships[2].damage.hull) and changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="The export file ('-' for standard input).")

    def handle(self, *args, **opts):
        try:
            if opts["file"] == "-":
                text = sys.stdin.read()
            else:
                with open(opts["file"], encoding="utf-8") as fh:
                    text = fh.read()
        except OSError as exc:
            raise CommandError(f"cannot read {opts['file']}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise CommandError(f"{opts['file']} is not UTF-8 text: {exc}") from None
        try:
            # The site's JSON reader (campaign/sanitise.py): no recursion error however deep.
            doc = sanitise.loads(text, "")
        except sanitise.HostileInput as exc:
            where = exc.where if exc.where not in ("", "number") else "the document"
            raise CommandError(f"import refused: {where}: {exc.problem}") from None
        except ValueError as exc:
            raise CommandError(f"{opts['file']} is not valid JSON: {exc}") from None
        layer = _layer_of(doc)
        try:
            campaign = layer.import_campaign(doc)
        except actions.ActionError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(str(campaign.pk))


def _layer_of(doc):
    """The layer whose import reads the document (its ``campaign.layer``; campaign/layers.py)."""
    if not isinstance(doc, dict):
        raise CommandError("import refused: an export file must hold one JSON object")
    header = doc.get("campaign")
    key = header.get("layer") if isinstance(header, dict) else None
    importable = [layer.key for layer in layers.all_layers() if layer.import_campaign]
    if key not in importable:
        raise CommandError(f"import refused: campaign.layer {key!r} is not one of {', '.join(importable)}")
    return layers.get(key)
