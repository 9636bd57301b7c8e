"""The empire chart: BP, worlds and ships after each processed turn (``Turn.summary``), as a
server-rendered SVG line chart (no JavaScript). Which empires' lines a viewer gets is decided by
``campaign/eventhorizon/visibility.py``: a player their own while the campaign runs, the moderator all,
everyone all once it has ended."""

from __future__ import annotations

from xml.sax.saxutils import escape

from ..models import Campaign, Turn

METRICS = (("bp", "BP banked"), ("worlds", "Worlds"), ("ships", "Ships"))


def history_series(campaign: Campaign, viewer) -> dict:
    """``{"turns": [...], "empires": [{"seat", "name", "colour", "bp": [...], "worlds": [...],
    "ships": [...]}]}`` for the empires the viewer may follow; values line up with ``turns``
    (None where an empire has no figure for a turn)."""
    rows = list(Turn.objects.filter(campaign=campaign, status=Turn.Status.DONE).order_by("number")
                .values_list("number", "summary"))
    turns = [n for n, _ in rows]
    empires = []
    for e in campaign.empires.order_by("seat"):
        if not viewer.sees_seat(e.seat):
            continue
        entry = {"seat": e.seat, "name": e.name, "colour": e.colour}
        for key, _ in METRICS:
            entry[key] = [(summary or {}).get(str(e.seat), {}).get(key) for _, summary in rows]
        empires.append(entry)
    return {"turns": turns, "empires": empires}


def _nice_max(value: float) -> int:
    if value <= 5:
        return 5
    for step in (1, 2, 2.5, 5):
        for power in range(0, 7):
            top = step * 10 ** power
            if top >= value:
                return int(top) if top == int(top) else int(top) + 1
    return int(value)


# Lines are told apart by dash as well as colour (two empires' colours can be close, and some
# readers do not see colour): seat 1 solid, then dashed, dotted, dash-dot, long dash, ...
DASHES = ("", "7 4", "2 3", "8 3 2 3", "12 4", "4 2 4 6", "1 5", "10 2 2 2 2 2")
FONT = 13  # user units; the chart is drawn 400 wide, so on a phone it shows at about 11 px


def _text_width(text: str, size: float = FONT) -> float:
    return 0.6 * size * len(text)  # a safe estimate for a sans-serif face


def _legend(empires, width: int, left: int, right: int) -> tuple[list[str], int]:
    """Legend entries (a line sample in the empire's colour and dash, then its name), wrapped
    to the chart's width; returns the SVG and its height."""
    out, x, y, row_h = [], left, 16, FONT + 8
    for i, e in enumerate(empires):
        w = 30 + _text_width(e["name"]) + 14
        if x > left and x + w > width - right:
            x, y = left, y + row_h
        dash = DASHES[i % len(DASHES)]
        out.append(f'<g class="legend-entry" data-seat="{e["seat"]}">'
                   f'<line x1="{x}" y1="{y - 4}" x2="{x + 24}" y2="{y - 4}" stroke="{e["colour"]}" stroke-width="3"'
                   + (f' stroke-dasharray="{dash}"' if dash else "") + "/>"
                   f'<text x="{x + 30}" y="{y}">{escape(e["name"])}</text></g>')
        x += w
    return out, y + 10


def _turn_ticks(turns: list[int], max_ticks: int = 6) -> list[int]:
    step = max(1, -(-len(turns) // max_ticks))
    ticks = turns[::step]
    if turns[-1] not in ticks:
        ticks.append(turns[-1])
    return ticks


def chart_svg(series: dict, *, width: int = 400, panel_height: int = 110, winner: str | None = None) -> str:
    """Three stacked line charts (BP banked, worlds, ships) over turns, with a legend on top,
    each panel's scale on its left, turns along its bottom, and, once the campaign is decided,
    its winner (issue 13 item 22). Drawn 400 wide so that it stays legible when shrunk to a
    phone's width; each line and point carries its figures as a tooltip."""
    turns = series["turns"]
    empires = series["empires"]
    left, right, gap = 46, 14, 46
    if not turns or not empires:
        height = 120
        return "\n".join([
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="{FONT}" class="empire-chart" role="img" aria-label="Empire chart">',
            f'<rect width="{width}" height="{height}" fill="#fff"/>',
            f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" fill="#5c6670">'
            "No processed turns to chart yet.</text></svg>"])
    legend, legend_h = _legend(empires, width, left, right)
    banner = []
    if winner:
        legend_h += FONT + 10
        banner.append(f'<text class="chart-winner" x="{left}" y="{legend_h - 8}" font-weight="bold" fill="#17612c">'
                      f'{escape(winner)}</text>')
    top = legend_h + 24
    height = top + len(METRICS) * (panel_height + gap) - gap + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" font-family="sans-serif" font-size="{FONT}" class="empire-chart" role="img" '
           f'aria-label="BP banked, worlds and ships of each empire after each turn">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>', *legend, *banner]
    plot_w = width - left - right
    first, last = turns[0], turns[-1]
    span = max(1, last - first)
    markers = len(turns) <= 30

    def x_of(turn: int) -> float:
        return left + (turn - first) / span * plot_w if last != first else left + plot_w / 2

    for i, (key, label) in enumerate(METRICS):
        y0 = top + i * (panel_height + gap)
        values = [v for e in empires for v in e[key] if v is not None]
        vmax = _nice_max(max(values, default=0))

        def y_of(v: float, y0=y0, vmax=vmax) -> float:
            return y0 + panel_height - v / vmax * panel_height

        out.append(f'<text class="panel-title" x="{left}" y="{y0 - 9}" font-weight="bold" font-size="{FONT + 1}">'
                   f'{escape(label)}</text>')
        out.append(
            f'<rect x="{left}" y="{y0}" width="{plot_w}" height="{panel_height}" fill="#fafbfc" stroke="#b8c0c8"/>'
        )
        for frac in (0, 0.25, 0.5, 0.75, 1):
            # BP, worlds and ships are whole numbers: so are the values on the scale.
            v = round(vmax * frac)
            y = y_of(v)
            out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#e5e8eb"/>')
            if frac in (0, 0.5, 1):
                out.append(
                    f'<text class="y-tick" x="{left - 5}" y="{y + 4:.1f}" text-anchor="end" fill="#3d4650">{v}</text>'
                )
        for t in _turn_ticks(turns):
            x = x_of(t)
            out.append(
                f'<line x1="{x:.1f}" y1="{y0 + panel_height}" x2="{x:.1f}" y2="{y0 + panel_height + 4}" '
                f'stroke="#b8c0c8"/>'
                f'<text class="x-tick" x="{x:.1f}" y="{y0 + panel_height + 17}" text-anchor="middle" '
                f'fill="#3d4650">{t}</text>'
            )
        out.append(f'<text class="x-caption" x="{left + plot_w}" y="{y0 + panel_height + 32}" text-anchor="end" '
                   f'fill="#5c6670">turn</text>')
        for j, e in enumerate(empires):
            dash = DASHES[j % len(DASHES)]
            pairs = [(t, v) for t, v in zip(turns, e[key], strict=True) if v is not None]
            if not pairs:
                continue
            points = [(x_of(t), y_of(v)) for t, v in pairs]
            title = escape(f"{e['name']}, {label.lower()}: " + ", ".join(f"turn {t}: {v}" for t, v in pairs))
            if len(points) > 1:
                pts = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
                out.append(f'<polyline points="{pts}" fill="none" stroke="{e["colour"]}" stroke-width="2.5" '
                           f'stroke-linejoin="round" data-seat="{e["seat"]}"'
                           + (f' stroke-dasharray="{dash}"' if dash else "") + f'><title>{title}</title></polyline>')
            if markers or len(points) == 1:
                for (t, v), (px, py) in zip(pairs, points, strict=True):
                    out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{e["colour"]}" stroke="#fff" '
                               f'stroke-width="1"><title>{escape(e["name"])}, turn {t}: {v} {escape(label.lower())}'
                               f'</title></circle>')
    out.append("</svg>")
    return "\n".join(out)
