"""One input-sanitising layer for everything a client sends (issue 14, item 5).

Every JSON body, form post and query string passes the same rules before any view or action
sees it, so no hostile value reaches the database (where PostgreSQL refuses it with a 500) or
Python's recursion limit:

* **text** (every string, dictionary keys included) holds no NUL (``\\u0000``: PostgreSQL
  cannot store it in text or ``jsonb``) and no lone surrogate (``\\ud800``–``\\udfff`` without
  its pair: not encodable as UTF-8);
* **JSON** nests at most ``MAX_DEPTH`` levels (a body nested 50,000 deep would raise
  ``RecursionError``), holds no ``NaN`` / ``Infinity`` and no number outside the database's
  integer range, ``INT_MIN`` … ``INT_MAX`` (no whole number the site stores is larger; an id
  or a BP total beyond it would overflow a PostgreSQL ``integer`` column), and a body is at most
  ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (Django's own limit for form bodies, 2.5 MB).

Where it applies:

* ``InputSanityMiddleware`` (settings.MIDDLEWARE) checks every request's query string, form
  body (``request.POST``) and JSON body, on every URL, and answers 400 naming the field and
  the problem (JSON ``{"detail": …}`` for the API and JSON bodies, a page otherwise);
* the DRF parsers below (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``) apply the same rules to
  ``request.data``, so an API view is covered however it is called;
* ``loads`` is the JSON reader for JSON typed into forms (the orders page's text area, the
  embedded battle's action field) and for ``importcampaign``.

Nothing here knows an endpoint: the rules hold for all of them (docs/online-play.md, "Input").
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from django.shortcuts import render
from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 64
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
_MAX_DIGITS = 100  # longer integer literals are refused before int() parses them (no path then)
_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class HostileInput(ValueError):
    """A value the site refuses whatever the endpoint; ``str()`` names where and why."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}")
        self.where, self.problem = where, problem


_WHOLE = re.compile(r"-?[0-9]{1,10}")


def whole_number(text: Any, *, negative: bool = False) -> int | None:
    """The whole number typed as ``text`` ("12", " 12 "), or None: ASCII digits only and within
    the database's integer range. ``str.isdigit`` is not enough: it passes "²" and "①", which
    ``int()`` then refuses with a ValueError (a 500 wherever a view trusted it)."""
    if not isinstance(text, str) or not _WHOLE.fullmatch(text.strip()):
        return None
    value = int(text.strip())
    if not INT_MIN <= value <= INT_MAX or (value < 0 and not negative):
        return None
    return value


def text_problem(text: str) -> str | None:
    """Why this text cannot be stored, or None."""
    bad = _BAD_TEXT.search(text)
    if bad is None:
        return None
    if bad.group() == "\x00":
        return "contains a NUL character (\\u0000), which text may not hold"
    return f"contains a lone surrogate (\\u{ord(bad.group()):04x}), which is not a character"


def _key_path(where: str, key: Any) -> str:
    if isinstance(key, str) and _NAME.match(key):
        return f"{where}.{key}" if where else key
    return f"{where}[{json.dumps(key, ensure_ascii=True) if isinstance(key, str) else key}]"


def _short(where: str) -> str:
    return where if len(where) <= 200 else where[:200] + "…"


def _path(where: str, node) -> str:
    """The path of a value from its chain of (parent, key) links, built only for an error."""
    keys = []
    while node is not None:
        node, key = node
        keys.append(key)
    path = where
    for key in reversed(keys):
        path = _key_path(path, key)  # a list position spells as [i], as a key that is no name
    return _short(path)


def _plainly_clean(value: Any, max_depth: int) -> bool:
    """True when ``check`` would find nothing: every container a dict or a list within the depth,
    every leaf a str, an int in range, a bool or None, no string or key with a bad character.
    Anything else (a float, another type, a problem) is False and ``check``'s walk decides, so
    a value this passes is one ``check`` passes and a refused value gets ``check``'s own error.
    Leaves are looked at where their container is, with no path links: most of a body is leaves."""
    if type(value) is not dict and type(value) is not list:
        return False
    search = _BAD_TEXT.search
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= max_depth:
            return False
        if type(item) is dict:
            for key in item:
                if type(key) is str and search(key):
                    return False
            children = item.values()
        else:
            children = item
        depth += 1
        for child in children:
            kind = type(child)
            if kind is str:
                if search(child):
                    return False
            elif kind is int:
                if not INT_MIN <= child <= INT_MAX:
                    return False
            elif kind is dict or kind is list:
                stack.append((child, depth))
            elif kind is not bool and child is not None:
                return False
    return True


def check(value: Any, where: str = "body", *, max_depth: int = MAX_DEPTH) -> None:
    """Refuse hostile text and numbers anywhere in a decoded JSON value (iteratively: no
    recursion, whatever the depth). Raises ``HostileInput`` naming the first problem's path,
    e.g. ``body.orders.builds[2].name: contains a NUL character …``.

    Every request with a JSON body passes here, so the walk is lean: paths are kept as links to
    the parent and spelt out only for the error, and the common types are told by ``type()``;
    a plain body (``_plainly_clean``) is passed without the links at all."""
    if _plainly_clean(value, max_depth):
        return
    stack: list[tuple[Any, Any, int]] = [(value, None, 0)]
    search = _BAD_TEXT.search
    while stack:
        item, node, depth = stack.pop()
        kind = type(item)
        if kind is str:
            if search(item):
                raise HostileInput(_path(where, node), text_problem(item))
        elif kind is bool or item is None:
            continue
        elif kind is int or (isinstance(item, int) and not isinstance(item, bool)):
            if not INT_MIN <= item <= INT_MAX:
                raise HostileInput(_path(where, node), f"the number is outside {INT_MIN} … {INT_MAX}")
        elif kind is float:
            if not math.isfinite(item) or not INT_MIN <= item <= INT_MAX:
                raise HostileInput(_path(where, node), f"the number is outside {INT_MIN} … {INT_MAX}")
        elif kind is dict or kind is list or isinstance(item, (Mapping, list, tuple)):
            if depth >= max_depth:
                raise HostileInput(_path(where, node), f"nested more than {max_depth} levels deep")
            depth += 1
            # A list is told from a mapping by its type: isinstance(…, Mapping) is an ABC's check.
            if kind is dict or (kind is not list and isinstance(item, Mapping)):
                children = []
                for key, child in item.items():
                    if type(key) is str and search(key):
                        raise HostileInput(_path(where, node), f"a key {text_problem(key)}")
                    children.append((child, (node, key), depth))
            else:
                children = [(child, (node, i), depth) for i, child in enumerate(item)]
            children.reverse()
            stack.extend(children)
        elif isinstance(item, str):
            problem = text_problem(item)
            if problem:
                raise HostileInput(_path(where, node), problem)
        elif isinstance(item, float):
            if not math.isfinite(item) or not INT_MIN <= item <= INT_MAX:
                raise HostileInput(_path(where, node), f"the number is outside {INT_MIN} … {INT_MAX}")


def _parse_int(literal: str) -> int:
    if len(literal.lstrip("-")) > _MAX_DIGITS:
        raise HostileInput("number", f"{literal[:20]}… is outside {INT_MIN} … {INT_MAX}")
    return int(literal)


def _parse_constant(name: str):
    raise HostileInput("number", f"{name} is not a JSON number")


class _FloatSeen(Exception):
    """A float literal in text read by ``_plain_loads``: the full path reads it again."""


def _float_seen(literal: str):
    raise _FloatSeen


_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")
_BRACKETS_ONLY = {code: None for code in range(128) if chr(code) not in "[]{}"}


def _nested_deeper(text: str, most: int) -> bool:
    """Whether the containers of ``text`` (valid ASCII JSON with no backslash, so no quote is
    escaped) nest more than ``most`` levels: its brackets outside strings, innermost pairs taken
    off step by step (a step takes at most one level off any nesting, so the steps that took
    something off are at least the levels)."""
    if text.count("[") + text.count("{") <= most:
        return False  # no more levels than brackets, strings' included
    skeleton = "".join(text.split('"')[::2]).translate(_BRACKETS_ONLY)
    steps = 0
    while skeleton:
        before = len(skeleton)
        for pair in ("[]", "{}"):
            shorter = skeleton.replace(pair, "")
            if len(shorter) < len(skeleton):
                steps, skeleton = steps + 1, shorter
        if steps > most or len(skeleton) == before:
            return True  # too deep (or not JSON after all: the full walk decides)
    return False


def _plain_loads(text: str, max_depth: int):
    """The decoded value of ``text`` when the text alone shows that ``check`` finds nothing in it,
    else None (the full path reads it): ASCII with no NUL and no backslash (so no string or key
    holds a NUL or a lone surrogate, not even escaped), no run of ten digits (so every whole number
    has at most nine and is in range, and ``_parse_int`` has nothing to refuse), no float
    (``_FloatSeen``), and at most ``max_depth`` levels. Most bodies are such: these scans run at C
    speed and the numbers are read by the C decoder, instead of a Python call per number and a
    walk of every value. A hostile literal (``NaN``) raises as on the full path."""
    if not text.isascii() or "\x00" in text or "\\" in text or "0000000000" in text.translate(_DIGITS_AS_ZERO):
        return None
    try:
        value = json.loads(text, parse_float=_float_seen, parse_constant=_parse_constant)
    except (_FloatSeen, RecursionError):
        return None
    if value is None or _nested_deeper(text, max_depth):
        return None  # null itself is read again: None here means "not plain"
    return value


def loads(text: str | bytes, where: str = "body", *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that never recurses out of the stack and checks the result (``check``).
    Raises ``HostileInput`` for hostile content, ``ValueError`` (``json.JSONDecodeError`` or a
    ``UnicodeDecodeError``) for text that is not JSON. Text that is plainly clean
    (``_plain_loads``) is read without the per-number hook and the walk."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    try:
        value = _plain_loads(text, max_depth)
    except HostileInput as exc:
        raise HostileInput(where, exc.problem) from None
    return _checked_loads(text, where, max_depth) if value is None else value


def _checked_loads(text: str, where: str, max_depth: int) -> Any:
    """``loads`` the long way: every whole number through ``_parse_int``, then ``check``'s walk."""
    try:
        value = json.loads(text, parse_int=_parse_int, parse_constant=_parse_constant)
    except RecursionError:
        raise HostileInput(where, f"nested more than {max_depth} levels deep") from None
    except HostileInput as exc:
        raise HostileInput(where, exc.problem) from None
    check(value, where, max_depth=max_depth)
    return value


def check_fields(data, where: str) -> None:
    """Check a QueryDict's keys and values (a form post or a query string)."""
    for key, values in data.lists():
        problem = text_problem(key)
        if problem:
            raise HostileInput(where, f"a field name {problem}")
        for value in values:
            if isinstance(value, str):
                problem = text_problem(value)
                if problem:
                    raise HostileInput(f"{where} field '{key}'", problem)


# --- DRF: the default parsers (settings.REST_FRAMEWORK) ----------------------------------------


def max_body_bytes() -> int | None:
    return getattr(settings, "DATA_UPLOAD_MAX_MEMORY_SIZE", None)


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser with the rules above: a bounded body, bounded depth, sane text and
    numbers; anything else is a 400 (``ParseError``) naming the problem."""

    def parse(self, stream, media_type=None, parser_context=None):
        if stream is None:
            return None
        checked = getattr(getattr((parser_context or {}).get("request"), "_request", None), "_sanitised_json", None)
        if (
            checked is not None
            and (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET) == settings.DEFAULT_CHARSET
        ):
            # InputSanityMiddleware decoded and checked this very body already (same rules).
            return checked
        limit = max_body_bytes()
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise ParseError(f"body: is larger than {limit} bytes")
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return loads(raw.decode(encoding))
        except HostileInput as exc:
            raise ParseError(str(exc)) from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None


class PlainTextParser(parsers.BaseParser):
    """``text/plain`` bodies (orders as text, docs/orders.md): bounded, UTF-8, no NUL and no lone
    surrogate; the view receives the text as a ``str``."""

    media_type = "text/plain"

    def parse(self, stream, media_type=None, parser_context=None):
        if stream is None:
            return ""
        checked = getattr(getattr((parser_context or {}).get("request"), "_request", None), "_sanitised_json", None)
        if (
            checked is not None
            and (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET) == settings.DEFAULT_CHARSET
        ):
            # InputSanityMiddleware decoded and checked this very body already (same rules).
            return checked
        limit = max_body_bytes()
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise ParseError(f"body: is larger than {limit} bytes")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ParseError("body: is not valid UTF-8 text") from None
        problem = text_problem(text)
        if problem:
            raise ParseError(f"body: {problem}")
        return text


class FormParser(parsers.FormParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        try:
            check_fields(data, "form")
        except HostileInput as exc:
            raise ParseError(str(exc)) from None
        return data


class MultiPartParser(parsers.MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None):
        result = super().parse(stream, media_type, parser_context)
        try:
            check_fields(result.data, "form")
        except HostileInput as exc:
            raise ParseError(str(exc)) from None
        return result


# --- every request: the middleware ---------------------------------------------------------------

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})


def _is_json(content_type: str) -> bool:
    return content_type == "application/json" or content_type.endswith("+json")


def check_request(request) -> None:
    """Raise ``HostileInput`` if anything the request carries breaks the rules."""
    check_fields(request.GET, "query")
    if request.method not in _BODY_METHODS:
        return
    content_type = request.content_type or ""
    if content_type in _FORM_TYPES and request.method == "POST":
        check_fields(request.POST, "form")
    elif content_type == "text/plain":
        try:
            text = request.body.decode("utf-8")
        except RequestDataTooBig:
            raise HostileInput("body", f"is larger than {max_body_bytes()} bytes") from None
        except UnicodeDecodeError:
            raise HostileInput("body", "is not valid UTF-8 text") from None
        problem = text_problem(text)
        if problem:
            raise HostileInput("body", problem)
    elif _is_json(content_type):
        try:
            body = request.body
        except RequestDataTooBig:
            raise HostileInput("body", f"is larger than {max_body_bytes()} bytes") from None
        if not body:
            return
        try:
            text = body.decode(request.encoding or settings.DEFAULT_CHARSET)
        except (UnicodeDecodeError, LookupError):
            raise HostileInput("body", "is not valid UTF-8 text") from None
        try:
            # Kept for JSONParser, so the body is decoded and walked once per request.
            request._sanitised_json = loads(text)
        except HostileInput:
            raise
        except ValueError:
            return  # not JSON at all: the parser answers that with its own 400


def _wants_json(request) -> bool:
    return request.path.startswith("/api/") or _is_json(request.content_type or "")


class InputSanityMiddleware:
    """Answers 400 naming the problem when a request carries hostile input (see the module)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            check_request(request)
        except HostileInput as exc:
            message = f"Refused: {exc}."
            if _wants_json(request):
                return JsonResponse({"detail": message}, status=400)
            return render(request, "refused.html", {"message": message}, status=400)
        return self.get_response(request)
