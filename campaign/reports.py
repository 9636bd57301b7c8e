"""Turn reports from stored turns (the pure report builder does the grouping)."""

from __future__ import annotations

from .models import Campaign, Turn
from .rules.eventhorizon.report import TurnReport, build_report


class ReportError(ValueError):
    pass


def turn_report(campaign: Campaign, number: int, seat: int | None) -> TurnReport:
    """The report of processed turn ``number`` for ``seat`` (None: the moderator's full one)."""
    turn = Turn.objects.filter(campaign=campaign, number=number).first()
    if turn is None or turn.status != Turn.Status.DONE:
        raise ReportError(f"turn {number} of campaign {campaign.pk} has not been processed")
    empire_name = "Moderator"
    position: list[str] = []
    victory: list[str] = []
    if seat is not None:
        empire = campaign.empires.filter(seat=seat).first()
        if empire is None:
            raise ReportError(f"campaign {campaign.pk} has no seat {seat}")
        empire_name = empire.name
        mine = turn.summary.get(str(seat), {})
        if mine:
            position = [f"{mine['bp']} BP banked for next turn", f"{mine['worlds']} worlds",
                        f"{mine['ships']} ships in {mine['fleets']} fleets"]
            if mine.get("eliminated"):
                position.append("Your empire has been eliminated.")
            victory = list(mine.get("victory", []))
    else:
        for key, row in sorted(turn.summary.items(), key=lambda kv: int(kv[0])):
            position.append(f"Seat {key}: {row['bp']} BP, {row['worlds']} worlds, {row['ships']} ships"
                            + (" (eliminated)" if row.get("eliminated") else ""))
    return build_report(campaign=campaign.name, turn=number, seat=seat, empire=empire_name,
                        events=turn.events, position=position, victory=victory)
