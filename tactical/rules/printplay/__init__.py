"""Star Trek Print&Play (``seeds/001_…``, issue 30): the fifth rule book; pure Python.

``dashboards`` (the dashboards, the designer, the house roster), ``state`` (ships, terrain, the
turn, deployment), ``actions``, ``engine`` (``check``/``apply``/``advance``/``legal_actions``),
``doctrine``, ``codec``, ``play`` (online play), ``board`` (the SVG mat), ``book`` (the
``RuleBook``), ``trials`` (what-if). Rulings PP1… in docs/rulings.md; overview docs/printplay.md.
"""

from tactical.rules import registry as _registry
from tactical.rules.kit.trial import Trial as _Trial

from .book import BOOK
from .dashboards import ROSTER
from .play import RULES

__all__ = ["BOOK", "ROSTER", "RULES", "resolve_battle"]


def resolve_battle(state, dice, **_):
    """The registry's entry point: a deployed battle played out by the doctrine, its result."""
    return BOOK.outcome(BOOK.simulate(state, dice))


if "printplay" not in _registry.RESOLVERS:
    _registry.register(_registry.ResolverRecord(
        name="printplay",
        title="Star Trek Print&Play (embedded tactical engine)",
        rule_book="001 Star Trek Print&Play Game Rules",
        resolve=resolve_battle,
        play=RULES,
        book=BOOK,
        fleets="tactical.hosts.pickup.printplay:PRINTPLAY",  # its pickup fleet book (Django side)
        sheets="tactical.rules.printplay.sheets:record_sheets",  # its printed dashboards (issue 31)
        trial=_Trial("printplay", "tactical.rules.printplay.trials:play_job",
                     "tactical.rules.printplay.trials:same", "tactical.rules.printplay.trials:same",
                     "tactical.rules.printplay.trials:tally_for"),  # the generic what-if pages and runner
    ))
