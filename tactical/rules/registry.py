"""The registry of tactical resolvers (pure Python).

Every rule book becomes a tactical ruleset behind one resolver interface; each registers a small
record here under its name (``RESOLVERS["eventhorizon"]``). The embedded Event Horizon Quick Play
engine (``tactical.rules.eventhorizon``, issue 5) registers itself as ``"eventhorizon"``, the
Buoyz 'N Da 'Hood engine (``tactical.rules.buoyz``, issue 16) as ``"buoyz"``; it is
imported at the bottom of this module, so looking it up never depends on import order. Its
``resolve(state, dice, max_cards=None)`` plays a deployed battle out with the computer doctrine
and returns the outcome. The auto-resolve odds system is not a tactical resolver.

A record's ``play`` (a ``tactical.rules.play.PlayRules``) is what online play needs of the rule
book — the state from a stored setup, the state codec, legal actions, whose decision it is, the
doctrine, the result, fog of war and the board; ``tactical/play/`` reaches an engine only through
it (``find_play(name)``). None: the rule book resolves battles but has no online play.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tactical.rules.kit import RuleBook
from tactical.rules.play import PlayRules


@dataclass(frozen=True)
class ResolverRecord:
    """One rule book in the registry. ``resolve(state, dice, …)`` plays a deployed battle out
    with the doctrine; ``play`` is what online play asks of it (None: no online play); ``book``
    the ``RuleBook`` every book answers the same way (the contract test, what-if, pickup);
    ``fleets`` what a player may buy for a pickup battle (a ``tactical.hosts.pickup.books.FleetBook``;
    None: not offered) and ``trial`` its what-if battles (a ``tactical.whatif.trial.Trial``;
    None: no what-if)."""

    name: str
    title: str
    rule_book: str
    resolve: Callable[..., Any]
    play: PlayRules | None = None
    book: RuleBook | None = None
    fleets: Any = None
    trial: Any = None
    sheets: Any = None  # issue 31: record sheets of a setup, ``sheets(setup) -> HTML`` or "module:function"


def record_sheets(name: str, setup, **kwargs) -> str:
    """The printable record sheets of a battle ``setup`` of the rule book ``name`` (issue 31);
    ValueError if the book prints none."""
    import importlib

    found = find_resolver(name).sheets
    if found is None:
        raise ValueError(f"the rule book '{name}' has no record sheets yet")
    if isinstance(found, str):
        module, _, attr = found.partition(":")
        found = getattr(importlib.import_module(module), attr)
    return found(setup, **kwargs)


RESOLVERS: dict[str, ResolverRecord] = {}


def register(record: ResolverRecord) -> ResolverRecord:
    if record.name in RESOLVERS:
        raise ValueError(f"a tactical resolver named '{record.name}' is already registered")
    RESOLVERS[record.name] = record
    return record


def find_resolver(name: str) -> ResolverRecord:
    try:
        return RESOLVERS[name]
    except KeyError:
        known = ", ".join(sorted(RESOLVERS)) or "none yet"
        raise ValueError(f"no tactical resolver named '{name}' (registered: {known})") from None


def book_title(name: str) -> str:
    """A rule book as pages, logs, emails and reports name it ("My Trek V"), its title without the
    parenthesised note, never its key ("mytrek"); ValueError if no resolver has that name."""
    return find_resolver(name).title.split(" (")[0]


def find_play(name: str):
    """The online-play hooks of the ruleset ``name``; ValueError if it has none."""
    record = find_resolver(name)
    if record.play is None:
        raise ValueError(f"the tactical ruleset '{name}' cannot be played online")
    return record.play


def books() -> list[RuleBook]:
    """Every registered ``RuleBook``, by name."""
    return [RESOLVERS[n].book for n in sorted(RESOLVERS) if RESOLVERS[n].book is not None]


def playable() -> list[ResolverRecord]:
    """The rulesets that can be played online, by name."""
    return [RESOLVERS[n] for n in sorted(RESOLVERS) if RESOLVERS[n].play is not None]


# --- converters: any campaign layer's battles on any rule book (issue 31) ---------------------

# The rule book each campaign layer fights its battles on unless its moderator chose another
# (the default of the campaign option "battles fought online use: <rule book>").
OWN_BOOK: dict[str, str] = {"eventhorizon": "eventhorizon", "cam": "buoyz"}


@dataclass(frozen=True)
class ConverterRecord:
    """How one campaign layer's battles are fought on one rule book that is not the layer's own.

    ``to_book(layer_setup) -> dict``: the battle's setup in the book's own form (what its
    ``PlayRules.initial_state`` reads), with the layer's ships converted by the book's rulings
    (XC… in docs/rulings.md) and, under ``"converted"``, which book ship is which layer ship.
    ``result_back(layer_setup, book_setup, book_result) -> dict``: the book's result JSON (its
    ``PlayRules.result``) as the layer's own result (Event Horizon: docs/battles.md "Result";
    CAM: ``{"destroyed", "crippled", "left", "winner"}`` per seat, see
    ``tactical/rules/eventhorizon/convert.py``). ``sheets(book_setup) -> str``: the converted ships
    as printable record sheets (HTML with print CSS, one page per ship). ``fleet(layer_ships)``:
    the converter's ship values for what-if and the fairness bench. All pure."""

    layer: str
    book: str
    to_book: Callable[..., dict]
    result_back: Callable[..., dict]
    sheets: Callable[..., str] | None = None
    fleet: Callable[..., Any] | None = None
    rulings: str = ""


CONVERTERS: dict[tuple[str, str], ConverterRecord] = {}


def register_converter(record: ConverterRecord) -> ConverterRecord:
    key = (record.layer, record.book)
    if key in CONVERTERS:
        raise ValueError(f"a converter of {record.layer} battles to {record.book} is already registered")
    if OWN_BOOK.get(record.layer) == record.book:
        raise ValueError(f"{record.book} is {record.layer}'s own rule book: it needs no converter")
    CONVERTERS[key] = record
    return record


def find_converter(layer: str, book: str) -> ConverterRecord | None:
    """The converter of ``layer``'s battles to ``book`` (None: ``book`` is the layer's own);
    ValueError if the book cannot fight the layer's battles."""
    if OWN_BOOK.get(layer) == book:
        return None
    try:
        return CONVERTERS[(layer, book)]
    except KeyError:
        offered = ", ".join(books_for(layer)) or "none"
        raise ValueError(f"no rule book '{book}' for {layer} battles (offered: {offered})") from None


def books_for(layer: str) -> list[str]:
    """The rule books a campaign of ``layer`` may fight its battles on online: its own first,
    then every book with a registered converter for the layer and online play, by name."""
    own = OWN_BOOK.get(layer)
    out = [own] if own in _playable_names() else []
    out += sorted(b for (lay, b) in CONVERTERS if lay == layer and b in _playable_names() and b != own)
    return out


def _playable_names() -> set[str]:
    return {r.name for r in playable()}


# Built-in resolvers register themselves when imported (last: they import this module).
from tactical.rules import buoyz as _buoyz  # noqa: E402,F401
from tactical.rules import eventhorizon as _eventhorizon  # noqa: E402,F401
from tactical.rules import mytrek as _mytrek  # noqa: E402,F401
from tactical.rules import printplay as _printplay  # noqa: E402,F401
from tactical.rules import starsectors as _starsectors  # noqa: E402,F401

# Converters register after every book (each imports the books it converts between).
from tactical.rules.buoyz import convert as _bz_convert  # noqa: E402,F401
from tactical.rules.eventhorizon import convert as _eh_convert  # noqa: E402,F401
from tactical.rules.mytrek import convert as _mt_convert  # noqa: E402,F401
from tactical.rules.printplay import convert as _pp_convert  # noqa: E402,F401
from tactical.rules.starsectors import convert as _ss_convert  # noqa: E402,F401
