"""Star Sectors: Space Combat Game (issue 28), the site's third rule book; pure Python.

Rule book ``seeds/004_…``; rulings SS1… in ``docs/rulings.md``; overview in
``docs/starsectors.md``. ``cards`` (profile cards, the card designer and the house roster),
``state``, ``actions``, ``core`` (factors and geometry), ``engine``/``combat``/``engineering``
(the rules), ``sequence`` (``check``/``apply``/``legal_actions``/``result``), ``setup`` (III),
``doctrine``, ``codec``, ``play`` (online play), ``board`` (SVG), ``book`` (the ``RuleBook``),
``fleets`` (random fleets and terrain), ``trial`` (what-if).
"""

from __future__ import annotations

from tactical.rules import registry as _registry
from tactical.rules.kit.trial import Trial as _Trial

from .book import BOOK
from .play import RULES
from .sequence import apply, check, legal_actions, result
from .setup import new_battle

__all__ = ["BOOK", "RULES", "apply", "check", "legal_actions", "new_battle", "resolve_battle", "result"]


def resolve_battle(state, dice, **_kw):
    return BOOK.outcome(BOOK.simulate(state, dice))


if "starsectors" not in _registry.RESOLVERS:
    _registry.register(_registry.ResolverRecord(
        name="starsectors", title=BOOK.title, rule_book=BOOK.rule_book, resolve=resolve_battle, play=RULES,
        book=BOOK,
        trial=_Trial("starsectors", "tactical.rules.starsectors.trial:play_job",
                     "tactical.rules.starsectors.trial:same", "tactical.rules.starsectors.trial:same",
                     "tactical.rules.starsectors.trial:tally_for"),
        fleets="tactical.hosts.pickup.starsectors_fleets:STAR_SECTORS",
        sheets="tactical.rules.starsectors.sheets:record_sheets",  # its printed profile cards (issue 31)
    ))
