"""The embedded Event Horizon Quick Play tactical engine (issue 5, "Battles"); pure Python.

Rule book ``seeds/003_…`` "Event Horizon – Quick Play Star Ship Combat Rules"; rulings TC1… in
``docs/rulings.md``. ``deploy`` sets a battle up from campaign fleets, ``draw_card`` / ``apply``
play it, ``doctrine.simulate`` plays it to the end for computer sides, ``outcome`` reports it.
"""

from .actions import (
    Activate,
    DisengageStealth,
    EndActivation,
    EngageStealth,
    Fire,
    Land,
    Launch,
    Move,
    Pass,
    Regenerate,
    RestorePower,
    Scan,
    Teleport,
    WarpOut,
)
from .cards import Card, full_deck, shuffle
from .deploy import CampaignShip, Placement, battlefield_for_world, deploy, tactical_ship
from .doctrine import doctrine_action, simulate
from .engine import (
    BattleOutcome,
    Resolution,
    ShipOutcome,
    apply,
    carried_damage,
    check,
    draw_card,
    is_over,
    legal_actions,
    outcome,
)
from .state import BattleEvent, Battlefield, BattleState, IllegalActionError, Planet, TacticalShip

__all__ = [
    "actions", "Activate", "DisengageStealth", "EndActivation", "EngageStealth", "Fire", "Land", "Launch", "Move",
    "Pass", "Regenerate", "RestorePower", "Scan", "Teleport", "WarpOut", "Card", "full_deck", "shuffle",
    "CampaignShip", "Placement", "battlefield_for_world", "deploy", "tactical_ship", "doctrine_action", "simulate",
    "BattleOutcome", "Resolution", "ShipOutcome", "apply", "carried_damage", "check", "draw_card", "is_over",
    "legal_actions", "outcome", "Battlefield", "BattleEvent", "BattleState", "IllegalActionError", "Planet",
    "TacticalShip", "resolve_battle",
]


def resolve_battle(state: BattleState, dice, max_cards: int | None = None) -> BattleOutcome:
    """The registry's entry point: play the battle out with the computer doctrine for every
    side and report it."""
    return outcome(simulate(state, dice, max_cards=max_cards))


from tactical.rules import registry as _registry  # noqa: E402 - registers this engine
from tactical.rules.kit.trial import Trial as _Trial  # noqa: E402

from .book import BOOK as _BOOK  # noqa: E402 - the RuleBook every book answers the same way
from .play import RULES as _PLAY  # noqa: E402 - online play's hooks (tactical/play/ reaches the engine through them)

if "eventhorizon" not in _registry.RESOLVERS:
    _registry.register(_registry.ResolverRecord(
        name="eventhorizon",
        title="Event Horizon Quick Play (embedded tactical engine)",
        rule_book="003 Event Horizon - Quick Play Star Ship Combat Rules",
        resolve=resolve_battle,
        play=_PLAY,
        book=_BOOK,
        trial=_Trial("eventhorizon",
                     "tactical.rules.eventhorizon.trials:play_job",
                     "tactical.rules.eventhorizon.trials:trial_to_json",
                     "tactical.rules.eventhorizon.trials:trial_from_json",
                     "tactical.rules.eventhorizon.trials:tally_for",
                     run="tactical.whatif.runs:play_eventhorizon",
                     api="tactical.whatif.api:eventhorizon_json",
                     page="tactical.whatif.views:eventhorizon_page",
                     form="whatif-new", title="Event Horizon"),  # its what-if battles and pages
        sheets="tactical.rules.eventhorizon.sheets:record_sheets",  # its printed record sheets (issue 31)
        fleets="tactical.hosts.pickup.books:EVENT_HORIZON",  # its pickup fleet book (reads the site's designs)
    ))
