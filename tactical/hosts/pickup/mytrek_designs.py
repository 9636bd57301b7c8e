"""My Trek V's ship designer form (issue 29 item 5): the fields the "Assembling a Fleet" table
(002) prices. The form reads numbers, a size and four yes/no boxes only; the bounds and every
refusal are the engine's (``tactical.rules.mytrek.fleets.design_from``), each shown at the field it
names, all at once. The page is ``battles/designs/mytrek/`` (tactical/hosts/pickup/views.py
``design_list``, named by ``MyTrekFleets.design_form``)."""

from __future__ import annotations

from django import forms

from tactical.rules.kit import IllegalActionError
from tactical.rules.mytrek import fleets as F
from tactical.rules.mytrek import tables as T

FLAGS = (
    ("aft", "Aft weapons"),
    ("invisibility", "Invisibility device"),
    ("torpedoes", "Torpedoes"),
    ("missiles", "Missiles"),
)


def points_table() -> list[tuple]:
    """The points table's rows as the page shows them: points, size, top speed, force fields, weapons."""
    speeds = [f"Hyper {r[0]}-{r[-1]}" if r != (0,) else "Sub-light" for r in T.SPEED_ROWS]
    return list(
        zip(
            T.ROW_POINTS,
            T.SIZES,
            speeds,
            (T.ROMAN[f] for f in T.FIELD_TYPES),
            (f"{n}d6" for n in T.WEAPON_DICE),
        )
    )


class MyTrekDesignForm(forms.Form):
    name = forms.CharField(label="Class", max_length=40)
    size = forms.ChoiceField(choices=[(s, f"{s} (hull {T.HULL_POINTS[s]})") for s in T.SIZES])
    max_hyper = forms.IntegerField(label="Top speed (Hyper; 0 = sub-light)", initial=5)
    fields = forms.IntegerField(label="Force field type (0 none … 5 = V)", initial=3)
    dice = forms.IntegerField(label="Weapons (d6 at full power)", initial=4)
    aft = forms.BooleanField(label="Aft weapons", required=False)
    invisibility = forms.BooleanField(label="Invisibility device", required=False)
    torpedoes = forms.BooleanField(label="Torpedoes", required=False)
    missiles = forms.BooleanField(label="Missiles", required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("max_hyper", "fields", "dice"):
            self.fields[name].widget.attrs["inputmode"] = "numeric"

    def number_fields(self):
        return [self[n] for n in ("name", "size", "max_hyper", "fields", "dice")]

    def flag_fields(self):
        return [self[n] for n, _ in FLAGS]

    def points_table(self) -> list[tuple]:
        return points_table()

    def specials_table(self) -> list[tuple[str, int]]:
        return [(label, T.SPECIALS[k]) for k, label in FLAGS]

    def design_fields(self) -> dict:
        """The design as the engine reads it (``fleets.design_json``; the API's body)."""
        return {k: self.cleaned_data.get(k) for k in F.DESIGN_FIELDS}

    def clean(self):
        """The engine's design checks, every refusal at its field (all of them at once)."""
        data = super().clean()
        if self.errors:
            return data
        try:
            F.design_from(self.design_fields())
        except IllegalActionError as exc:
            for field, message in (getattr(exc, "problems", None) or {"": exc.message}).items():
                self.add_error(field if field in self.fields else None, f"{message} ({T.FLEET})")
        return data

    def refuse(self, field: str, message: str) -> None:
        """The designer's refusal (``designs.DesignRefused``) at the field it names."""
        self.add_error(field if field in self.fields else None, message)
