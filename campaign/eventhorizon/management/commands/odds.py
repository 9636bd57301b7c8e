import json

from django.core.management.base import BaseCommand, CommandError

from campaign.rules.eventhorizon.autoresolve import Side, odds

JSON_KEYS = ("a_dice", "b_dice", "p_a_wins", "p_b_wins", "expected_a_losses", "expected_b_losses")


class Command(BaseCommand):
    help = (
        "Exact odds of settling a battle with '003 Alternative to a Tactical Battle' (Event Horizon, "
        "Optional Campaign Rules; RULINGS.md 'Auto-resolve odds'): the dice each fleet rolls after "
        "force multipliers, each side's chance of winning and its expected ship losses (not capped "
        "by fleet size). No dice are rolled."
    )

    def add_arguments(self, parser):
        parser.add_argument("--a-bp", type=int, required=True,
                            help="Fleet A's BP total: its ships' BP, hero crews included (whole number, 0 or more).")
        parser.add_argument("--b-bp", type=int, required=True,
                            help="Fleet B's BP total: its ships' BP, hero crews included (whole number, 0 or more).")
        parser.add_argument("--a-cruiser", action="store_true",
                            help="Fleet A contains at least one Star Cruiser (Force Multipliers).")
        parser.add_argument("--a-destroyer", action="store_true",
                            help="Fleet A contains at least one Destroyer (Force Multipliers).")
        parser.add_argument("--b-cruiser", action="store_true",
                            help="Fleet B contains at least one Star Cruiser (Force Multipliers).")
        parser.add_argument("--b-destroyer", action="store_true",
                            help="Fleet B contains at least one Destroyer (Force Multipliers).")
        defences = parser.add_mutually_exclusive_group()
        defences.add_argument("--a-defences", action="store_true",
                              help="Fleet A's player owns planetary defences in the attacked hex (Force Multipliers).")
        defences.add_argument("--b-defences", action="store_true",
                              help="Fleet B's player owns planetary defences in the attacked hex (Force Multipliers).")
        parser.add_argument("--json", action="store_true",
                            help="Print one JSON object with the keys " + ", ".join(JSON_KEYS) + ".")

    def handle(self, *args, **opts):
        # Name the bad option here: the rules module's message cannot know the flag's name.
        for flag, key in (("--a-bp", "a_bp"), ("--b-bp", "b_bp")):
            if opts[key] < 0:
                raise CommandError(f"{flag} must be 0 or more, not {opts[key]} (a BP total cannot be negative)")
        if opts["a_bp"] == 0 and opts["b_bp"] == 0:
            raise CommandError("--a-bp and --b-bp are both 0: at least one fleet needs BP for a battle")
        try:
            result = odds(
                Side(bp=opts["a_bp"], has_star_cruiser=opts["a_cruiser"], has_destroyer=opts["a_destroyer"],
                     has_defences=opts["a_defences"]),
                Side(bp=opts["b_bp"], has_star_cruiser=opts["b_cruiser"], has_destroyer=opts["b_destroyer"],
                     has_defences=opts["b_defences"]),
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None

        if opts["json"]:
            self.stdout.write(json.dumps({key: getattr(result, key) for key in JSON_KEYS}))
            return
        rows = [
            ("", "Fleet A", "Fleet B"),
            ("BP total", str(opts["a_bp"]), str(opts["b_bp"])),
            ("Dice (d6)", str(result.a_dice), str(result.b_dice)),
            ("Chance to win", f"{result.p_a_wins:.4%}", f"{result.p_b_wins:.4%}"),
            ("Expected ships lost", f"{result.expected_a_losses:.4f}", f"{result.expected_b_losses:.4f}"),
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for label, a_text, b_text in rows:
            self.stdout.write(f"{label:<{widths[0]}}  {a_text:>{widths[1]}}  {b_text:>{widths[2]}}")
        if result.p_draw:
            self.stdout.write(f"A full tie (draw, won by the bigger BP total): {float(result.p_draw):.4%}")
        if result.expected_rounds != 1:
            self.stdout.write(
                f"Equal BP totals: full ties are rolled again; expected rounds {float(result.expected_rounds):.4f}"
            )
        self.stdout.write("Expected losses are not capped by fleet size.")
