"""The rule options a campaign file may not hold, for every layer's import tests
(tests/eventhorizon/test_import_options.py, tests/cam/test_exchange.py): what the layer's lobby
refuses, refused by the platform's one check (campaign/exports.py ``check_options``) in the same
words whichever layer the file is, and the database left as it was."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.management.base import CommandError

from campaign import layers


def assert_refused(do_import: Callable[[], object], words: str, counts: Callable[[], tuple]) -> tuple:
    """``do_import`` ends in ``CommandError("import refused: <words>…")`` and ``counts()`` (the
    rows of the layer's tables) is as it was; returns it."""
    before = counts()
    with pytest.raises(CommandError) as refused:
        do_import()
    assert str(refused.value).startswith(f"import refused: {words}")
    assert counts() == before
    return before


def hostile_options(layer_key: str) -> list[tuple[str, object, str]]:
    """(id, the file's ``campaign.options``, the words of the refusal) for ``layer_key``."""
    layer = layers.get(layer_key)
    known = ", ".join(sorted(layer.options))
    cases = [
        ("not an object", ["battle_book"], "campaign.options: must be an object, not ['battle_book']"),
        ("unknown key", {"fog": True}, f"campaign.options.fog: unknown option ({layer.title}'s options: {known})"),
        ("unknown key beside known ones", {"battle_book": "", "zz": 1},
         f"campaign.options.zz: unknown option ({layer.title}'s options: {known})"),
        ("NUL in a key", {"fog\x00": True}, "campaign.options: a key contains a NUL character"),
        ("book not registered", {"battle_book": "chess"},
         "campaign.options.battle_book: battles cannot be fought on the rule book 'chess'; one of: "),
        ("book a number", {"battle_book": 7},
         "campaign.options.battle_book: the rule book for battles must be a rule book's name, not 7"),
        ("book a switch", {"battle_book": True},
         "campaign.options.battle_book: the rule book for battles must be a rule book's name, not True"),
        ("book null", {"battle_book": None},
         "campaign.options.battle_book: the rule book for battles must be a rule book's name, not None"),
        ("book NUL", {"battle_book": "buoyz\x00"}, "campaign.options.battle_book: contains a NUL character"),
        ("book huge number", {"battle_book": 10**30}, "campaign.options.battle_book: the number is outside"),
    ]
    switches = sorted(key for key in layer.options if key != "battle_book")
    for switch in switches[:1]:
        cases += [
            ("switch text", {switch: "true"}, f"campaign.options.{switch}: must be true or false, not 'true'"),
            ("switch a number", {switch: 1}, f"campaign.options.{switch}: must be true or false, not 1"),
            ("switch a fraction", {switch: 0.5}, f"campaign.options.{switch}: must be true or false, not 0.5"),
            ("switch null", {switch: None}, f"campaign.options.{switch}: must be true or false, not None"),
            ("switch a list", {switch: [True]}, f"campaign.options.{switch}: must be true or false, not [True]"),
            ("switch huge number", {switch: -(10**30)}, f"campaign.options.{switch}: the number is outside"),
        ]
    if not switches:  # another layer's switch is an unknown option here
        cases.append(("another layer's switch", {"steered_drift": True},
                      f"campaign.options.steered_drift: unknown option ({layer.title}'s options: {known})"))
    return cases


def welcome_options(layer_key: str) -> list[dict]:
    """Options the lobby takes, which import as they are."""
    layer = layers.get(layer_key)
    switches = {key: True for key in sorted(layer.options) if key != "battle_book"}
    return [{}, {"battle_book": ""}, {"battle_book": "mytrek", **switches},
            {key: False for key in switches}]
