"""Forms of the CAM pages. They only parse input; the rules are checked by the actions."""

import copy

from django import forms

from campaign.rules.cam import factions as fx
from campaign.rules.cam import ships as sh
from campaign.rules.cam import state as st
from campaign.sanitise import whole_number

from .models import (
    CLASS_CHOICES,
    EDGE_CHOICES,
    LAYER,
    TEMPER_CHOICES,
    WEALTH_CHOICES,
    CamCampaign,
    ScenarioMode,
)

FACTION_HELP = ("A power the rule book classes (" + ", ".join(fx.PRESETS) + ") takes its CAM 4.2 wealth class "
                "and CAM 3.1 modifier from the book; for any other power choose the wealth class that fits best.")
FLEET_HELP = "One SD key per line, optionally 'key: ship name' (see the SD catalogue)."


def parse_fleet(text: str) -> list[dict]:
    out = []
    for line in (text or "").splitlines():
        line = line.strip()
        if not line:
            continue
        key, _, name = line.partition(":")
        out.append({"sd": key.strip(), "name": name.strip()})
    return out


def fleet_text(fleet: list[dict]) -> str:
    return "\n".join(f"{s['sd']}: {s['name']}" if s.get("name") else s["sd"] for s in fleet)


class CreateForm(forms.Form):
    name = forms.CharField(max_length=120)
    period = forms.IntegerField(min_value=sh.FIRST_PERIOD, max_value=sh.LAST_PERIOD, initial=3,
                                help_text="000 1.5: 1 Enterprise … 6 Picard era.")
    starting_points = forms.IntegerField(min_value=1, initial=200, help_text="Each fleet's points (CAM 4.0).")
    scenarios = forms.IntegerField(min_value=1, max_value=st.MAX_SCENARIOS, initial=st.DEFAULT_SCENARIOS,
                                   help_text="Scenarios in the rubber (CAM 4.1).")
    points_level = forms.IntegerField(min_value=1, initial=st.DEFAULT_POINTS_LEVEL,
                                      help_text="Points per side in each scenario (CAM 2.2).")
    break_percent = forms.IntegerField(min_value=1, max_value=100, initial=st.DEFAULT_BREAK_PERCENT,
                                       help_text="'Break Contact' level, % of a fleet's points (CAM 2.3).")
    replacement_percent = forms.IntegerField(
        min_value=0,
        max_value=100,
        initial=st.DEFAULT_REPLACEMENT_PERCENT,
        help_text="Replacement points per scenario, % of starting points (CAM 4.2).",
    )
    replacement_house_rule = forms.BooleanField(
        required=False, label="Replacement share is a house rule",
        help_text="CAM 4.2: replacements 'can cost no more than 10%' of the starting points. Tick to allow more.")
    tables = forms.IntegerField(min_value=1, max_value=st.MAX_TABLES, initial=1, required=False,
                                help_text="Gaming tables per scenario (CAM 2.3, 11.3 multi-tables): each rolls its own "
                                "nature.")
    survival_roll = forms.BooleanField(
        required=False, help_text="000 5.7 sidebar: destroyed ships survive on 2D6 = 12."
    )
    battle_mode = forms.ChoiceField(
        label="Who may auto-resolve", choices=CamCampaign.BattleMode.choices, initial=CamCampaign.BattleMode.TABLETOP,
        help_text="Tabletop: only the moderator may settle a scenario by the auto-resolve odds, and a game turn "
                  "whose deadline passes waits for him. Auto-resolve allowed (groups without miniatures): either "
                  "player may auto-resolve a scenario not fought online too, and a passed game-turn deadline "
                  "auto-resolves the rest (ruling CAM53).")
    scenario_mode = forms.TypedChoiceField(  # optional: a client that does not name it gets the tabletop
        label="How scenarios are fought", choices=ScenarioMode.choices, initial=ScenarioMode.TABLETOP,
        required=False, empty_value=ScenarioMode.TABLETOP,
        help_text="Every scenario starts in this mode; until its table is set the moderator may still switch one "
                  "(fought online: the players play each battle here, on the Buoyz engine or on the rule book "
                  "chosen under \"Battles fought online use\").")
    seed = forms.CharField(required=False, max_length=100,
                           help_text="Optional: a chosen dice seed (the same rolls every time). Leave empty.")


def _player_fields(n: int) -> dict:
    return {
        f"p{n}_username": forms.CharField(label=f"Player {n}: username", max_length=150),
        f"p{n}_name": forms.CharField(label=f"Player {n}: fleet name", max_length=80, required=False),
        f"p{n}_faction": forms.CharField(label=f"Player {n}: faction", max_length=80, help_text=FACTION_HELP),
        f"p{n}_wealth": forms.ChoiceField(label=f"Player {n}: wealth (other powers)", required=False,
                                          choices=[("", "— rule book's —")] + WEALTH_CHOICES),
        f"p{n}_temper": forms.ChoiceField(label=f"Player {n}: temper (other powers)", required=False,
                                          choices=[("", "— default —")] + TEMPER_CHOICES),
        f"p{n}_fleet": forms.CharField(label=f"Player {n}: starting fleet", required=False, widget=forms.Textarea(
            attrs={"rows": 5}), help_text=FLEET_HELP),
    }


for _n in (1, 2):
    for _k, _f in _player_fields(_n).items():
        CreateForm.base_fields[_k] = _f


def players_from(data: dict) -> list[dict]:
    return [{"username": data[f"p{n}_username"], "name": data[f"p{n}_name"], "faction": data[f"p{n}_faction"],
             "wealth": data[f"p{n}_wealth"] or None, "temper": data[f"p{n}_temper"] or None,
             "fleet": parse_fleet(data[f"p{n}_fleet"])} for n in (1, 2)]


class SDForm(forms.Form):
    key = forms.SlugField(max_length=40)
    ship_class = forms.ChoiceField(choices=CLASS_CHOICES)
    name = forms.CharField(max_length=120, help_text="Class and name, e.g. CA USS 'Excelsior'.")
    speed = forms.IntegerField(required=False, min_value=0, help_text="Empty for a station (N/A).")
    turning = forms.IntegerField(required=False, min_value=0)
    target_size = forms.IntegerField(min_value=0)
    shields = forms.CharField(help_text="Fore, port, starboard, aft, e.g. 3,3,3,2", initial="3,3,3,3")
    hull = forms.IntegerField(min_value=1)
    crippled_at = forms.IntegerField(min_value=0)
    command = forms.IntegerField(min_value=1, initial=2)
    ac = forms.IntegerField(min_value=0, initial=0)
    ac_capacity = forms.IntegerField(min_value=0, initial=0)
    special_abilities = forms.CharField(required=False, help_text="Comma separated.")
    main = forms.CharField(
        required=False,
        help_text="One weapon per line: count name [arc], e.g. '4 Phaser' or '2 Photon Torp Fwd'.",
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    secondary = forms.IntegerField(min_value=0, initial=0)
    close_defence = forms.IntegerField(min_value=0, initial=0)
    period_first = forms.IntegerField(min_value=1, max_value=6)
    period_last = forms.IntegerField(min_value=1, max_value=6)
    notes = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def clean_shields(self):
        try:
            values = [int(x) for x in self.cleaned_data["shields"].split(",")]
        except ValueError:
            raise forms.ValidationError("four whole numbers separated by commas") from None
        return values

    def clean_special_abilities(self):
        return [x.strip() for x in self.cleaned_data["special_abilities"].split(",") if x.strip()]

    def clean_main(self):
        out = []
        for line in self.cleaned_data["main"].splitlines():
            parts = line.split()
            if not parts:
                continue
            if whole_number(parts[0]) is None or len(parts) < 2:
                raise forms.ValidationError(f"'{line}': start with the number of attack dice, then the weapon's name")
            arc = parts[-1] if len(parts) > 2 and parts[-1].lower() in ("fwd", "aft", "fwd-only") else ""
            name = " ".join(parts[1:-1] if arc else parts[1:])
            out.append([whole_number(parts[0]), name, arc])
        return out


class EdgeForm(forms.Form):
    edge_choice = forms.ChoiceField(choices=EDGE_CHOICES)


class LobbyForm(forms.Form):
    """The lobby's create page for a CAM rubber (``actions.create_cam_lobby``): the settings of
    ``CreateForm`` without the players, who join by invitation; and the time each step gets."""

    name = forms.CharField(max_length=120, help_text="What the players will see, e.g. \"Rubber at Organia\".")
    step_hours = forms.IntegerField(
        label="Hours per step", min_value=0, max_value=24 * 365, initial=72,
        help_text="The deadline of each step of the rubber (fleets, force selection, each game turn, the result, "
        "replacements); 0: no deadline. The moderator can pause, extend and roll back steps.")
    listed = forms.BooleanField(required=False, label="List among the open campaigns",
                                help_text="Every signed-in user sees it on the home page, with its invitation link.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for key, field in CreateForm.base_fields.items():
            if key != "name" and not key.startswith("p1_") and not key.startswith("p2_"):
                self.fields[key] = copy.deepcopy(field)
        from campaign import battles  # issue 31: the rule book scenarios fought online use
        from campaign.forms import OPTION_FIELDS

        books = battles.handler().book_choices(LAYER)
        if len(books) > 1:
            label, help_text = OPTION_FIELDS["battle_book"]
            self.fields["battle_book"] = forms.ChoiceField(label=label, choices=books, initial=books[0][0],
                                                           help_text=help_text, required=False)
            # beside "How scenarios are fought", whose help names it, not at the end of the form
            order = [k for k in self.fields if k != "battle_book"]
            order.insert(order.index("scenario_mode") + 1, "battle_book")
            self.order_fields(order)

    def action_kwargs(self) -> dict:
        data = dict(self.cleaned_data)
        data["seed"] = data.get("seed") or None
        data["tables"] = data.get("tables") or 1
        return data

