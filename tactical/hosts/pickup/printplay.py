"""Print&Play's pickup fleet book (issue 30): the house roster's dashboards bought by points,
two to six sides (the dice bag, 001 Initiative). Registered by ``tactical/rules/printplay/``
as ``"tactical.hosts.pickup.printplay:PRINTPLAY"`` (the pure package may not import this module)."""

from __future__ import annotations

from tactical.hosts.pickup.books import FleetBook, Offer


class PrintPlayBook(FleetBook):
    ruleset = "printplay"
    unit = "points"
    title = "Star Trek Print&Play"
    max_sides = 6
    sides_rule = "001 Initiative: two players roll 2 dice; more draw dice from a bag"
    min_points = 40
    max_points = 1000
    default_points = 200
    max_ships = 8
    limits_text = "ruling PP21"

    def offers(self, user) -> list[Offer]:
        from tactical.rules.printplay.dashboards import ROSTER

        return [Offer(d.key, f"{d.name} ({d.faction})", d.points,
                      f"{d.type}: hull {d.hull}, shields {d.shields[0]} ({d.shield_max}), impulse {d.impulse}"
                      + ("; the book's dashboard" if d.source == "book" else "; the site's dashboard"))
                for d in sorted(ROSTER.values(), key=lambda d: (d.points, d.key))]

    def setup(self, fleets, names, colours) -> dict:
        from tactical.rules.printplay.play import setup_for
        from tactical.rules.printplay.state import MATS

        mat = "4x6" if len(fleets) > 2 else "4x4"
        w, h = MATS[mat]
        # Ruling PP21: an asteroid field and a nebula (its type rolled at set-up) either side of
        # the middle, the same distance from the south and north zones.
        terrain = [{"kind": "asteroids", "at": [w / 2 - 10, h / 2], "radius": 4},
                   {"kind": "nebula", "at": [w / 2 + 10, h / 2], "radius": 4}]
        return setup_for({seat: [o.key for o in fleets[seat]] for seat in sorted(fleets)}, names=dict(names),
                         mat=mat, terrain=terrain, colours=dict(colours))


PRINTPLAY = PrintPlayBook()
