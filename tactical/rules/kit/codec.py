"""Reading a book's actions from JSON (pure Python, standard library only).

Every book's codec (``play/codec.py``: ``to_json``/``from_json``) makes the same first checks and
reads fields the same way; they are here, so its own code is only its actions' shapes.

``action_type(data, fields, error)``
    The ``type`` of one action read from JSON, after the checks every codec makes first: an
    object, a known type (a key of ``fields``), no field that type does not have. ``error(message)``
    is raised naming what is wrong.
``whole_number(value, negative=True)``
    A whole number sent as a JSON integer or as ASCII digits, else None.
``FormatError``
    The base of a book's format error: ``class ActionFormatError(kit.FormatError): RULE = "…"``
    raises ``ActionFormatError(message)``, an ``IllegalActionError`` citing ``RULE``.
``Fields(error)``
    The field readers of one codec, each raising ``error(message)`` in the same words for every
    book: ``kind(data, fields)`` (``action_type``), ``whole(data, name, kind, optional=…,
    required=…)``, ``flag(data, name, default=False, nullable=False)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import IllegalActionError

_WHOLE = re.compile(r"-?[0-9]{1,15}")


def whole_number(value: Any, *, negative: bool = True) -> int | None:
    """A whole number sent as a JSON integer or as ASCII digits ("12", " -3 "), else None (true,
    1.5, "x"). Every rule book's codec reads numbers with it: ``str.isdigit`` is not enough (it
    passes "²", which ``int()`` refuses), nor ``int()`` alone (it reads true and 1.5 as 1), and
    at most 15 digits (``int()`` of thousands of digits is a ValueError). ``negative=False``:
    None for a number below 0."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        value = int(value.strip())
    if not isinstance(value, int):
        return None
    return value if negative or value >= 0 else None


def action_type(data: Any, fields: Mapping[str, set[str]], error: Callable[[str], Exception]) -> str:
    """The ``type`` of one action read from JSON, after the checks every rule book's codec makes
    first: an object, a known type, no field that type does not have. ``error`` is the rule
    book's own format error (an ``IllegalActionError``), raised naming what is wrong."""
    if not isinstance(data, Mapping):
        raise error(f"an action is a JSON object with a 'type', not {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in fields:
        raise error(f"unknown action type {kind!r}; one of: {', '.join(sorted(fields))}")
    unknown = set(data) - fields[kind] - {"type"}
    if unknown:
        raise error(f"a {kind} action has no field(s) {', '.join(sorted(map(str, unknown)))}")
    return kind


class FormatError(IllegalActionError):
    """JSON that is not one of the book's actions; a book subclasses it with its ``RULE`` (where
    its format is written down) and raises ``ActionFormatError(message)``."""

    RULE = "action format"

    def __init__(self, message: str):
        super().__init__(self.RULE, message)


@dataclass(frozen=True)
class Fields:
    """The field readers of one book's codec; each refusal is ``error(message)``."""

    error: Callable[[str], Exception]

    def kind(self, data: Any, fields: Mapping[str, set[str]]) -> str:
        return action_type(data, fields, self.error)

    def whole(self, data: Mapping, name: str, kind: str, *, optional: bool = False,
              required: bool = False) -> int | None:
        """Field ``name`` of a ``kind`` action, a whole number; ``optional``: None when it is
        null or absent; ``required``: an absent field is named as missing."""
        if required and name not in data:
            raise self.error(f"a {kind} action needs {name!r}")
        value = data.get(name)
        if value is None and optional:
            return None
        number = whole_number(value)
        if number is None:
            raise self.error(f"{name!r} of a {kind} action must be a whole number, not {value!r}"[:300])
        return number

    def flag(self, data: Mapping, name: str, *, default: bool | None = False, nullable: bool = False) -> bool | None:
        """Field ``name``, true or false (``nullable``: or null); ``default`` when absent."""
        value = data.get(name, default)
        if isinstance(value, bool) or (nullable and value is None):
            return value
        raise self.error(f"{name!r} must be true{', false or null' if nullable else ' or false'}, not {value!r}")


__all__ = ["Fields", "FormatError", "action_type", "whole_number"]
