"""Turn reports from stored turns, with fog of war applied (the pure report builder does the
grouping; ``campaign/eventhorizon/visibility.py`` decides whose eyes a report is read with).

``render_report_text`` and ``render_report_html`` are what emails send: they take the user the
email goes to, so a report never shows more than its reader may see.
"""

from __future__ import annotations

from django.template.loader import render_to_string

from ..models import Campaign, Turn
from ..rules.eventhorizon import fog
from ..rules.eventhorizon.report import TurnReport, build_report, event_details, render_text


class ReportError(ValueError):
    pass


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _detected_after(campaign: Campaign, number: int, seat: int) -> frozenset | None:
    """Cells ``seat`` detects at the end of turn ``number`` (the start of the next); None: no
    fog. If that state was not kept, nothing counts as detected (the safe side)."""
    from . import visibility

    if not campaign.fog_of_war or campaign.status == Campaign.Status.FINISHED:
        return None
    try:
        state = visibility.state_at(campaign, number + 1)
    except visibility.HistoryUnavailable:
        return frozenset()
    return fog.detected_cells(state, seat, campaign.detection_range)


def battle_pages(campaign: Campaign, number: int, reader, events, *, absolute: bool = False
                 ) -> tuple[dict[int, str], list]:
    """The pages of turn ``number``'s battles that ``reader`` may open (its own battles; all of
    them for the moderator), by the battle's index in the turn (ruling BR5), and ``events`` with
    that index given to a battle event stored before events carried it (matched on its hex and
    sides among those same battles only, so no battle the reader may not open is looked at).
    ``absolute``: full addresses, for emails."""
    from django.urls import reverse

    from campaign import battles
    from campaign.notifications import absolute as absolute_url

    rows = battles.handler().waiting_battles(reader, campaign, number) if reader is not None else []
    pages = {}
    for row in rows:
        path = reverse("battle-detail", args=[row.pk])
        pages[row.index] = absolute_url(path) if absolute else path
    by_sides = {(row.x, row.y, row.attacker, row.defender): row.index for row in rows}
    out = []
    for event in events:
        data = event.get("data") or {}
        if event.get("kind") == "battle" and "index" not in data and isinstance(data.get("hex"), list):
            key = (*data["hex"][:2], data.get("attacker"), data.get("defender"))
            if key in by_sides:
                event = {**event, "data": {**data, "index": by_sides[key]}}
        out.append(event)
    return pages, out


def turn_report(campaign: Campaign, number: int, seat: int | None, *, reader=None,
                absolute: bool = False) -> TurnReport:
    """The report of processed turn ``number`` for ``seat`` (None: the moderator's full one;
    0: an observer's, public events only). A seat's report is fogged while the campaign runs.
    ``reader``: the user who reads it; each of its battles whose page the reader may open links
    there (``absolute``: by its full address, for emails)."""
    turn = Turn.objects.filter(campaign=campaign, number=number).first()
    if turn is None or turn.status != Turn.Status.DONE:
        raise ReportError(f"turn {number} of campaign {campaign.pk} has not been processed")
    names = dict(campaign.empires.values_list("seat", "name"))
    empire_name = "Moderator"
    position: list[str] = []
    victory: list[str] = []
    detected = None
    if seat == 0:
        empire_name = "Observer"
        detected = frozenset()
    elif seat is not None:
        empire = campaign.empires.filter(seat=seat).first()
        if empire is None:
            raise ReportError(f"campaign {campaign.pk} has no seat {seat}")
        empire_name = empire.name
        mine = turn.summary.get(str(seat), {})
        if mine:
            position = [f"{mine['bp']} BP banked for next turn", _n(mine["worlds"], "world"),
                        f"{_n(mine['ships'], 'ship')} in {_n(mine['fleets'], 'fleet')}"]
            if mine.get("eliminated"):
                position.append("Your empire has been eliminated.")
            victory = list(mine.get("victory", []))
        detected = _detected_after(campaign, number, seat)
    else:
        for key, row in sorted(turn.summary.items(), key=lambda kv: int(kv[0])):
            name = names.get(int(key), f"seat {key}")
            position.append(f"{name} (seat {key}): {row['bp']} BP, {row['worlds']} worlds, "
                            f"{row['ships']} ships" + (" (eliminated)" if row.get("eliminated") else ""))
            victory += [f"{name}: {line}" for line in row.get("victory", [])]
    pages, events = battle_pages(campaign, number, reader, turn.events or [], absolute=absolute)
    # Empires by name, never by number (issue 13 item 15); names are public.
    return build_report(campaign=campaign.name, turn=number, seat=seat, empire=empire_name,
                        events=events, position=position, victory=victory, detected=detected, names=names,
                        battle_pages=pages)


def campaign_outcome(campaign: Campaign) -> dict | None:
    """How a finished campaign ended (issue 13 item 22): its winner (an Empire, or None for a
    campaign that ended with no winner), a headline, the rule book's reason as the final turn's
    report gave it (a public event), and that turn. None while the campaign runs."""
    if campaign.status != Campaign.Status.FINISHED:
        return None
    winner = campaign.winner
    last = campaign.turns.filter(status=Turn.Status.DONE).order_by("-number").only("number", "events").first()
    reason = ""
    if last is not None:
        ending = [e for e in (last.events or []) if e.get("kind") in ("campaign_won", "campaign_drawn")]
        if ending:
            reason = ending[-1].get("text", "")
    headline = f"{winner.name} won the campaign" if winner is not None else "The campaign ended with no winner"
    return {"winner": winner, "headline": headline, "reason": reason, "turn": last.number if last else None}


def report_seat_for(campaign: Campaign, user, *, as_seat: int | None = None, full: bool = False) -> int | None:
    """Whose report ``user`` reads: a player their own seat; the moderator the full report or
    any seat's (``as_seat``); an observer the public one (0) until the campaign ends, then the
    full one. Raises ReportError for someone with no part in the campaign or a seat they may
    not read."""
    from . import visibility

    viewer = visibility.viewer_for(user, campaign)
    if viewer.role is None:
        raise ReportError("you have no part in this campaign")
    if full:
        if viewer.is_moderator or campaign.status == Campaign.Status.FINISHED:
            return None
        raise ReportError("only the moderator can read the full report while the campaign runs")
    if as_seat is not None:
        if viewer.is_moderator or campaign.status == Campaign.Status.FINISHED or as_seat == viewer.seat:
            return as_seat
        raise ReportError("only the moderator can read another seat's report")
    if viewer.seat is not None:
        return viewer.seat
    if viewer.is_moderator or campaign.status == Campaign.Status.FINISHED:
        return None
    return 0


def report_for(campaign: Campaign, turn_number: int, user, *, as_seat: int | None = None,
               full: bool = False, absolute: bool = False) -> TurnReport:
    return turn_report(campaign, turn_number, report_seat_for(campaign, user, as_seat=as_seat, full=full),
                       reader=user, absolute=absolute)


def report_context(report: TurnReport) -> dict:
    sections = [
        {"step": s.step, "title": s.title,
         "items": [{"text": text, "kind": e.get("kind", ""), "details": event_details(e, report.names),
                    "link": e.get("link", "")}
                   for text, e in zip(s.lines, s.events, strict=False)]}
        for s in report.sections
    ]
    return {"report": report, "sections": sections}


def render_report_text(campaign: Campaign, turn_number: int, user) -> str:
    """The plain-text report of ``turn_number`` as ``user`` may read it (fog applied)."""
    return render_text(report_for(campaign, turn_number, user, absolute=True))


def render_report_html(campaign: Campaign, turn_number: int, user) -> str:
    """The report as a small self-contained HTML document (inline styles, for email)."""
    report = report_for(campaign, turn_number, user, absolute=True)
    return render_to_string("campaign/report_email.html", {**report_context(report), "campaign": campaign})
