"""My Trek V (``../shared/seeds/002_17a1b1527ce9a678.txt``), the site's fourth rule book (issue 29):
a square grid, turns of twelve phases, power points split between engines, force fields and
weapons in a secret Phase Zero, simultaneous secret moves and attacks, hull damage that drains
power, targeted systems and self-destruct. Pure Python on ``tactical.rules.kit``.

``tables`` (the book's tables; the phase chart reconstructed, ruling MT1), ``state`` (designs,
ships, the battle, the actions), ``engine`` (``check``/``apply``/``legal_actions``), ``doctrine``,
``fleets`` (points, the house roster, set-up), ``board`` (SVG), ``play`` (``PlayRules`` and the
``RuleBook``); what-if battles are ``tactical/whatif/mytrektrials.py``. The site's rulings are
MT1… in docs/rulings.md; what is covered: docs/mytrek.md.
"""

from tactical.rules import registry as _registry  # noqa: E402
from tactical.rules.kit.trial import Trial as _Trial  # noqa: E402

from .play import BOOK, RULES  # noqa: E402

_registry.register(
    _registry.ResolverRecord(
        name="mytrek",
        title=BOOK.title,
        rule_book=BOOK.rule_book,
        resolve=lambda state, dice, **kw: BOOK.outcome(BOOK.simulate(state, dice)),
        play=RULES,
        book=BOOK,
        fleets="tactical.hosts.pickup.mytrek_fleets:MYTREK",
        sheets="tactical.rules.mytrek.sheets:record_sheets",  # its printed ship logs (issue 31)
        trial=_Trial(
            "mytrek",
            "tactical.whatif.mytrektrials:play_job",
            "tactical.whatif.mytrektrials:same",
            "tactical.whatif.mytrektrials:same",
            "tactical.whatif.mytrektrials:tally_for",
        ),
    )
)
