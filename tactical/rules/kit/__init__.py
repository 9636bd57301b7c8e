"""The rule-book kit: what every tactical rule book is built on (pure Python, standard library).

A rule book (``tactical/rules/<book>/``) is its rules, its ships and its templates on top of
this kit and of ``tactical.rules.geometry``; it never copies them. Import from here::

    from tactical.rules.kit import (IllegalActionError, Event, EventLog, Resolution, visible,
                                    evolve, derive, build, roll, d6, d12, d3, shuffle, DiceBag,
                                    fallback, play_out, Book, RuleBook, battle_result)

=================  ==========================================================================
``errors``         ``IllegalActionError(rule, message)``: every refusal, citing the section
``events``         ``Event`` (fog-of-war tags ``sides``/``public`` set where it is made),
                   ``EventLog``, ``Resolution(state, events)``, ``visible(events, side)``
``values``         ``evolve``/``derive``/``build``: fast copies of frozen dataclasses, with
                   cached look-ups declared in ``_cached_from``
``dice``           ``roll(dice, n, sides, purpose)``, ``d6``/``d12``/``d3``, ``shuffle``,
                   ``DiceBag`` (one shuffle, then draws)
``doctrine``       ``fallback`` (a doctrine choice the engine refuses is replaced) and
                   ``play_out`` (the simulate loop)
``codec``          ``action_type``/``whole_number`` (every codec's first checks), ``FormatError``
                   (a book's action-format error), ``Fields`` (field readers in one wording)
``trial``          ``Trial`` (a book's what-if battles), ``WinTally`` (the generic page's tally)
``book``           the ``RuleBook`` protocol every registered book follows, ``Book`` (that
                   protocol over a book's ``PlayRules``), ``battle_result`` (one result JSON)
``layers``         what a converter reads of a layer's battle: ``eh_seats``, ``eh_side``,
                   ``eh_ships``, ``eh_entries``, ``eh_ship_json`` (an Event Horizon setup),
                   ``converted_ships``, ``converted_units``, ``cam_crippled``, ``cam_fates``;
                   and gives back: ``eh_result`` with ``Survived`` (an Event Horizon result),
                   ``cam_result`` (a CAM result), ``lose_costliest`` (weapon systems lost)
=================  ==========================================================================

The checklist for a new book is docs/architecture.md, "How to add a rule book";
``tests/tactical/toybook/`` is the smallest complete book.
"""

from .book import Book, RuleBook, battle_result, result_winner
from .codec import Fields, FormatError, action_type, whole_number
from .dice import Dice, DiceBag, d3, d6, d12, one, roll, shuffle
from .doctrine import fallback, play_out
from .errors import IllegalActionError
from .events import Event, EventLog, Resolution, private, public, visible, visible_to
from .values import build, derive, evolve

__all__ = ["Book", "Dice", "DiceBag", "Event", "EventLog", "Fields", "FormatError", "IllegalActionError",
           "Resolution", "RuleBook", "action_type", "battle_result", "build", "d3", "d6", "d12", "derive", "evolve",
           "fallback", "one", "play_out", "private", "public", "result_winner", "roll", "shuffle", "visible",
           "visible_to", "whole_number"]
