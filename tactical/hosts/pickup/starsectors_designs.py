"""Star Sectors' card designer form (issue 28 item 1): the fields a ship profile card prints (004
II). The form reads text, whole numbers, a targeting diagram and the advanced weapon banks only;
the bounds, the price (III) and every refusal are the engine's (``tactical.rules.starsectors.cards.
design_from``), each shown at the field it names with its section, all at once. The page is
``battles/designs/starsectors/`` (tactical/hosts/pickup/views.py ``design_list``, named by
``StarSectorsFleets.design_form``)."""

from __future__ import annotations

from django import forms

from tactical.rules.starsectors import cards as C

ARC_LABELS = {"none": "none (no combat factor)", "all": "all round (360°)", "front": "front (three bow hex sides)",
              "bow": "bow (the bow hex side)"}
NUMBERS = ("cf", "df", "mf", "ss", "cargo", "nacelles", "cloaks", "hull")


class StarSectorsCardForm(forms.Form):
    name = forms.CharField(label="Class", max_length=C.MAX_NAME)
    power = forms.CharField(label="Power", max_length=C.MAX_POWER, required=False)
    cf = forms.IntegerField(label="CF (combat)", initial=4)
    df = forms.IntegerField(label="DF (defence)", initial=6)
    mf = forms.IntegerField(label="MF (movement)", initial=3)
    ss = forms.IntegerField(label="SS (shields)", initial=6)
    cargo = forms.IntegerField(label="Cargo", initial=1)
    nacelles = forms.IntegerField(label="Nacelles", initial=2)
    cloaks = forms.IntegerField(label="Cloaking devices", initial=0)
    hull = forms.IntegerField(label="Hull (hexes)", initial=1)
    arc = forms.ChoiceField(label="Targeting diagram", choices=[(k, ARC_LABELS[k]) for k in C.ARCS], initial="front")
    banks = forms.MultipleChoiceField(label="Advanced weapon banks", required=False,
                                      choices=[(k, f"{k} {v}") for k, v in C.WEAPONS.items()],
                                      widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in NUMBERS:
            self.fields[name].widget.attrs["inputmode"] = "numeric"

    def card_fields(self):
        return [self["name"], self["power"]]

    def factor_fields(self):
        return [self[n] for n in ("cf", "df", "mf", "ss", "cargo")]

    def engine_fields(self):
        return [self[n] for n in ("nacelles", "cloaks", "hull", "arc")]

    def house_roster(self) -> list[C.Card]:
        return sorted(C.ROSTER.values(), key=lambda c: (c.points, c.key))

    def design_fields(self) -> dict:
        """The card as the engine reads it (``cards.DESIGN_FIELDS``; the API's body)."""
        data = {k: self.cleaned_data.get(k) for k in C.DESIGN_FIELDS}
        data["power"] = data["power"] or ""
        data["banks"] = list(data["banks"] or [])
        return data

    def clean(self):
        """The engine's card checks, every refusal at its field with its section (all at once)."""
        data = super().clean()
        if self.errors:
            return data
        try:
            C.design_from(self.design_fields())
        except C.CardError as exc:
            for field, (rule, message) in exc.problems.items():
                self.add_error(field if field in self.fields else None, f"{message} ({rule})")
        return data

    def refuse(self, field: str, message: str) -> None:
        """The designer's refusal (``designs.DesignRefused``) at the field it names."""
        self.add_error(field if field in self.fields else None, message)
