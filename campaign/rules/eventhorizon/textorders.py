"""Event Horizon orders as text, line by line: the mail and "paste orders" form of the JSON of
docs/orders.md. Pure Python (standard library only): ``parse_text`` reads a message, finds the
order block and turns it into the JSON orders (plus the extras that are not turn orders: designs,
the battle preference, ready); ``format_orders`` writes JSON orders back as text. For every
order set ``parse_text(format_orders(x)).orders == x`` (tests/rules/eventhorizon/test_textorders.py).

    #SECTOR <campaign> <seat> <secret> TURN <n>
    BUY planetary_defences AT 3,4
    BUY research_facility AT 3,4 TECH nanobot_skin
    BUILD "Cyber-Corsair Galiot Class Corvette" AT DOCKYARD 1 HERO NAME "Swift"
    REPAIR 7 AT DOCKYARD 1
    SPLIT 3 SHIPS 7,8 AS raiders
    MERGE 4 5
    MOVE 3 TO 4,4 5,4 6,5
    MOVE raiders TO 3,5
    INVASION HEX 3,4 RETREAT TO 2,2
    INVASION FLEET 4 FIGHT
    INVASION FIGHT
    LOSSES cheapest
    INITIATIVE first
    DRIFT TOWARD 5,6
    DESIGN "Sword Class" frigate hull=6 engine=7 force_field=6 weapons=laser_bank:4 stealth_field
    BATTLE auto
    READY
    #END

Keywords are case-insensitive; names with spaces are written in double quotes (``\\"`` and
``\\\\`` inside them). Lines before the header, after ``#END``, quoted reply lines (``> …``),
blank lines and comment lines (``#`` or ``;`` first, other than the header and ``#END``) are
ignored, and so is everything after a mail client's "-----Original Message-----" line (or a
line of underscores) when no header comes before it. Only the shape is checked here (every bad line is
reported with its number); whether the orders are legal is the engine's business (``orders.check_orders``,
``setup``), whose ``where`` (``moves[1].path[2]``) ``ParsedText.line_for`` turns back into a line number.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

TEXT_RULE = "orders as text (explained on the paste-orders page)"
HEADER = "#SECTOR"
END = "#END"
MAX_LINES = 2000  # more is not a turn's orders; the checker refuses it whole
TEMPLATE_WIDTH = 72  # the line length mail programs keep (RFC 3676 recommends 72 at most)
BATTLE_PREFERENCES = ("auto", "tactical", "tabletop", "campaign")  # "campaign": the campaign's mode ("")
KEYWORDS = frozenset({
    "AT", "TO", "TECH", "DOCKYARD", "HERO", "NAME", "SHIPS", "AS", "HEX", "FLEET", "FIGHT", "RETREAT",
    "TOWARD", "AWAY", "BUY", "BUILD", "REPAIR", "SPLIT", "MERGE", "MOVE", "INVASION", "LOSSES",
    "INITIATIVE", "DRIFT", "DESIGN", "BATTLE", "READY", "NOT", "TURN",
})


class TextError(ValueError):
    """A line that is not an order of this language; ``rule`` names the section of docs/orders.md."""

    def __init__(self, message: str, rule: str = TEXT_RULE):
        self.rule, self.message = rule, message
        super().__init__(message)


@dataclass(frozen=True)
class Header:
    campaign: int
    seat: int
    secret: str
    turn: int


@dataclass(frozen=True)
class LineResult:
    """One line of the order block: ``ok`` False with the ``message`` and ``rule`` of what is wrong."""

    number: int  # 1-based, in the text as given
    text: str
    ok: bool = True
    message: str = ""
    rule: str = ""


@dataclass(frozen=True)
class ParsedText:
    header: Header | None
    orders: dict  # the JSON orders (docs/orders.md) of the lines that parsed
    ready: bool | None = None  # READY / NOT READY; None: unchanged
    battle: str | None = None  # BATTLE <mode>; None: unchanged ("campaign" means the campaign's mode)
    designs: tuple[dict, ...] = ()  # DESIGN lines, as design JSON (campaign/rules/eventhorizon/designs.py)
    lines: tuple[LineResult, ...] = ()  # every line of the order block, header and #END included
    error: str | None = None  # what is wrong with the block as a whole (no header, no #END, …)
    places: Mapping[str, int] = field(default_factory=dict)  # JSON place ("moves[1]") -> line number
    design_lines: tuple[int, ...] = ()  # the line of each design
    battle_line: int | None = None
    ready_line: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and all(line.ok for line in self.lines)

    def line_for(self, where: str) -> int | None:
        """The line an engine refusal's ``where`` (``moves[1].path[2]``) points at, if any."""
        best, found = -1, None
        for place, number in self.places.items():
            if (where == place or where.startswith(place + ".") or where.startswith(place + "[")) and len(place) > best:
                best, found = len(place), number
        return found


    def lines_for(self, where: str) -> list[int]:
        """``line_for``, or, for a refusal of a whole list (``moves``: the set-up round takes no
        moves), every line of that list."""
        found = self.line_for(where)
        if found is not None:
            return [found]
        return sorted({n for place, n in self.places.items() if where and place.startswith(where + "[")})


# --- tokens ---------------------------------------------------------------------------------------

_QUOTED = re.compile(r'("(?:[^"\\]|\\.)*")')
_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|(\S+))')
_COORD = re.compile(r"\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?")
_INT = re.compile(r"-?\d+")
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Tok:
    text: str
    quoted: bool

    @property
    def word(self) -> str:
        return "" if self.quoted else self.text.upper()


def tokens(line: str) -> list[Tok]:
    # "3, 4" and "( 3 , 4 )" are one coordinate: join them before splitting on spaces (outside
    # quoted names only).
    parts = _QUOTED.split(line)
    for i in range(0, len(parts), 2):
        part = re.sub(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)", r"\1,\2", parts[i])
        parts[i] = re.sub(r"(-?\d+)\s*,\s*(?=-?\d)", r"\1,", part)
    line = "".join(parts)
    out, pos = [], 0
    while pos < len(line):
        if not line[pos:].strip():
            break
        m = _TOKEN.match(line, pos)
        if m is None or m.end() == pos:
            raise TextError(f"an unterminated quotation near {line[pos:pos + 20].strip()!r}")
        if m.group(1) is not None:
            out.append(Tok(re.sub(r"\\(.)", r"\1", m.group(1)), True))
        else:
            if '"' in m.group(2):
                raise TextError(f"an unterminated quotation near {m.group(2)[:20]!r}")
            out.append(Tok(m.group(2), False))
        pos = m.end()
    return out


class _Reader:
    def __init__(self, toks: list[Tok]):
        self.toks, self.i = toks, 0

    def more(self) -> bool:
        return self.i < len(self.toks)

    def peek(self) -> str:
        return self.toks[self.i].word if self.more() else ""

    def take(self, what: str) -> Tok:
        if not self.more():
            raise TextError(f"{what} is missing at the end of the line")
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def keyword(self, *words: str) -> str:
        tok = self.take(" or ".join(words))
        if tok.word not in words:
            raise TextError(f"expected {' or '.join(words)}, not {tok.text!r}")
        return tok.word

    def optional(self, word: str) -> bool:
        if self.peek() == word:
            self.i += 1
            return True
        return False

    def int(self, what: str) -> int:
        tok = self.take(what)
        if tok.quoted or not _INT.fullmatch(tok.text):
            raise TextError(f"{what} must be a whole number, not {tok.text!r}")
        return int(tok.text)

    def coord(self, what: str) -> list[int]:
        tok = self.take(what)
        m = None if tok.quoted else _COORD.fullmatch(tok.text)
        if m is None:
            raise TextError(f"{what} must be a hex written x,y (e.g. 3,4), not {tok.text!r}")
        return [int(m.group(1)), int(m.group(2))]

    def ints(self, what: str) -> list[int]:
        """``7,8`` or ``7 8`` or ``7, 8``: numbers up to the next keyword."""
        out: list[int] = []
        while self.more() and not self.toks[self.i].quoted and self.peek() not in KEYWORDS:
            tok = self.take(what)
            for part in filter(None, tok.text.split(",")):
                if not _INT.fullmatch(part):
                    raise TextError(f"{what} must be whole numbers, not {part!r}")
                out.append(int(part))
        if not out:
            raise TextError(f"{what} are missing")
        return out

    def fleet(self) -> int | str:
        tok = self.take("the fleet")
        if not tok.quoted and _INT.fullmatch(tok.text):
            return int(tok.text)
        if not tok.quoted and tok.word in KEYWORDS:
            raise TextError(f"the fleet is missing before {tok.text}")
        return tok.text

    def name(self, what: str, *, stop: str | None = None) -> str:
        """A quoted name, or the words up to ``stop`` (or the end of the line)."""
        if self.more() and self.toks[self.i].quoted:
            return self.take(what).text
        words = []
        while self.more() and (stop is None or self.peek() != stop):
            words.append(self.take(what).text)
        if not words:
            raise TextError(f"{what} is missing")
        return " ".join(words)

    def done(self) -> None:
        if self.more():
            rest = " ".join(t.text for t in self.toks[self.i:])
            raise TextError(f"unexpected {rest!r} at the end of the line")


# --- the order lines ------------------------------------------------------------------------------

@dataclass
class _Building:
    orders: dict = field(default_factory=dict)
    places: dict = field(default_factory=dict)
    ready: bool | None = None
    ready_line: int | None = None
    battle: str | None = None
    battle_line: int | None = None
    designs: list = field(default_factory=list)
    design_lines: list = field(default_factory=list)

    def append(self, key: str, value: Any, number: int) -> None:
        items = self.orders.setdefault(key, [])
        self.places[f"{key}[{len(items)}]"] = number
        items.append(value)

    def standing(self) -> dict:
        return self.orders.setdefault("standing", {"invasion": [], "loss_order": "cheapest", "initiative": "first"})


def _buy(r: _Reader) -> dict:
    resource = r.take("the resource").text
    r.keyword("AT")
    item = {"buy": resource, "at": r.coord("the hex")}
    if r.optional("TECH"):
        item["technology"] = r.take("the technology").text
    r.done()
    return item


def _build(r: _Reader) -> dict:
    design = r.name("the design", stop="AT")
    r.keyword("AT")
    r.optional("DOCKYARD")
    item: dict[str, Any] = {"build": design, "dockyard": r.int("the dockyard")}
    while r.more():
        word = r.keyword("HERO", "NAME")
        if word == "HERO":
            item["hero_crew"] = True
        else:
            item["name"] = r.name("the ship's name")
    return item


def _repair(r: _Reader) -> dict:
    ship = r.int("the ship")
    r.keyword("AT")
    r.optional("DOCKYARD")
    item = {"repair": ship, "dockyard": r.int("the dockyard")}
    r.done()
    return item


def _split(r: _Reader) -> dict:
    fleet = r.int("the fleet")
    r.keyword("SHIPS")
    ships = r.ints("the ships")
    r.keyword("AS")
    label = r.take("the new fleet's label").text
    r.done()
    return {"fleet": fleet, "ships": ships, "as": label}


def _merge(r: _Reader) -> dict:
    fleets: list[int | str] = []
    while r.more():
        tok = r.take("a fleet")
        for part in ([tok.text] if tok.quoted else filter(None, tok.text.split(","))):
            fleets.append(int(part) if not tok.quoted and _INT.fullmatch(part) else part)
    if len(fleets) < 2:
        raise TextError("a merge names two or more fleets: MERGE 4 5")
    return {"fleets": fleets}


def _move(r: _Reader) -> dict:
    fleet = r.fleet()
    r.optional("TO")
    path = []
    while r.more():
        path.append(r.coord("a hex of the path"))
    if not path:
        raise TextError("a move needs the hexes entered: MOVE 3 TO 4,4 5,4")
    return {"fleet": fleet, "path": path}


def _invasion(r: _Reader) -> dict:
    item: dict[str, Any] = {}
    word = r.keyword("HEX", "FLEET", "FIGHT", "RETREAT")
    if word == "HEX":
        item["hex"] = r.coord("the hex")
        word = r.keyword("FIGHT", "RETREAT")
    elif word == "FLEET":
        item["fleet"] = r.int("the fleet")
        word = r.keyword("FIGHT", "RETREAT")
    item = {"response": word.lower(), **item}
    if r.optional("TO"):
        item["retreat_to"] = r.coord("where to retreat")
    r.done()
    return item


def _design(r: _Reader) -> dict:
    spec: dict[str, Any] = {"name": r.name("the design's name")}
    if not r.more():
        raise TextError("a design needs its ship type: DESIGN \"Sword Class\" frigate hull=6 engine=7 …")
    spec["ship_type"] = r.take("the ship type").text
    while r.more():
        tok = r.take("a component")
        if tok.quoted:
            raise TextError(f"a component is written key=value, not {tok.text!r}")
        key, eq, value = tok.text.partition("=")
        if not _BARE.fullmatch(key):
            raise TextError(f"a component is written key=value, not {tok.text!r}")
        if key in spec:
            raise TextError(f"{key} is given twice")
        if key == "weapons":
            weapons: dict[str, int] = {}
            for part in filter(None, value.split(",")):
                wkey, colon, count = part.partition(":")
                if not colon or not _INT.fullmatch(count) or not wkey:
                    raise TextError(f"weapons are written weapons=key:count,key:count, not {part!r}")
                weapons[wkey] = int(count)
            spec["weapons"] = weapons
        elif not eq or value.lower() == "yes":
            spec[key] = True
        elif value.lower() == "no":
            spec[key] = False
        elif value.lower() == "none":
            spec[key] = None
        elif _INT.fullmatch(value):
            spec[key] = int(value)
        else:
            raise TextError(f"{key} must be a number, yes, no or none, not {value!r}")
    return spec


def _order_line(b: _Building, r: _Reader, number: int) -> None:
    word = r.take("an order").word
    if word == "BUY":
        b.append("purchases", _buy(r), number)
    elif word == "BUILD":
        b.append("purchases", _build(r), number)
    elif word == "REPAIR":
        b.append("purchases", _repair(r), number)
    elif word == "SPLIT":
        b.append("split", _split(r), number)
    elif word == "MERGE":
        b.append("merge", _merge(r), number)
    elif word == "MOVE":
        b.append("moves", _move(r), number)
    elif word == "INVASION":
        item = _invasion(r)
        invasion = b.standing()["invasion"]
        b.places[f"standing.invasion[{len(invasion)}]"] = number
        invasion.append(item)
    elif word in ("LOSSES", "INITIATIVE"):
        key = "loss_order" if word == "LOSSES" else "initiative"
        value = r.take("the choice").text.lower()
        r.done()
        if f"standing.{key}" in b.places:
            raise TextError(f"{word} is given twice (first on line {b.places[f'standing.{key}']})")
        b.standing()[key] = value
        b.places[f"standing.{key}"] = number
    elif word == "DRIFT":
        mode = r.keyword("TOWARD", "AWAY")
        if mode == "AWAY":
            r.optional("FROM")
        hex_ = r.coord("the hex")
        r.done()
        if "standing.drift" in b.places:
            raise TextError(f"DRIFT is given twice (first on line {b.places['standing.drift']})")
        b.standing()["drift"] = {("toward" if mode == "TOWARD" else "away_from"): hex_}
        b.places["standing.drift"] = number
    elif word == "STANDING":
        r.done()  # standing orders given, all at their defaults unless other lines say otherwise
        b.standing()
        b.places.setdefault("standing", number)
    elif word == "DESIGN":
        b.designs.append(_design(r))
        b.design_lines.append(number)
    elif word == "BATTLE":
        mode = r.take("the battle preference").text.lower()
        r.done()
        if mode not in BATTLE_PREFERENCES:
            raise TextError(f"BATTLE takes one of {', '.join(BATTLE_PREFERENCES)}, not {mode!r}")
        if b.battle_line is not None:
            raise TextError(f"BATTLE is given twice (first on line {b.battle_line})")
        b.battle, b.battle_line = mode, number
    elif word in ("READY", "NOT"):
        if word == "NOT":
            r.keyword("READY")
        r.done()
        if b.ready_line is not None:
            raise TextError(f"READY is given twice (first on line {b.ready_line})")
        b.ready, b.ready_line = word == "READY", number
    else:
        raise TextError(f"unknown order {r.toks[0].text!r} (BUY, BUILD, REPAIR, SPLIT, MERGE, MOVE, INVASION, "
                        "LOSSES, INITIATIVE, DRIFT, STANDING, DESIGN, BATTLE, READY, NOT READY)")


def parse_header(line: str) -> Header:
    toks = tokens(line)
    if len(toks) != 6 or toks[0].word != HEADER or toks[4].word != "TURN":
        raise TextError(f"the header is {HEADER} <campaign> <seat> <order secret> TURN <n>")
    nums = {}
    for what, tok in (("the campaign", toks[1]), ("the seat", toks[2]), ("the turn", toks[5])):
        if tok.quoted or not re.fullmatch(r"\d{1,9}", tok.text):
            raise TextError(f"{what} in the header must be a number, not {tok.text!r}")
        nums[what] = int(tok.text)
    return Header(campaign=nums["the campaign"], seat=nums["the seat"], secret=toks[3].text, turn=nums["the turn"])


def _is_quoted_reply(line: str) -> bool:
    return line.lstrip().startswith(">")


# Mail clients that quote without '>' put the message answered below a separator line; nothing
# after one is the sender's own (so a reply that only says "thanks" never resends the template).
_ORIGINAL_MESSAGE = re.compile(r"\s*(-{2,}\s*original message\s*-{2,}|_{20,})\s*", re.IGNORECASE)


def parse_text(text: str) -> ParsedText:
    """Find the order block (from the first unquoted ``#SECTOR`` line to ``#END``) and read it."""
    raw_lines = text.splitlines()
    if len(raw_lines) > MAX_LINES:
        return ParsedText(header=None, orders={}, error=f"the message has more than {MAX_LINES} lines")
    start = None
    for i, line in enumerate(raw_lines):
        if _ORIGINAL_MESSAGE.fullmatch(line):
            break
        if not _is_quoted_reply(line) and line.strip().upper().startswith(HEADER):
            start = i
            break
    if start is None:
        return ParsedText(header=None, orders={},
                          error=f"no order block: the orders start with a line {HEADER} <campaign> <seat> "
                                "<order secret> TURN <n> (a quoted line, '> …', does not count)")
    results: list[LineResult] = []
    header = None
    first = raw_lines[start].strip()
    try:
        header = parse_header(first)
        results.append(LineResult(start + 1, first))
    except TextError as exc:
        results.append(LineResult(start + 1, first, False, exc.message, exc.rule))
    b = _Building()
    ended = False
    for i in range(start + 1, len(raw_lines)):
        number, line = i + 1, raw_lines[i].strip()
        if not line or _is_quoted_reply(line):
            continue
        upper = line.upper()
        if upper == END or upper.startswith(END + " "):
            results.append(LineResult(number, line))
            ended = True
            break
        if upper.startswith(HEADER):
            results.append(LineResult(number, line, False, f"a second {HEADER} header before {END}", TEXT_RULE))
            continue
        if line[0] in "#;":
            continue  # a comment
        try:
            _order_line(b, _Reader(tokens(line)), number)
        except TextError as exc:
            results.append(LineResult(number, line, False, exc.message, exc.rule))
        else:
            results.append(LineResult(number, line))
    error = None if ended else f"the order block has no {END} line (was the message cut short?)"
    if header is None and error is None:
        error = "the header line is wrong: " + results[0].message
    return ParsedText(header=header, orders=b.orders, ready=b.ready, battle=b.battle, designs=tuple(b.designs),
                      lines=tuple(results), error=error, places=dict(b.places),
                      design_lines=tuple(b.design_lines), battle_line=b.battle_line, ready_line=b.ready_line)


# --- writing orders as text -----------------------------------------------------------------------

def quote(name: str) -> str:
    if len(("x" + name + "x").splitlines()) != 1:
        raise ValueError(f"a name cannot hold a line break: {name!r}")
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _label(value: int | str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    text = str(value)
    return text if _BARE.fullmatch(text) and text.upper() not in KEYWORDS else quote(text)


def _xy(coord: Sequence[int]) -> str:
    return f"{coord[0]},{coord[1]}"


def _purchase_line(p: Mapping) -> str:
    if "buy" in p:
        line = f"BUY {_label(p['buy'])} AT {_xy(p['at'])}"
        if p.get("technology") is not None:
            line += f" TECH {_label(p['technology'])}"
        return line
    if "build" in p:
        line = f"BUILD {quote(p['build'])} AT DOCKYARD {p['dockyard']}"
        if p.get("hero_crew"):
            line += " HERO"
        if p.get("name"):
            line += f" NAME {quote(p['name'])}"
        return line
    if "repair" in p:
        return f"REPAIR {p['repair']} AT DOCKYARD {p['dockyard']}"
    raise ValueError(f"not a purchase: {p!r}")


def _design_line(spec: Mapping) -> str:
    parts = [f"DESIGN {quote(spec['name'])} {_label(spec['ship_type'])}"]
    for key, value in spec.items():
        if key in ("name", "ship_type"):
            continue
        if key == "weapons":
            parts.append("weapons=" + ",".join(f"{k}:{n}" for k, n in value.items()))
        elif value is True:
            parts.append(key)
        elif value is False:
            parts.append(f"{key}=no")
        elif value is None:
            parts.append(f"{key}=none")
        else:
            parts.append(f"{key}={int(value)}")
    return " ".join(parts)


def format_header(header: Header) -> str:
    return f"{HEADER} {header.campaign} {header.seat} {header.secret} TURN {header.turn}"


def format_orders(orders: Mapping, *, header: Header | None = None, ready: bool | None = None,
                  battle: str | None = None, designs: Sequence[Mapping] = (),
                  comments: Sequence[str] = ()) -> str:
    """JSON orders (docs/orders.md) as text, one order a line; with ``header``, the whole block
    from ``#SECTOR`` to ``#END``. ``comments`` are written as ``#`` lines after the header.
    Raises ValueError for orders that are not of the documented shape."""
    lines: list[str] = []
    if header is not None:
        lines.append(format_header(header))
    # Notes wrapped at 72 characters: a mail program that wraps longer lines (plain text without
    # format=flowed) would turn the rest of a long note into a line that is no order.
    lines += [f"# {chunk}" for c in comments for chunk in (textwrap.wrap(c, width=TEMPLATE_WIDTH - 2) or [""])]
    try:
        for spec in designs:
            lines.append(_design_line(spec))
        for p in orders.get("purchases", []):
            lines.append(_purchase_line(p))
        for s in orders.get("split", []):
            lines.append(f"SPLIT {s['fleet']} SHIPS {','.join(str(n) for n in s['ships'])} AS {_label(s['as'])}")
        for m in orders.get("merge", []):
            lines.append("MERGE " + " ".join(_label(f) for f in m["fleets"]))
        for m in orders.get("moves", []):
            lines.append(f"MOVE {_label(m['fleet'])} TO " + " ".join(_xy(c) for c in m["path"]))
        if "standing" in orders:
            s = orders["standing"]
            lines.append("STANDING")
            for o in s.get("invasion", []):
                where = (f" HEX {_xy(o['hex'])}" if o.get("hex") is not None
                         else f" FLEET {o['fleet']}" if o.get("fleet") is not None else "")
                line = f"INVASION{where} {o.get('response', 'fight').upper()}"
                if o.get("retreat_to") is not None:
                    line += f" TO {_xy(o['retreat_to'])}"
                lines.append(line)
            lines.append(f"LOSSES {s.get('loss_order', 'cheapest')}")
            lines.append(f"INITIATIVE {s.get('initiative', 'first')}")
            if s.get("drift"):
                (mode, hex_), = s["drift"].items()
                lines.append(f"DRIFT {'TOWARD' if mode == 'toward' else 'AWAY FROM'} {_xy(hex_)}")
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"these orders are not of the documented shape: {exc!r}") from None
    if battle is not None:
        lines.append(f"BATTLE {battle}")
    if ready is not None:
        lines.append("READY" if ready else "NOT READY")
    if header is not None:
        lines.append(END)
    return "\n".join(lines) + "\n"
