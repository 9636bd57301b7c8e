"""Forms of the battle pages (issue 5, "Tabletop result entry").

``ResultForm`` is the ship-by-ship entry of a tabletop battle's outcome: per ship a fate and the
damage it carries after the battle (pre-filled with the damage it carried in), and who holds the
field. It only reads the form; whether the result fits the battle (every ship once, damage within
the design, a holder with a ship left…) is checked by the action (tactical/battles/actions.py) against the
campaign, and its message is shown as the form's error.
"""

from __future__ import annotations

from django import forms

from campaign.rules.eventhorizon.conflict import CAPTURED, DESTROYED, FATE_LABELS, FATES
from campaign.rules.eventhorizon.designs import WEAPONS
from campaign.rules.eventhorizon.economy import FORCE_FIELD_ARCS
from tactical.models import Battle

HOLDER_CHOICES = [("", "— choose —"), ("attacker", "The attacker"), ("defender", "The defender"),
                  ("neither", "Neither side (the invasion failed, nobody holds the hex)")]


def _int(value, default=0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def side_rows(battle: Battle) -> list[dict]:
    """The two sides as the pages show them: attacker first, each ship with its design and the
    damage it carried into the battle (from the battle's setup)."""
    setup = battle.layer_setup  # the campaign's ships, whichever rule book fights the battle (issue 31)
    if not any((side or {}).get("ships") for side in (setup.get("sides") or {}).values()):
        setup = battle.setup  # a CAM scenario's units converted (issue 31): the book's own ships
    rows = []
    for role, seat in (("attacker", battle.attacker), ("defender", battle.defender)):
        side = (setup.get("sides") or {}).get(str(seat)) or {}
        ships = []
        for ship in side.get("ships") or []:
            if not isinstance(ship, dict):  # My Trek V's pickup setup lists its ships by design name
                ship = {"name": str(ship)}
            design = ship.get("design") or {}
            damage = ship.get("damage") or {}
            fitted = design.get("weapons") or {}
            weapons = [{"key": k, "label": WEAPONS[k].label if k in WEAPONS else k, "count": n,
                        "lost": list(damage.get("weapons") or []).count(k)} for k, n in fitted.items()]
            ships.append({
                "id": ship.get("id"), "name": ship.get("name") or f"Ship {ship.get('id')}",
                "design_name": design.get("name", "?"),
                "ship_type": str(design.get("ship_type", "")).replace("_", " "),
                "hull": design.get("hull", 0), "engine": design.get("engine", 0),
                "force_field": design.get("force_field"), "stealth_field": bool(design.get("stealth_field")),
                "boarding_parties": design.get("boarding_parties", 0), "weapons": weapons,
                "hero_crew": bool(ship.get("hero_crew")), "damage": damage,
                "damage_text": damage_text(damage),
            })
        rows.append({"role": role, "seat": seat, "name": side.get("name") or f"Empire {seat}",
                     "colour": side.get("colour") or "#888888", "ships": ships})
    return rows


def damage_text(damage: dict | None) -> str:
    """'none', or e.g. '2 hull, 1 engine, Laser Bank ×2, stealth field'."""
    if not damage:
        return "none"
    if not isinstance(damage, dict):  # a book that counts damage as a number (Star Sectors' result)
        return f"{damage} damage" if _int(damage) else str(damage)
    parts = []
    if _int(damage.get("hull")):
        parts.append(f"{damage['hull']} hull")
    if _int(damage.get("engine")):
        parts.append(f"{damage['engine']} engine")
    weapons = list(damage.get("weapons") or [])
    for key in dict.fromkeys(weapons):
        label = WEAPONS[key].label if key in WEAPONS else key
        n = weapons.count(key)
        parts.append(label + (f" ×{n}" if n > 1 else ""))
    if _int(damage.get("force_field_generators")):
        parts.append(f"{damage['force_field_generators']} force field generator(s)")
    if damage.get("stealth"):
        parts.append("stealth field")
    if _int(damage.get("boarding_parties")):
        parts.append(f"{damage['boarding_parties']} boarding part{'y' if damage['boarding_parties'] == 1 else 'ies'}")
    return ", ".join(parts) or "none"


def result_rows(battle: Battle, result: dict | None) -> list[dict]:
    """A result (proposal or settled) as table rows: ship, side, fate, damage after, captor."""
    if not result:
        return []
    owner = {}
    names = {}
    carried = {}
    for side in side_rows(battle):
        for ship in side["ships"]:
            owner[ship["id"]] = side
            names[ship["id"]] = f"{ship['name']} ({ship['design_name']})"
            carried[ship["id"]] = ship["damage"]
    rows = []
    for r in result.get("ships") or []:
        side = owner.get(r.get("ship"))
        captor = r.get("captured_by")
        rows.append(
            {
                "ship": r.get("ship"),
                "name": names.get(r.get("ship"), f"Ship {r.get('ship')}"),
                "side": side["name"] if side else "?",
                "colour": side["colour"] if side else "#888",
                "fate": FATE_LABELS.get(r.get("fate"), r.get("fate")),
                "damage": "—" if r.get("fate") == DESTROYED else damage_text(r.get("damage")),
                "taken": "—"
                if r.get("fate") == DESTROYED
                else _taken(carried.get(r.get("ship")), r.get("damage")),
                "captor": "" if captor is None else seat_name(battle, captor),
            }
        )
    return rows


def _taken(before: dict | None, after: dict | None) -> str:
    """The damage a ship took in the battle (what it carries after, less what it carried in)."""
    from campaign.rules.eventhorizon.conflict import damage_taken
    from campaign.rules.eventhorizon.economy import Damage

    if not isinstance(before or {}, dict) or not isinstance(after or {}, dict):
        return damage_text(after)  # another book's damage (a number): all of it taken in this battle
    try:
        taken = damage_taken(Damage.from_json(before or {}), Damage.from_json(after or {}))
    except TypeError:
        return "?"
    return damage_text(taken.to_json())


def seat_name(battle: Battle, seat) -> str:
    side = ((battle.setup or {}).get("sides") or {}).get(str(seat)) or {}
    return side.get("name") or f"Empire {seat}"


def settled_text(battle: Battle) -> str:
    """How a resolved battle was settled, as the turn report says it: 'fought on the tabletop,
    settled by the moderator', 'auto-resolved at the battle deadline', 'fought online on My Trek
    V' (ruling BR5)… ('' while open)."""
    from campaign.rules.eventhorizon.conflict import settled_text as text
    from tactical.hosts.eventhorizon.lifecycle import fought_on, settled_key

    if not battle.resolved:
        return ""
    return text(settled_key(battle, battle.resolved_how, battle.result is not None), fought_on(battle))


def holder_text(battle: Battle, result: dict | None) -> str:
    if not result:
        return ""
    holder = result.get("holder")
    return "Neither side" if holder is None else seat_name(battle, holder)


class ResultForm(forms.Form):
    """Ship-by-ship entry of a battle's outcome (the result JSON of docs/battles.md, "Result")."""

    holder = forms.ChoiceField(choices=HOLDER_CHOICES, label="Who holds the field",
                               help_text="The side left in control of the hex; it must still have a ship there.")

    def __init__(self, battle: Battle, *args, **kwargs):
        self.battle = battle
        self.sides = side_rows(battle)
        initial = kwargs.pop("initial", None) or {}
        for side in self.sides:
            for ship in side["ships"]:
                initial.update(self.initial_for(ship))
        super().__init__(*args, initial=initial, **kwargs)
        self.fields["holder"].choices = [
            ("", "— choose —"),
            ("attacker", f"{side_label(self.sides[0])} (attacker)"),
            ("defender", f"{side_label(self.sides[1])} (defender)"),
            ("neither", "Neither side (nobody holds the hex)"),
        ]
        fate_choices = [(f, FATE_LABELS[f].capitalize()) for f in FATES]
        self.ship_groups = []
        for side in self.sides:
            for ship in side["ships"]:
                p = f"ship_{ship['id']}_"
                names = {}
                self.fields[p + "fate"] = forms.ChoiceField(choices=fate_choices, label="Fate")
                names["fate"] = p + "fate"
                self.fields[p + "hull"] = forms.IntegerField(
                    min_value=0, label="Hull lost", help_text=f"of {ship['hull']}")
                names["hull"] = p + "hull"
                self.fields[p + "engine"] = forms.IntegerField(
                    min_value=0, label="Engine lost", help_text=f"of {ship['engine']}")
                names["engine"] = p + "engine"
                names["weapons"] = []
                for w in ship["weapons"]:
                    name = f"{p}w_{w['key']}"
                    self.fields[name] = forms.IntegerField(
                        min_value=0, label=f"{w['label']} lost", help_text=f"of {w['count']}")
                    names["weapons"].append(name)
                if ship["force_field"]:
                    self.fields[p + "ffg"] = forms.IntegerField(
                        min_value=0, label="Force field generators lost", help_text=f"of {FORCE_FIELD_ARCS}")
                    names["ffg"] = p + "ffg"
                if ship["stealth_field"]:
                    self.fields[p + "stealth"] = forms.BooleanField(required=False, label="Stealth field lost")
                    names["stealth"] = p + "stealth"
                if ship["boarding_parties"]:
                    self.fields[p + "boarding"] = forms.IntegerField(
                        min_value=0, label="Boarding parties lost", help_text=f"of {ship['boarding_parties']}")
                    names["boarding"] = p + "boarding"
                self.ship_groups.append({"side": side, "ship": ship, "names": names})

    @staticmethod
    def initial_for(ship: dict) -> dict:
        p = f"ship_{ship['id']}_"
        damage = ship["damage"] or {}
        out = {p + "fate": "survived", p + "hull": _int(damage.get("hull")), p + "engine": _int(damage.get("engine"))}
        for w in ship["weapons"]:
            out[f"{p}w_{w['key']}"] = w["lost"]
        out[p + "ffg"] = _int(damage.get("force_field_generators"))
        out[p + "stealth"] = bool(damage.get("stealth"))
        out[p + "boarding"] = _int(damage.get("boarding_parties"))
        return out

    def groups(self):
        """Per ship: its side, its description and its bound fields, for the template."""
        for g in self.ship_groups:
            n = g["names"]
            yield {
                "side": g["side"], "ship": g["ship"], "fate": self[n["fate"]],
                "fields": [self[n["hull"]], self[n["engine"]], *(self[w] for w in n["weapons"]),
                           *([self[n["ffg"]]] if "ffg" in n else []),
                           *([self[n["boarding"]]] if "boarding" in n else [])],
                "stealth": self[n["stealth"]] if "stealth" in n else None,
            }

    def result(self) -> dict:
        """The cleaned form as a result (docs/battles.md "Result"); call after is_valid()."""
        data = self.cleaned_data
        seats = {"attacker": self.battle.attacker, "defender": self.battle.defender, "neither": None}
        ships = []
        for g in self.ship_groups:
            side, ship, n = g["side"], g["ship"], g["names"]
            fate = data[n["fate"]]
            damage = None
            if fate != DESTROYED:
                weapons = []
                for w, name in zip(ship["weapons"], n["weapons"], strict=True):
                    weapons += [w["key"]] * data[name]
                damage = {"hull": data[n["hull"]], "engine": data[n["engine"]], "weapons": weapons,
                          "force_field_generators": data.get(n.get("ffg"), 0) or 0,
                          "stealth": bool(data.get(n.get("stealth"), False)),
                          "boarding_parties": data.get(n.get("boarding"), 0) or 0}
            other = self.battle.defender if side["seat"] == self.battle.attacker else self.battle.attacker
            ships.append({"ship": ship["id"], "fate": fate, "damage": damage,
                          "captured_by": other if fate == CAPTURED else None})
        return {"holder": seats[data["holder"]], "ships": ships}


def side_label(side: dict) -> str:
    return side["name"]


class DisputeForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), max_length=2000, required=False,
        label="What is wrong with the entered result",
        help_text="The moderator reads this and settles the battle.")


class SettleForm(forms.Form):
    how = forms.ChoiceField(choices=[("entered", "with the entered result"), ("own", "with my own entry"),
                                     ("auto", "by auto-resolve")])
    note = forms.CharField(max_length=500, required=False, label="Note for the log",
                           help_text="Optional: why you settled it this way.")


class ModeForm(forms.Form):
    """Only the modes the battle can be switched to (``actions.modes_open_to``)."""

    mode = forms.ChoiceField(choices=Battle.Mode.choices, label="Settle the battle by")

    def __init__(self, *args, battle: Battle | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if battle is not None:
            from tactical.battles.actions import modes_open_to

            allowed = modes_open_to(battle)
            self.fields["mode"].choices = [(v, label) for v, label in Battle.Mode.choices if v in allowed]


class PreferenceForm(forms.Form):
    preference = forms.CharField(max_length=10, required=False)
