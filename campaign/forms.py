"""Forms of the lobby pages. They check the shape of the input; the actions in
``campaign/actions/`` check the rest and change state."""

from __future__ import annotations

from django import forms

from . import battles, layers
from .actions import DEFAULT_OPTIONS, LOBBY_LIMITS, MAX_PLAYERS, MIN_PLAYERS, SEED_MAX_LENGTH
from .models import COLOUR_PALETTE, GRID_CHOICES, Campaign, Membership
from .rules.grid import MAX_SIDE

MIN_SIDE = 1

COLOUR_NAMES = {
    "#d62728": "Red", "#1f77b4": "Blue", "#2ca02c": "Green", "#ff7f0e": "Orange",
    "#9467bd": "Purple", "#8c564b": "Brown", "#e377c2": "Pink", "#17becf": "Cyan",
}

# Labels and help for the rule options the campaign layer knows (actions.DEFAULT_OPTIONS).
OPTION_FIELDS = {
    "economy_types": (
        "Planetary economy types",
        "003 \"Planetary Economy Type\": every planet rolls industrial, commercial or agricultural, "
        "which sets its income (a house ruling, on by default). Off: every planet earns 1d6 × 10 BP.",
    ),
    "battle_book": (
        "Battles fought online use",
        "The rule book the campaign's battles are played on here online; its record sheets of the ships can be "
        "printed for a tabletop too. A book other than the campaign's own converts the fleets to its ships "
        "(house rulings XC1–XC51, each battle page names the ones it uses); the result comes back "
        "as the campaign's own. It can change until the first battle.",
    ),
    "steered_drift": (
        "Opponents steer particle-cloud drift",
        "003 Particle Cloud: \"Failure means that the opponent moves the ship/fleet\". On: a fleet that fails its "
        "3+ roll drifts as the nearest opponent's standing drift order says (toward or away from a hex). Off "
        "(default): the drift is random (house ruling P2, \"Particle clouds\").",
    ),
}


class LobbyCreateForm(forms.Form):
    """The lobby's create form of a map-and-empires campaign; a layer using it names itself in its
    subclass (``layer_key``: the rule books its battles may be fought on, issue 31)."""

    layer_key = ""
    name = forms.CharField(max_length=120, help_text="What the players will see, e.g. \"Orion Reach\".")
    grid = forms.ChoiceField(choices=GRID_CHOICES, initial="hex",
                             help_text="003 \"Creating a Map\": hexes or squares (squares allow diagonal steps).")
    width = forms.IntegerField(min_value=MIN_SIDE, max_value=MAX_SIDE, initial=30,
                               help_text=f"Cells across ({MIN_SIDE}–{MAX_SIDE}). About 6×6 cells per player is roomy.")
    height = forms.IntegerField(min_value=MIN_SIDE, max_value=MAX_SIDE, initial=24, help_text="Cells down.")
    seats = forms.IntegerField(
        label="Players", min_value=MIN_PLAYERS, max_value=MAX_PLAYERS, initial=4,
        help_text=f"Seats on the map ({MIN_PLAYERS}–{MAX_PLAYERS}). Seats nobody takes by the start are played "
        "by the computer.",
    )
    turn_hours = forms.IntegerField(
        label="Turn length (hours)", min_value=LOBBY_LIMITS["turn_hours"][0], max_value=LOBBY_LIMITS["turn_hours"][1],
        initial=72, help_text="Time to write each turn's orders. A turn is processed earlier when every player is "
        "ready. 0: no deadline.",
    )
    setup_hours = forms.IntegerField(
        label="Set-up deadline (hours)", min_value=LOBBY_LIMITS["setup_hours"][0],
        max_value=LOBBY_LIMITS["setup_hours"][1], initial=72, required=False,
        help_text="003 \"Set Up\": time for the set-up round, when each player spends his 240 BP on his fleet and "
        "resources before turn 1. It closes earlier when every player is ready. 0: no deadline.",
    )
    battle_mode = forms.ChoiceField(
        choices=Campaign.BattleMode.choices, initial=Campaign.BattleMode.AUTO,
        help_text="How battles are settled unless a player asks otherwise. The embedded tactical resolver: "
        "the players fight each battle here online, on the rule book chosen under \"Battles fought online "
        "use\".")
    battle_requests = forms.ChoiceField(
        label="Who may ask for another mode", choices=Campaign._meta.get_field("battle_requests").choices,
        initial="either", help_text="A player asks through his empire's battle preference on the orders page. "
        "A tabletop battle always needs both sides to ask.",
    )
    battle_hours = forms.IntegerField(
        label="Battle deadline (hours)", min_value=LOBBY_LIMITS["battle_hours"][0],
        max_value=LOBBY_LIMITS["battle_hours"][1], initial=48,
        help_text="Time to fight an embedded or tabletop battle; after it the battle is settled without the "
        "players. 0: no deadline.",
    )
    activation_hours = forms.IntegerField(
        label="Activation deadline (hours)", min_value=LOBBY_LIMITS["activation_hours"][0],
        max_value=LOBBY_LIMITS["activation_hours"][1], initial=24,
        help_text="Embedded battles: time for each activation before the computer plays it. 0: no deadline.",
    )
    deployment = forms.ChoiceField(
        label="Deployment of embedded battles", choices=Campaign.Deployment.choices,
        initial=Campaign.Deployment.AUTOMATIC,
        help_text="By hand, each side places its ships in its zone before the first card (the defender first; "
        "the invader first against an AEWA), within the activation deadline.",
    )
    fog_of_war = forms.BooleanField(required=False, initial=True,
                                    help_text="Players see enemy fleets only near their own worlds and fleets.")
    detection_range = forms.IntegerField(
        min_value=LOBBY_LIMITS["detection_range"][0], max_value=LOBBY_LIMITS["detection_range"][1], initial=2,
        help_text="Fog of war: cells from an own world or fleet where enemy fleets are seen.",
    )
    missed_turn_limit = forms.IntegerField(
        min_value=LOBBY_LIMITS["missed_turn_limit"][0], max_value=LOBBY_LIMITS["missed_turn_limit"][1], initial=3,
        help_text="After this many missed turns in a row the computer plays the seat until its player returns "
        "(0: never).",
    )
    listed = forms.BooleanField(
        label="List among the open campaigns", required=False, initial=False,
        help_text="Every signed-in user sees it on the home page, with a link to join, until it starts.",
    )
    show_ready = forms.BooleanField(
        label="Players see who is ready", required=False, initial=True,
        help_text="Each player's home page and the campaign page show which empires have marked their "
        "orders ready. Off: only the moderator sees it.",
    )
    seed = forms.CharField(
        label="Dice seed", required=False, max_length=SEED_MAX_LENGTH,
        help_text="Leave empty for a secret random seed (recommended). A seed you choose makes the map and every "
        "roll reproducible by anyone who knows it.",
    )

    play = forms.BooleanField(
        label="I'll play too", required=False, initial=False,
        help_text="Take a seat (seat 1) as well as moderating. Unticked, you moderate without playing. A moderator "
        "who plays sees the map as his own empire does; the other players see that he plays.",
    )
    empire_name = forms.CharField(label="Your empire's name", max_length=80, required=False,
                                  help_text="If you play: the name the other players see.")
    colour = forms.ChoiceField(label="Your colour", choices=[(c, c) for c in COLOUR_PALETTE], required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for key, default in DEFAULT_OPTIONS.items():
            if isinstance(default, bool):
                label, help_text = OPTION_FIELDS.get(key, (key.replace("_", " ").capitalize(), ""))
                self.fields[f"option_{key}"] = forms.BooleanField(
                    label=label, required=False, initial=default, help_text=help_text
                )
        books = battles.handler().book_choices(self.layer_key)
        if len(books) > 1:  # issue 31: the rule book battles fought online use
            label, help_text = OPTION_FIELDS["battle_book"]
            self.fields["option_battle_book"] = forms.ChoiceField(label=label, choices=books, initial=books[0][0],
                                                                  required=False, help_text=help_text)
            # beside the battle mode it goes with, not at the end of the form
            order = [k for k in self.fields if k != "option_battle_book"]
            order.insert(order.index("battle_mode") + 1, "option_battle_book")
            self.order_fields(order)

    def clean_setup_hours(self):
        value = self.cleaned_data.get("setup_hours")
        return 72 if value is None else value  # left empty: the default

    def clean(self):
        data = super().clean()
        if data.get("play") and not (data.get("empire_name") or "").strip():
            self.add_error("empire_name", "Name your empire to play, or untick \"I'll play too\".")
        return data

    def action_kwargs(self) -> dict:
        data = dict(self.cleaned_data)
        options = {key[len("option_"):]: data.pop(key) for key in list(data) if key.startswith("option_")}
        play, name, colour = data.pop("play", False), data.pop("empire_name", ""), data.pop("colour", "")
        return {**data, "options": options,
                "play": {"empire_name": name, "colour": colour or COLOUR_PALETTE[0]} if play else None}


class JoinForm(forms.Form):
    role = forms.ChoiceField(choices=(), initial=Membership.Role.PLAYER, widget=forms.RadioSelect)
    empire_name = forms.CharField(max_length=80, required=False)
    faction = forms.CharField(max_length=80, required=False)
    colour = forms.ChoiceField(choices=(), required=False, widget=forms.RadioSelect)

    def __init__(self, *args, taken_colours=(), words: layers.JoinWords | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.words = words = words or layers.JoinWords()
        self.fields["role"].choices = [(Membership.Role.PLAYER, f"Player: take a seat and {words.a_seat}"),
                                       (Membership.Role.OBSERVER, "Observer: watch the campaign")]
        self.fields["empire_name"].label = words.name_label
        self.fields["empire_name"].help_text = words.name_help
        if words.faction_choices:
            self.fields["faction"] = forms.ChoiceField(choices=[("", "— choose —"), *words.faction_choices],
                                                       required=False)
        self.fields["faction"].label = words.faction_label
        self.fields["faction"].help_text = words.faction_help
        self.fields["colour"].help_text = words.colour_help
        free = [c for c in COLOUR_PALETTE if c not in set(taken_colours)]
        self.fields["colour"].choices = [(c, COLOUR_NAMES.get(c, c)) for c in free]
        if free and not self.is_bound:
            self.fields["colour"].initial = free[0]

    def clean(self):
        data = super().clean()
        if data.get("role") == Membership.Role.PLAYER:
            if not (data.get("empire_name") or "").strip():
                self.add_error("empire_name", f"Choose a name for your {self.words.seat}.")
            if self.words.faction_choices and not data.get("faction"):
                self.add_error("faction", f"Choose one of the {self.words.faction_label.lower()}.")
            if not data.get("colour"):
                self.add_error("colour", "Choose a colour.")
        return data


class InviteEmailForm(forms.Form):
    email = forms.EmailField(help_text="We email a link that lets them join; it works once.")


class AddModeratorForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="The username of an account on this site.")
