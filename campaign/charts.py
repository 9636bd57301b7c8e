"""The empire chart: BP, worlds and ships after each processed turn (``Turn.summary``), as a
server-rendered SVG line chart (no JavaScript). Which empires' lines a viewer gets is decided by
``campaign/visibility.py``: a player their own while the campaign runs, the moderator all,
everyone all once it has ended."""

from __future__ import annotations

from xml.sax.saxutils import escape

from .models import Campaign, Turn

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


def chart_svg(series: dict, *, width: int = 640, panel_height: int = 150) -> str:
    """Three stacked line charts (BP, worlds, ships) over turns."""
    turns = series["turns"]
    empires = series["empires"]
    left, right, top, gap = 48, 12, 24, 34
    height = top + len(METRICS) * (panel_height + gap) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" font-family="sans-serif" font-size="11" class="empire-chart">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>']
    if not turns or not empires:
        out.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" fill="#5c6670">'
                   'No processed turns to chart yet.</text></svg>')
        return "\n".join(out)
    plot_w = width - left - right
    first, last = turns[0], turns[-1]
    span = max(1, last - first)

    def x_of(turn: int) -> float:
        return left + (turn - first) / span * plot_w if last != first else left + plot_w / 2

    for i, (key, label) in enumerate(METRICS):
        y0 = top + i * (panel_height + gap)
        values = [v for e in empires for v in e[key] if v is not None]
        vmax = _nice_max(max(values, default=0))

        def y_of(v: float, y0=y0, vmax=vmax) -> float:
            return y0 + panel_height - v / vmax * panel_height

        out.append(f'<text x="{left}" y="{y0 - 8}" font-weight="bold" font-size="12">{escape(label)}</text>')
        out.append(f'<rect x="{left}" y="{y0}" width="{plot_w}" height="{panel_height}" fill="#fafbfc" stroke="#d9dee3"/>')
        for frac in (0, 0.5, 1):
            v = vmax * frac
            y = y_of(v)
            out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#e5e8eb"/>')
            out.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" fill="#5c6670">{v:g}</text>')
        step = max(1, len(turns) // 10)
        for t in turns[::step]:
            out.append(f'<text x="{x_of(t):.1f}" y="{y0 + panel_height + 13}" text-anchor="middle" '
                       f'fill="#5c6670">{t}</text>')
        for e in empires:
            points = [(x_of(t), y_of(v)) for t, v in zip(turns, e[key], strict=True) if v is not None]
            if not points:
                continue
            title = escape(f"{e['name']}: " + ", ".join(
                f"turn {t} {v}" for t, v in zip(turns, e[key], strict=True) if v is not None))
            if len(points) == 1:
                (px, py), = points
                out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{e["colour"]}"><title>{title}</title></circle>')
            else:
                pts = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
                out.append(f'<polyline points="{pts}" fill="none" stroke="{e["colour"]}" stroke-width="2" '
                           f'data-seat="{e["seat"]}"><title>{title}</title></polyline>')
    legend_y = height - 6
    x = left
    for e in empires:
        out.append(f'<rect x="{x}" y="{legend_y - 9}" width="10" height="10" fill="{e["colour"]}"/>'
                   f'<text x="{x + 14}" y="{legend_y}">{escape(e["name"])}</text>')
        x += 24 + 7 * len(e["name"])
    out.append(f'<text x="{width - right}" y="{legend_y}" text-anchor="end" fill="#5c6670">turn</text>')
    out.append("</svg>")
    return "\n".join(out)
