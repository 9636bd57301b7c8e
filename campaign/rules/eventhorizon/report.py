"""A player's turn report: the turn's events that concern them, grouped by step of the turn
sequence, plus their position and victory status afterwards. Pure Python; events are the JSON
form stored with each processed turn (``step``, ``kind``, ``seats``, ``text``, ``data``,
``public``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .fog import events_for

# Steps of "003 Campaign Turn Sequence" in the order the pipeline runs them.
SECTIONS = (
    ("setup", "Set-up purchases"),  # the set-up round (turn 0, 003 Set Up)
    ("spending", "Purchases"),
    ("initiative", "Initiative"),
    ("movement", "Movement"),
    ("invasions", "Invasions"),
    ("neutral_worlds", "Neutral worlds"),
    ("battles", "Battles"),
    ("builds", "Dockyards"),
    ("trade", "Trade routes"),
    ("victory", "Victory and elimination"),
    ("income", "Income"),
)


@dataclass(frozen=True)
class Section:
    step: str
    title: str
    lines: tuple[str, ...]
    events: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class TurnReport:
    campaign: str
    turn: int
    seat: int | None  # None: the moderator's full report
    empire: str
    sections: tuple[Section, ...]
    position: tuple[str, ...] = ()
    victory: tuple[str, ...] = ()
    names: Mapping[int, str] = field(default_factory=dict, compare=False)  # seat -> empire name

    def as_dict(self) -> dict:
        return {
            "campaign": self.campaign,
            "turn": self.turn,
            "seat": self.seat,
            "empire": self.empire,
            "sections": [
                {
                    "step": s.step,
                    "title": s.title,
                    "lines": list(s.lines),
                    "events": [dict(e) for e in s.events],
                }
                for s in self.sections
            ],
            "position": list(self.position),
            "victory": list(self.victory),
        }


def visible_to(event: Mapping[str, Any], seat: int | None) -> bool:
    return seat is None or event.get("public", False) or seat in event.get("seats", ())


def build_report(*, campaign: str, turn: int, seat: int | None, empire: str, events: Iterable[Mapping[str, Any]],
                 position: Iterable[str] = (), victory: Iterable[str] = (),
                 detected: frozenset | None = frozenset(), names: Mapping[int, str] | None = None,
                 battle_pages: Mapping[int, str] | None = None) -> TurnReport:
    """``detected``: the cells the seat detects after the turn (fog of war); where another
    empire's fleet went is reported only inside them. None: no fog (every cell). ``names``
    (seat -> empire name): the full report (``seat`` None) says whose each private event is.
    ``battle_pages`` (a battle's index in its turn -> the address of its page): the pages the
    reader may open; a battle event of the report whose battle is among them carries its address
    as ``link`` (ruling BR5). The host gives only pages its reader may open, and only an event
    the report already shows gets one, so a link never tells of a battle the seat may not see."""
    mine = events_for(events, seat, detected)
    if battle_pages:
        mine = [_linked(e, battle_pages) for e in mine]
    names = dict(names or {})
    if seat is None and names:
        mine = [_attributed(e, names) for e in mine]
    if names:
        mine = [_named(e, names) for e in mine]
    sections = []
    known = {step for step, _ in SECTIONS}
    for step, title in SECTIONS:
        chosen = tuple(e for e in mine if e.get("step") == step)
        if chosen:
            sections.append(Section(step, title, tuple(e.get("text", "") for e in chosen), chosen))
    other = tuple(e for e in mine if e.get("step") not in known)
    if other:
        sections.append(Section("other", "Other", tuple(e.get("text", "") for e in other), other))
    return TurnReport(campaign=campaign, turn=turn, seat=seat, empire=empire, sections=tuple(sections),
                      position=tuple(position), victory=tuple(victory), names=names)


def _linked(event: dict, pages: Mapping[int, str]) -> dict:
    index = (event.get("data") or {}).get("index")
    if event.get("kind") != "battle" or not isinstance(index, int) or index not in pages:
        return event
    return {**event, "link": pages[index]}


def _attributed(event: dict, names: Mapping[int, str]) -> dict:
    seats = event.get("seats") or ()
    if event.get("public") or len(seats) != 1:
        return event
    return {**event, "text": f"[{names.get(seats[0], f'empire {seats[0]}')}] {event.get('text', '')}"}


_EMPIRE = re.compile(r"\b[Ee]mpire (\d+)\b")
_SIDE_NOTE = r"(?: \(([^()]*)\))?"


def name_empires(text: str, names: Mapping[int, str]) -> str:
    """"empire 3" -> its name, wherever the engine wrote a seat number (issue 13 item 15)."""
    def sub(match: re.Match) -> str:
        return names.get(int(match.group(1))) or match.group(0)

    return _EMPIRE.sub(sub, text)


def _named(event: Mapping[str, Any], names: Mapping[int, str]) -> dict:
    """The event's text with empires named, and a battle's sides called attacker and defender
    (one vocabulary for sides: the invader is the attacker, 003 Invading Enemy Hexes)."""
    text = event.get("text", "")
    data = event.get("data") or {}
    att, dfd = data.get("attacker"), data.get("defender")
    if event.get("kind") == "battle" and isinstance(att, int) and isinstance(dfd, int):
        pattern = re.compile(rf"\b[Ee]mpire {att}{_SIDE_NOTE} against empire {dfd}{_SIDE_NOTE}")

        def sides(m: re.Match) -> str:
            a = ", ".join(x for x in ("attacker", m.group(1)) if x)
            d = ", ".join(x for x in ("defender", m.group(2)) if x)
            return f"empire {att} ({a}) against empire {dfd} ({d})"

        text = pattern.sub(sides, text, count=1)
    return {**event, "text": name_empires(text, names)}


def _dice(faces) -> str:
    return " ".join(str(f) for f in faces) if faces else "-"


def event_details(event: Mapping[str, Any], names: Mapping[int, str] | None = None) -> tuple[str, ...]:
    """Extra lines under an event: the dice of battles and neutral world rolls; ``names``
    (seat -> empire name) names each side of a battle."""
    data = event.get("data") or {}
    kind = event.get("kind")
    names = names or {}
    out = []
    if kind == "battle":
        sides = data.get("sides", {})
        for side in ("attacker", "defender"):
            info = sides.get(side, {})
            seat = data.get(side)
            who = f"{side} ({names[seat]})" if isinstance(seat, int) and seat in names else side
            if info:
                out.append(f"{who}: {info.get('bp', 0)} BP, {len(info.get('ships', []))} ship(s)"
                           + (" + defences" if info.get("defences") else "")
                           + f", {data.get('dice', {}).get(side, 0)}d6")
        for i, roll in enumerate(data.get("rolls", []), 1):
            out.append(
                f"round {i}: attacker rolls {_dice(roll.get('attacker'))}; defender rolls {_dice(roll.get('defender'))}"
            )
        if data.get("settled"):
            out.append(f"settled: {data['settled']}")
        for ship in data.get("ships", []) or []:
            fate = str(ship.get("fate", "")).replace("_", " ")
            if ship.get("fate") == "captured" and ship.get("captured_by") is not None:
                fate += f" by empire {ship['captured_by']}"
            taken = ship.get("damage_taken")
            out.append(f"ship {ship.get('ship')}" + (f" ({ship['side']})" if ship.get("side") else "")
                       + f": {fate}" + (f"; damage taken: {taken}" if taken else ""))
        losses = data.get("losses", {})
        if losses:
            out.append(
                f"ships lost: attacker {_dice(losses.get('attacker'))}, defender {_dice(losses.get('defender'))}"
            )
        for note in data.get("notes", []):
            out.append(str(note))
        for move in data.get("retreats", []) or []:
            where = "out of sight" if move.get("out_of_sight") else (
                f"to {tuple(move['to'])}" if move.get("to") is not None else "nowhere: destroyed")
            out.append(f"fleet {move.get('fleet')} retreats {where}")
        out = [name_empires(line, names) for line in out]
    elif kind in ("neutral_joined", "neutral_stays", "neutral_attacks"):
        mods = "".join(f" +{m} {name}" for name, m in data.get("modifiers", []))
        out.append(f"die: {_dice(data.get('faces'))}{mods} = {data.get('score')}")
    elif kind in ("initiative_roll", "cloud_roll", "drift") and data.get("faces"):
        out.append(f"die: {_dice(data.get('faces'))}")
    return tuple(out)


def render_text(report: TurnReport) -> str:
    who = report.empire if report.seat is not None else "Moderator (full report)"
    title = "set-up round" if report.turn == 0 else f"turn {report.turn}"  # turn 0: the set-up round (setup.py)
    lines = [f"{report.campaign} — {title} report for {who}", "=" * 60]
    if not report.sections:
        lines.append("Nothing happened that concerns you this turn.")
    for section in report.sections:
        lines += ["", section.title, "-" * len(section.title)]
        for text, event in zip(section.lines, section.events, strict=False):
            lines.append(f"  {text}")
            lines += [f"      {d}" for d in event_details(event, report.names)]
            if event.get("link"):
                lines.append(f"      battle page: {event['link']}")
    if report.position:
        lines += ["", "Your position", "-------------"] + [f"  {p}" for p in report.position]
    if report.victory:
        lines += ["", "Victory", "-------"] + [f"  {v}" for v in report.victory]
    return "\n".join(lines) + "\n"
