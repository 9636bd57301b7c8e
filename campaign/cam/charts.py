"""A small SVG line chart of campaign points across the rubber (CAM 4.3)."""

from django.utils.html import escape
from django.utils.safestring import mark_safe

from campaign.models import COLOUR_PALETTE


def player_colours(cam) -> dict[int, str]:
    """Each seat's colour: the one its player chose on joining (``Membership.colour``), else the
    platform palette's in seat order (a rubber set up on the CAM page names no colours)."""
    chosen = dict(cam.campaign.memberships.filter(role="player").exclude(colour="")
                  .values_list("user_id", "colour"))
    return {p.seat: chosen.get(p.user_id) or COLOUR_PALETTE[(p.seat - 1) % len(COLOUR_PALETTE)]
            for p in cam.players.all()}


def cp_chart(players, scored, colours: dict[int, str], width: int = 480, height: int = 200):
    """Cumulative CPs after each scored scenario, one line per player in the player's colour.
    Drawn on a ``width``×``height`` view box and scaled to its frame (class ``cp-chart``: at
    most ``width`` pixels, narrower on a phone)."""
    series = []
    for p in players:
        total, points = 0, [0]
        for s in scored:
            total += s.score["sides"][str(p.seat)]["campaign_points"]
            points.append(total)
        series.append((p, points))
    top = max([max(pts) for _, pts in series] + [1])
    steps = max(len(scored), 1)
    pad = 30

    def xy(i, v):
        return pad + i * (width - 2 * pad) / steps, height - pad - v * (height - 2 * pad) / top

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" class="cp-chart" role="img" '
             f'aria-label="Campaign points after each scenario" id="cp-chart">',
             f'<rect width="{width}" height="{height}" fill="#fff"/>',
             f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="#999"/>',
             f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="#999"/>',
             f'<text x="4" y="{pad}" font-size="13">{top}</text>']
    for i in range(steps + 1):
        x, _ = xy(i, 0)
        parts.append(f'<text x="{x:.0f}" y="{height - 10}" font-size="13" text-anchor="middle">{i}</text>')
    for n, (p, pts) in enumerate(series):
        colour = escape(colours[p.seat])
        coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, v) for i, v in enumerate(pts)))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="3" points="{coords}" '
                     f'data-seat="{p.seat}"/>')
        parts.append(f'<text x="{pad + 10}" y="{pad + 16 * n}" font-size="14" font-weight="bold" fill="{colour}">'
                     f'{escape(p.name)}: {pts[-1]} CPs</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))
