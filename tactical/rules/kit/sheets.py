"""Printable record sheets, the page around them (pure Python; issue 31 item 4).

A rule book's ``sheets.py`` draws one ``<section class="sheet">`` per ship in its own form (Buoyz:
the SD; Event Horizon: the ship's design and its tracks); ``document`` wraps them in one HTML page
whose print CSS puts each sheet on a page of its own, A4 or Letter (the browser's paper size:
no ``@page`` size is forced), with the tracks as boxes to tick with a pencil.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

CSS = """
@page { margin: 10mm; }
* { box-sizing: border-box; }
body { font: 11pt/1.3 system-ui, sans-serif; color: #000; margin: 0; padding: 8px; }
.sheet { border: 2px solid #000; padding: 10px 14px; margin: 0 auto 16px; max-width: 180mm;
         break-inside: avoid; page-break-inside: avoid; }
.sheet h2 { margin: 0 0 4px; font-size: 15pt; }
.sheet .sub { margin: 0 0 8px; font-size: 9.5pt; color: #333; }
.sheet table { border-collapse: collapse; width: 100%; margin: 6px 0; }
.sheet th, .sheet td {
  border: 1px solid #000; padding: 3px 5px; text-align: left; vertical-align: top; font-size: 10pt;
}
/* On a phone a long name wraps in its cell rather than push the page past the screen's width (on
   paper the columns keep their widths: each sheet stays one page). */
@media screen and (max-width: 600px) { .sheet th, .sheet td { overflow-wrap: anywhere; } }
.sheet th { background: #eee; width: 28%; }
.boxes { display: inline-flex; flex-wrap: wrap; gap: 3px; vertical-align: middle; }
.box { display: inline-block; width: 16px; height: 16px; border: 1.5px solid #000; }
.box.gone { background: repeating-linear-gradient(45deg, #000 0 2px, #fff 2px 5px); }
.box.line { border-right: 4px solid #000; }
.notes { font-size: 9pt; margin: 6px 0 0; }
.noprint { margin: 0 auto 12px; max-width: 180mm; }
/* The way back to the battle: a finger-sized target on a phone, never on paper (.noprint). */
.back { margin: 0; }
.back a { display: inline-block; padding: 10px 0; min-height: 44px; line-height: 24px; }
@media print {
  body { padding: 0; }
  .noprint { display: none; }
  .sheet { margin: 0; border-width: 1.5px; break-after: page; page-break-after: always; }
  .sheet:last-of-type { break-after: auto; page-break-after: auto; }
}
"""


def boxes(count: int, gone: int = 0, line_after: int | None = None) -> str:
    """``count`` boxes to tick, the first ``gone`` already struck (damage carried); a thick line
    after box ``line_after`` (a threshold, e.g. Buoyz's crippled figure)."""
    out = []
    for i in range(1, max(0, count) + 1):
        cls = "box" + (" gone" if i <= gone else "") + (" line" if line_after is not None and i == line_after else "")
        out.append(f'<span class="{cls}"></span>')
    return '<span class="boxes">' + "".join(out) + "</span>"


def row(label: str, value: str) -> str:
    """A table row; ``value`` is HTML (escape text first)."""
    return f"<tr><th>{escape(label)}</th><td>{value}</td></tr>"


def document(title: str, sheets: Iterable[str], intro: str = "", nonce: str = "",
             back: tuple[str, str] | None = None) -> str:
    """The page: ``nonce`` is the page's Content-Security-Policy nonce (its style and script);
    ``back`` (address, words): the on-screen link back to the page the sheets were printed from
    (the battle, the scenario), first on the page and left off the paper."""
    body = "\n".join(sheets)
    n = f' nonce="{escape(nonce)}"' if nonce else ""
    link = (f'<p class="back"><a href="{escape(back[0])}" id="back-link">&larr; {escape(back[1])}</a></p>'
            if back else "")
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style{n}>{CSS}</style></head>"
            f"<body><div class=\"noprint\">{link}<h1>{escape(title)}</h1><p>{intro}</p>"
            "<p><button type=\"button\" id=\"print-sheets\">Print</button> one page per ship (A4 or Letter).</p></div>"
            f"{body}<script{n}>document.getElementById('print-sheets').addEventListener('click', () => window.print());"
            "</script></body></html>")


__all__ = ["CSS", "boxes", "document", "row"]
