"""Fast copies of an engine's frozen dataclasses (pure Python, standard library only).

Engines keep their whole state in frozen dataclasses and make a new value for every change.
``dataclasses.replace`` re-runs ``__init__`` and is several times too slow for a doctrine that
tries thousands of moves, so every book uses these instead:

``evolve(obj, **changes)``
    ``dataclasses.replace`` without ``__init__`` for a *plain* dataclass (every field set by
    ``__init__``, no ``__post_init__``, no ``__slots__``): the instance dict is copied and the
    changes set. Anything else, and an unknown field, goes through ``dataclasses.replace`` itself
    (which raises ``TypeError`` for a field the class does not have).
``derive(obj, changes)``
    ``evolve`` for hot paths: ``changes`` (a dict) must name fields of ``obj``; not checked.
``build(cls, values)``
    A value of ``cls`` from a dict of every one of its fields, without ``__init__`` (not checked).

Cached look-ups. A class may keep look-ups it derives from its fields in its instance dict
(``self.__dict__["_index"] = …``; ``functools.cached_property`` takes a lock on every read in
Python 3.11). It declares which field each depends on in a class attribute ``_cached_from``:
``{"ships": ("_index", "occupied"), "field": ("_lines",)}``. ``evolve``/``derive`` drop a
look-up when a field it depends on changes and carry it over otherwise. A class without
``_cached_from`` whose instance dict holds more than its fields goes through ``replace``.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

_PLAIN: dict[type, frozenset[str] | None] = {}
_new = object.__new__
_set = object.__setattr__


def _plain_fields(cls: type, obj: Any) -> frozenset[str] | None:
    names = _PLAIN.get(cls, False)
    if names is False:
        plain = (hasattr(obj, "__dict__") and not hasattr(cls, "__post_init__") and not hasattr(cls, "__slots__")
                 and all(f.init for f in fields(obj)))
        names = _PLAIN[cls] = frozenset(f.name for f in fields(obj)) if plain else None
    return names


def evolve(obj: Any, /, **changes: Any) -> Any:
    """A copy of the frozen dataclass ``obj`` with ``changes``; see the module's docstring."""
    cls = type(obj)
    names = _plain_fields(cls, obj)
    if names is None or not names.issuperset(changes):
        return replace(obj, **changes)
    cached = getattr(cls, "_cached_from", None)
    if cached is None:
        if len(obj.__dict__) != len(names):
            return replace(obj, **changes)
        values = obj.__dict__.copy()
        values.update(changes)
        new = _new(cls)
        _set(new, "__dict__", values)
        return new
    return derive(obj, changes)


def derive(obj: Any, changes: dict[str, Any]) -> Any:
    """``evolve(obj, **changes)`` for hot paths: ``changes`` must name fields of ``obj``."""
    state = obj.__dict__.copy()
    cached = getattr(type(obj), "_cached_from", None)
    if cached:
        for name in changes:
            for key in cached.get(name, ()):
                state.pop(key, None)
    state.update(changes)
    new = _new(type(obj))
    _set(new, "__dict__", state)
    return new


def build(cls: type, values: dict[str, Any]) -> Any:
    """A frozen value of ``cls`` from a dict of every one of its fields, in order (not checked)."""
    new = _new(cls)
    _set(new, "__dict__", values)
    return new


__all__ = ["build", "derive", "evolve"]
