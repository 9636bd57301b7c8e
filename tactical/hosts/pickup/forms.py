"""Forms of pickup battles: the new battle (rule book, points, opponent) and the fleet (a count
per ship the player may buy). Rule books are those ``books.available()`` lists, never a fixed list."""

from __future__ import annotations

from django import forms

from . import actions
from .books import available

OPPONENT_CHOICES = [("computer", "The computer (its doctrine builds a fleet and plays it)"),
                    ("email", "A player I invite by email"),
                    ("link", "A player I send a link to")]

OTHER_CHOICES = [("link", "Players who accept the invitation link (first come, next free seat)"),
                 ("computer", "The computer")]


class NewPickupForm(forms.Form):
    ruleset = forms.ChoiceField(label="Rule book")
    points = forms.IntegerField(label="Points a side", min_value=1, max_value=100_000)
    opponent = forms.ChoiceField(choices=OPPONENT_CHOICES, widget=forms.RadioSelect, initial="computer")
    email = forms.EmailField(label="Opponent's email", required=False,
                             help_text="Only for an invitation by email.")
    sides = forms.TypedChoiceField(label="Sides", coerce=int, initial=2, required=False, empty_value=2,
                                   choices=[(n, str(n)) for n in range(2, actions.MAX_SIDES + 1)],
                                   help_text="More than two: Buoyz 'N Da 'Hood only (000 3.0), every side against every other.")
    others = forms.ChoiceField(label="The third side on", choices=OTHER_CHOICES, widget=forms.RadioSelect,
                               initial="link", required=False,
                               help_text="With more than two sides: who takes the seats after your opponent's.")
    activation_hours = forms.IntegerField(label="Hours for each decision", min_value=0,
                                          max_value=actions.MAX_ACTIVATION_HOURS, initial=24,
                                          help_text="After it the computer plays the late side's decision (0: no deadline).")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        books = available()
        self.fields["ruleset"].choices = [(name, f"{title} ({b.min_points}–{b.max_points} {b.unit})")
                                          for name, title, b in books]
        if books:
            self.fields["ruleset"].initial = books[0][0]
            self.fields["points"].initial = books[0][2].default_points

    def clean(self):
        data = super().clean()
        if data.get("opponent") == "email" and not data.get("email"):
            self.add_error("email", "Give the address to invite, or choose another opponent.")
        return data


def fleet_field(offer_key: str) -> str:
    return f"ship_{offer_key}"


class FleetForm(forms.Form):
    """One count per ship the player may buy; ``ships()`` is the fleet as a list of keys."""

    def __init__(self, *args, offers=(), max_ships: int = 12, **kwargs):
        super().__init__(*args, **kwargs)
        self.offers = list(offers)
        for o in self.offers:
            self.fields[fleet_field(o.key)] = forms.IntegerField(
                label=o.name, min_value=0, max_value=max_ships, initial=0, required=False,
                widget=forms.NumberInput(attrs={"inputmode": "numeric", "data-points": o.points, "class": "ship-count"}))

    def rows(self):
        return [(o, self[fleet_field(o.key)]) for o in self.offers]

    def ships(self) -> list[str]:
        out = []
        for o in self.offers:
            out += [o.key] * (self.cleaned_data.get(fleet_field(o.key)) or 0)
        return out
