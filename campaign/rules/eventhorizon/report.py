"""A player's turn report: the turn's events that concern them, grouped by step of the turn
sequence, plus their position and victory status afterwards. Pure Python; events are the JSON
form stored with each processed turn (``step``, ``kind``, ``seats``, ``text``, ``data``,
``public``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# Steps of "003 Campaign Turn Sequence" in the order the pipeline runs them.
SECTIONS = (
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

    def as_dict(self) -> dict:
        return {
            "campaign": self.campaign, "turn": self.turn, "seat": self.seat, "empire": self.empire,
            "sections": [{"step": s.step, "title": s.title, "lines": list(s.lines), "events": [dict(e) for e in s.events]}
                         for s in self.sections],
            "position": list(self.position), "victory": list(self.victory),
        }


def visible_to(event: Mapping[str, Any], seat: int | None) -> bool:
    return seat is None or event.get("public", False) or seat in event.get("seats", ())


def build_report(*, campaign: str, turn: int, seat: int | None, empire: str, events: Iterable[Mapping[str, Any]],
                 position: Iterable[str] = (), victory: Iterable[str] = ()) -> TurnReport:
    mine = [e for e in events if visible_to(e, seat)]
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
                      position=tuple(position), victory=tuple(victory))


def render_text(report: TurnReport) -> str:
    who = report.empire if report.seat is not None else "Moderator (full report)"
    lines = [f"{report.campaign} — turn {report.turn} report for {who}", "=" * 60]
    if not report.sections:
        lines.append("Nothing happened that concerns you this turn.")
    for section in report.sections:
        lines += ["", section.title, "-" * len(section.title)]
        lines += [f"  {text}" for text in section.lines]
    if report.position:
        lines += ["", "Your position", "-------------"] + [f"  {p}" for p in report.position]
    if report.victory:
        lines += ["", "Victory", "-------"] + [f"  {v}" for v in report.victory]
    return "\n".join(lines) + "\n"
