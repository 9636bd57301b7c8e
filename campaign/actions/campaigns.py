"""The rule options a campaign may take and how many seats it has: the options' defaults, those a
moderator may switch while it runs, and the rule book its battles are fought on (issue 31).

Creating a campaign (its map, seats and home worlds), its ship designs and importing an export are
its layer's: Event Horizon's are in ``campaign/eventhorizon/actions/campaigns.py`` (issue 26).
"""
from __future__ import annotations

from .errors import ActionError

MIN_PLAYERS, MAX_PLAYERS = 2, 8
# "battle_book": the rule book the campaign's battles fought online use (issue 31; "" = the layer's own).
DEFAULT_OPTIONS = {"economy_types": True, "steered_drift": False, "battle_book": ""}
# Options a moderator may switch while the campaign runs (RULINGS: "A moderator may switch any
# ruling marked (option) per campaign"); economy types are rolled with the map and stay.
SWITCHABLE_OPTIONS = frozenset({"steered_drift", "battle_book"})
BOOK_OPTION = "battle_book"


def check_battle_book(layer: str, value, *, campaign=None) -> str:
    """The rule book option (issue 31): one the layer's battles can be fought on (a converter is
    registered for it), and only until the campaign's first battle. "" or the layer's own: its own."""
    from .. import battles, layers

    if not isinstance(value, str):
        raise ActionError(f"the rule book for battles must be a rule book's name, not {value!r}")
    choices = dict(battles.handler().book_choices(layer))
    if value and value not in choices:
        raise ActionError(f"battles cannot be fought on the rule book {value!r}; one of: {', '.join(choices)}")
    begun = layers.get(layer).battles_begun or battles.handler().battles_begun
    if campaign is not None and begun(campaign):
        raise ActionError("the campaign has had its first battle: the rule book its battles are fought on "
                          "can no longer change")
    own = next(iter(choices), "")
    return "" if value == own else value
