"""The fairness table of issue 31: does a battle converted to another rule book keep its favourite?

Twenty fixed match-ups from each campaign layer (small, even, lopsided, carrier-heavy, cloaks),
each fought ``--battles`` times doctrine against doctrine (fixed seeds) on the layer's own rule
book and on every other book with a converter (tactical/rules/registry.py ``CONVERTERS``); side
A's win rate (battles it holds the field, draws not counted) is printed per book, and for Event
Horizon next to the auto-resolve odds (003 "Alternative to a Tactical Battle", exact). A match-up
*flips* when side A wins >= 60% on the layer's own book and < 40% on another, or <= 40% and > 60%
(its favourite is side B). The script exits 1 if any flips (the ruling causing it must be named
and changed: docs/rulings.md XC…).

    .venv/bin/python bench/conversions.py                  # 40 battles per match-up and book
    .venv/bin/python bench/conversions.py --battles 10     # quicker
    .venv/bin/python bench/conversions.py --markdown       # the table for docs/benchmarks.md
    .venv/bin/python bench/conversions.py --books printplay,mytrek   # only those columns
    .venv/bin/python bench/conversions.py --books starsectors --processes 2   # one book's column, 2 processes
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campaign.rules.cam.ships import STARTER_CATALOGUE  # noqa: E402
from campaign.rules.dice import SeededDice, derive_seed  # noqa: E402
from campaign.rules.eventhorizon.autoresolve import Side, odds  # noqa: E402
from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS, Design, ShipType  # noqa: E402
from tactical.rules import registry  # noqa: E402
from tactical.rules.buoyz import deploy as bz_deploy  # noqa: E402
from tactical.rules.buoyz import outcome as bz_outcome  # noqa: E402
from tactical.rules.buoyz import simulate as bz_simulate  # noqa: E402
from tactical.rules.eventhorizon import CampaignShip, deploy, outcome, simulate  # noqa: E402
from tactical.rules.eventhorizon import convert as eh_convert  # noqa: E402
from tactical.rules.eventhorizon.trials import HERO_CREW_BP  # noqa: E402

SAN_MARCO, SWORD, SULTAN, GALIOT = SAMPLE_DESIGNS
# Two more designs for the carrier-heavy and cloak match-ups (003 Star Ship Design Rules; 30/35 BP).
CARRIER = Design(name="Hive Carrier", ship_type=ShipType.DESTROYER, hull=8, engine=5, force_field=5,
                 weapons={"fighter_bay": 5, "laser_bank": 2}, boarding_parties=0, cargo=8)
SHADOW = Design(name="Shadow Frigate", ship_type=ShipType.FRIGATE, hull=7, engine=6, force_field=4,
                weapons={"particle_accelerator": 2, "laser_bank": 3}, stealth_field=True, cargo=4)
D = {"M": SAN_MARCO, "S": SWORD, "U": SULTAN, "G": GALIOT, "C": CARRIER, "H": SHADOW}

# Event Horizon match-ups: fleets as design letters; "*" marks a hero crew.
EH_MATCHUPS: tuple[tuple[str, str, str], ...] = (
    ("small", "S", "G"), ("small", "M", "S"), ("small", "U", "G"), ("small", "M*", "M"),
    ("even", "MSU", "USM"), ("even", "SSG", "GSS"), ("even", "MG", "US"), ("even", "UUG", "MMG"),
    ("lopsided", "MMU", "S"), ("lopsided", "SSSS", "G"), ("lopsided", "MUSG", "GG"), ("lopsided", "UU", "GGGGG"),
    ("carrier", "CC", "SU"), ("carrier", "C", "G"), ("carrier", "CCG", "MM"), ("carrier", "MC", "UU"),
    ("cloaks", "HH", "SS"), ("cloaks", "H", "G"), ("cloaks", "HHH", "MU"), ("cloaks", "HM", "HM"),
)
# CAM match-ups: fleets as SD keys (CAM 2.2 points in brackets in the table).
CAM_MATCHUPS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("small", ("constitution",), ("d7",)),
    ("small", ("b_rel",), ("l42",)),
    ("small", ("firecat",), ("constitution",)),
    ("small", ("galaxy",), ("firecat",)),
    ("even", ("constitution", "b_rel"), ("d7",)),
    ("even", ("galaxy", "galaxy"), ("valkyrie",)),
    ("even", ("firecat", "b_rel", "l42"), ("constitution", "constitution")),
    ("even", ("d7", "d7"), ("galaxy", "firecat")),
    ("lopsided", ("galaxy", "galaxy"), ("firecat",)),
    ("lopsided", ("borg_cube",), ("galaxy", "galaxy")),
    ("lopsided", ("d7", "d7", "d7"), ("b_rel",)),
    ("lopsided", ("kobayashi_maru",), ("galaxy",)),
    ("carrier", ("valkyrie",), ("galaxy",)),
    ("carrier", ("valkyrie", "valkyrie"), ("borg_cube",)),
    ("carrier", ("valkyrie",), ("firecat", "firecat")),
    ("carrier", ("galaxy", "valkyrie"), ("galaxy", "galaxy")),
    ("cloaks", ("war_talon", "war_talon"), ("constitution",)),
    ("cloaks", ("b_rel", "b_rel"), ("firecat",)),
    ("cloaks", ("l42", "l42", "l42"), ("b_rel", "b_rel")),
    ("cloaks", ("war_talon",), ("l42",)),
)


def eh_fleet(letters: str, first: int) -> list[CampaignShip]:
    out, i = [], first
    for ch in letters:
        if ch == "*":
            out[-1] = CampaignShip(out[-1].id, out[-1].design, hero_crew=True)
            continue
        out.append(CampaignShip(i, D[ch], name=D[ch].name))
        i += 1
    return out


def eh_on_eh(a, b, seed: str) -> int | None:
    dice = SeededDice(derive_seed(seed))
    return outcome(simulate(deploy({1: a, 2: b}, dice), dice)).holder


def sds_on_buoyz(a, b, seed: str) -> int | None:
    dice = SeededDice(derive_seed(seed))
    return bz_outcome(bz_simulate(bz_deploy({1: a, 2: b}), dice)).winner


def dashboards_on_printplay(a, b, seed: str) -> int | None:
    from tactical.rules.printplay import play as pp_play
    from tactical.rules.printplay.book import BOOK as PP

    dice = SeededDice(derive_seed(seed))
    setup = pp_play.setup_for({1: [d.to_json() for d in a], 2: [d.to_json() for d in b]}, mat="4x6")
    return PP.outcome(PP.simulate(PP.new_battle(setup, dice), dice))["winner"]


def entries_on_mytrek(a, b, seed: str) -> int | None:
    from tactical.rules.mytrek import convert as mt_convert
    from tactical.rules.mytrek.play import BOOK as MT

    dice = SeededDice(derive_seed(seed))
    setup = mt_convert._setup({1: a, 2: b}, {1: "A", 2: "B"}, 1, 2)
    setup["converted"] = {"layer": "bench", "book": "mytrek"}
    return MT.outcome(MT.simulate(MT.new_battle(setup, dice), dice))["winner"]


def entries_on_starsectors(a, b, seed: str) -> int | None:
    from tactical.rules.starsectors import convert as ss_convert
    from tactical.rules.starsectors.book import BOOK as SS

    dice = SeededDice(derive_seed(seed))
    setup = ss_convert._setup({1: a, 2: b}, {1: "A", 2: "B"}, 1, 2)
    return SS.outcome(SS.simulate(SS.new_battle(setup, dice), dice))["winner"]


# Each layer's other books: how a converted fleet fights there, and the tag of its seeds.
EH_BOOKS = {"buoyz": (sds_on_buoyz, "bz"), "printplay": (dashboards_on_printplay, "pp"),
            "mytrek": (entries_on_mytrek, "mt"), "starsectors": (entries_on_starsectors, "ss")}
CAM_BOOKS = {"eventhorizon": (eh_on_eh, "eh"), "printplay": (dashboards_on_printplay, "pp"),
             "mytrek": (entries_on_mytrek, "mt"), "starsectors": (entries_on_starsectors, "ss")}


def eh_autoresolve(a, b) -> float:
    def side(ships, other):
        types = {s.design.ship_type for s in ships}
        other_types = {s.design.ship_type for s in other}
        return Side(bp=sum(s.design.bp + (HERO_CREW_BP if s.hero_crew else 0) for s in ships),
                    has_star_cruiser=ShipType.STAR_CRUISER in types and ShipType.STAR_CRUISER not in other_types,
                    has_destroyer=ShipType.DESTROYER in types and not other_types & {ShipType.DESTROYER,
                                                                                       ShipType.STAR_CRUISER})
    return float(odds(side(a, b), side(b, a)).p_a_wins_exact)


def rate(fight, a, b, battles: int, tag: str) -> float:
    wins = sum(1 for n in range(battles) if fight(a, b, f"xc/{tag}/{n}") == 1)
    return wins / battles


def flips(own: float, other: float) -> bool:
    return (own >= 0.6 and other < 0.4) or (own <= 0.4 and other > 0.6)


def eh_row(n: int, battles: int, books: tuple[str, ...]):
    """Match-up ``n`` of the Event Horizon layer on its own book and on each of ``books``."""
    kind, fa, fb = EH_MATCHUPS[n - 1]
    a, b = eh_fleet(fa, 1), eh_fleet(fb, 101)
    own = rate(eh_on_eh, a, b, battles, f"eh{n}")
    others = {}
    for book in books:
        fight, tag = EH_BOOKS[book]
        conv = registry.find_converter("eventhorizon", book)
        others[book] = rate(fight, conv.fleet(a), conv.fleet(b), battles, f"eh{n}{tag}")
    label = f"{fa} ({sum(s.design.bp for s in a)} BP) v {fb} ({sum(s.design.bp for s in b)} BP)"
    return n, kind, label, own, others, eh_autoresolve(a, b)


def cam_units(side) -> list[dict]:
    return [{"uid": f"ship:{i}", "kind": "ship", "name": sd.name, "points": sd.points,
             "sd": eh_convert.sd_json(sd), "crippled": False} for i, sd in enumerate(side, 1)]


def cam_row(n: int, battles: int, books: tuple[str, ...]):
    """Match-up ``n`` of the CAM layer on Buoyz and on each of ``books``."""
    kind, fa, fb = CAM_MATCHUPS[n - 1]
    sa = [STARTER_CATALOGUE[k] for k in fa]
    sb = [STARTER_CATALOGUE[k] for k in fb]
    own = rate(sds_on_buoyz, sa, sb, battles, f"cam{n}")
    units = [cam_units(sa), cam_units(sb)]
    others = {}
    for book in books:
        fight, tag = CAM_BOOKS[book]
        conv = registry.find_converter("cam", book)
        if book == "eventhorizon":  # squadrons of CampaignShips, numbered apart
            a, b = conv.fleet(units[0], 1), conv.fleet(units[1], 101)
        else:
            a, b = conv.fleet(units[0]), conv.fleet(units[1])
        others[book] = rate(fight, a, b, battles, f"cam{n}{tag}")
    label = (f"{'+'.join(fa)} ({sum(s.points for s in sa)} pts) v {'+'.join(fb)} "
             f"({sum(s.points for s in sb)} pts)")
    return n, kind, label, own, others, None


def _row(job):
    layer, n, battles, books = job
    return (eh_row if layer == "eventhorizon" else cam_row)(n, battles, books)


def rows(layer: str, battles: int, books: tuple[str, ...], pool=None):
    count = len(EH_MATCHUPS if layer == "eventhorizon" else CAM_MATCHUPS)
    jobs = [(layer, n, battles, books) for n in range(1, count + 1)]
    return pool.imap(_row, jobs) if pool is not None else map(_row, jobs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=40)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--books", default="", help="only these other books (comma-separated; default every one)")
    parser.add_argument("--processes", type=int, default=1, help="match-ups fought in this many processes")
    args = parser.parse_args(argv)
    wanted = tuple(b for b in args.books.split(",") if b)
    started = time.perf_counter()
    flipped = []
    pool = None
    if args.processes > 1:
        import multiprocessing

        pool = multiprocessing.get_context("fork").Pool(args.processes)
    for layer, own_book, table in (("Event Horizon", "eventhorizon", EH_BOOKS), ("CAM", "buoyz", CAM_BOOKS)):
        others = tuple(b for b in table if not wanted or b in wanted)
        key = "eventhorizon" if own_book == "eventhorizon" else "cam"
        print(f"\n### {layer} layer (own book: {own_book}; {args.battles} battles per match-up and book)\n")
        head = (
            f"| # | kind | side A v side B | A wins on {own_book} | "
            + " | ".join(f"A wins on {o}" for o in others)
            + " |"
        )
        if own_book == "eventhorizon":
            head += " A wins, auto-resolve odds |"
        print(head)
        print("|---" * (head.count("|") - 1) + "|")
        for n, kind, label, own, conv, auto in rows(key, args.battles, others, pool):
            cells = [str(n), kind, label, f"{own:.0%}", *(f"{v:.0%}" for v in conv.values())]
            if auto is not None:
                cells.append(f"{auto:.0%}")
            bad = [book for book, v in conv.items() if flips(own, v)]
            if bad:
                flipped.append(f"{layer} #{n} {label}: {own:.0%} on {own_book}, "
                               + ", ".join(f"{conv[b]:.0%} on {b}" for b in bad))
                cells[2] += " **flips**"
            print("| " + " | ".join(cells) + " |", flush=True)
    if pool is not None:
        pool.close()
    print(f"\n{len(flipped)} match-up(s) flip their favourite; {time.perf_counter() - started:.0f} s")
    for line in flipped:
        print("  FLIPS:", line)
    return 1 if flipped else 0


if __name__ == "__main__":
    sys.exit(main())
