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
    sides = forms.TypedChoiceField(
        label="Sides",
        coerce=int,
        initial=2,
        required=False,
        empty_value=2,
        choices=[(n, str(n)) for n in range(2, actions.MAX_SIDES + 1)],
        help_text="More than two: Buoyz 'N Da 'Hood only (000 3.0), every side against every other.",
    )
    others = forms.ChoiceField(label="The third side on", choices=OTHER_CHOICES, widget=forms.RadioSelect,
                               initial="link", required=False,
                               help_text="With more than two sides: who takes the seats after your opponent's.")
    activation_hours = forms.IntegerField(
        label="Hours for each decision",
        min_value=0,
        max_value=actions.MAX_ACTIVATION_HOURS,
        initial=24,
        help_text="After it the computer plays the late side's decision (0: no deadline).",
    )

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
                label=o.name,
                min_value=0,
                max_value=max_ships,
                initial=0,
                required=False,
                widget=forms.NumberInput(
                    attrs={"inputmode": "numeric", "data-points": o.points, "class": "ship-count"}
                ),
            )

    def rows(self):
        return [(o, self[fleet_field(o.key)]) for o in self.offers]

    def ships(self) -> list[str]:
        out = []
        for o in self.offers:
            out += [o.key] * (self.cleaned_data.get(fleet_field(o.key)) or 0)
        return out


class DesignForm(forms.Form):
    """The dashboard designer (Print&Play, issue 30): every field of the printed dashboard and up to
    ``WEAPON_ROWS`` weapon lines (a line with no name is left out). The form only reads numbers and
    choices; the bounds, the price and every refusal are the rule book's designer's
    (``FleetBook.design``), each shown at the field it names."""

    WEAPON_ROWS = 4

    name = forms.CharField(label="Class", max_length=40)
    faction = forms.ChoiceField()
    type = forms.ChoiceField(label="Type")
    shields_fore = forms.IntegerField(label="Fore")
    shields_aft = forms.IntegerField(label="Aft")
    shields_port = forms.IntegerField(label="Port")
    shields_starboard = forms.IntegerField(label="Starboard")
    shield_max = forms.IntegerField(label="Boosted max")
    hull = forms.IntegerField()
    impulse = forms.IntegerField(label="Impulse (inches)")
    sensors = forms.IntegerField(initial=0)
    wps = forms.IntegerField(label="WPS", initial=0)
    ecm = forms.IntegerField(label="ECM", initial=0)
    ablative = forms.IntegerField(initial=0)
    emergency = forms.IntegerField(label="Emergency power", initial=0)
    abilities = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, **kwargs):
        from tactical.rules.printplay import dashboards as dash

        super().__init__(*args, **kwargs)
        self.fields["faction"].choices = [(f, f) for f in dash.FACTIONS]
        self.fields["type"].choices = [(t, t) for t in dash.TYPES]
        self.fields["abilities"].choices = [(a, a) for a in dash.ABILITIES]
        for i in range(self.WEAPON_ROWS):
            self.fields[f"w{i}_name"] = forms.CharField(label="Weapon", max_length=40, required=False)
            self.fields[f"w{i}_mount"] = forms.ChoiceField(label="Mount", choices=[(m, m) for m in dash.MOUNTS],
                                                            required=False)
            self.fields[f"w{i}_kind"] = forms.ChoiceField(label="Kind", choices=[(k, k) for k in dash.KINDS],
                                                           required=False)
            for part, label, initial in (("qty", "Qty", 1), ("hit", "Hit +", 3), ("dmg", "Dmg", 2),
                                         ("range", "Range", 12), ("minus_shields", "−N vs shields", 0),
                                         ("burst", "Burst", 1)):
                self.fields[f"w{i}_{part}"] = forms.IntegerField(label=label, initial=initial, required=False)
            self.fields[f"w{i}_arc"] = forms.TypedChoiceField(label="Arc", coerce=int, initial=90, required=False,
                                                              choices=[(a, f"{a}°") for a in dash.WIDTHS])

    def ship_fields(self):
        return [self[n] for n in ("name", "faction", "type", "hull", "impulse", "sensors", "wps", "ecm", "ablative",
                                  "emergency")]

    def shield_fields(self):
        return [self[n] for n in ("shields_fore", "shields_aft", "shields_port", "shields_starboard", "shield_max")]

    def weapon_rows(self):
        return [[self[f"w{i}_{p}"] for p in ("name", "mount", "kind", "qty", "hit", "dmg", "range", "arc",
                                             "minus_shields", "burst")] for i in range(self.WEAPON_ROWS)]

    def design_fields(self) -> dict:
        """The design as the rule book's designer reads it (the API's body)."""
        c = self.cleaned_data
        weapons = []
        for i in range(self.WEAPON_ROWS):
            if not (c.get(f"w{i}_name") or "").strip():
                continue
            line = {p: c.get(f"w{i}_{p}") for p in ("name", "mount", "kind", "qty", "hit", "dmg", "range", "arc",
                                                    "minus_shields", "burst")}
            weapons.append({k: (0 if v is None and k == "minus_shields" else v) for k, v in line.items()})
        return {"name": c["name"], "faction": c["faction"], "type": c["type"],
                "shields": [c["shields_fore"], c["shields_aft"], c["shields_port"], c["shields_starboard"]],
                "shield_max": c["shield_max"], "hull": c["hull"], "impulse": c["impulse"], "sensors": c["sensors"],
                "wps": c["wps"], "ecm": c["ecm"], "ablative": c["ablative"], "emergency": c["emergency"],
                "abilities": list(c.get("abilities") or []), "weapons": weapons}

    def refuse(self, field: str, message: str) -> None:
        """Show the designer's refusal at the field it names ("shields.port" → shields_port,
        "weapons.1.hit" → w1_hit; the whole form otherwise)."""
        parts = field.split(".") if field else []
        name = None
        if parts and parts[0] == "weapons" and len(parts) >= 2 and parts[1].isdigit():
            rows = [i for i in range(self.WEAPON_ROWS) if (self.cleaned_data.get(f"w{i}_name") or "").strip()]
            row = rows[int(parts[1])] if int(parts[1]) < len(rows) else None
            if row is not None:
                name = f"w{row}_{parts[2]}" if len(parts) > 2 else f"w{row}_name"
        elif parts:
            name = "_".join(parts)
        self.add_error(name if name in self.fields else None, message)
