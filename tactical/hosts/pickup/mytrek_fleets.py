"""My Trek V's fleet book for pickup battles (issue 29 item 5): the house roster (the site's
designs, not the book's: ruling MT19), each priced by the "Assembling a Fleet" table (002), at
most 6 ships a side, 400 points by default (the book's worked example is one 400-point ship).
Named by the registry record as ``"tactical.hosts.pickup.mytrek_fleets:MYTREK"``."""

from __future__ import annotations

from tactical.hosts.pickup.books import FleetBook, Offer
from tactical.rules.mytrek import fleets as F
from tactical.rules.mytrek import tables as T


def _detail(d) -> str:
    extras = [k for k in ("aft", "invisibility", "torpedoes", "missiles") if getattr(d, k)]
    speed = f"Hyper {d.max_hyper}" if d.max_hyper else "sub-light"
    return (
        f"size {d.size} (hull {d.hull}), {speed}, force fields {T.ROMAN[d.fields]}, weapons {d.dice}d6"
        + (f"; {', '.join(extras)}" if extras else "")
        + " — the site's design"
    )


class MyTrekFleets(FleetBook):
    ruleset = "mytrek"
    unit = "points"
    title = "My Trek V"
    min_points = 5
    max_points = 1200
    default_points = F.FLEET_POINTS
    max_ships = F.MAX_SHIPS
    limits_text = "ruling MT19"
    sides_rule = "002 Assembling a Fleet: two fleets"

    def offers(self, user) -> list[Offer]:
        return [
            Offer(key=name.lower(), name=name, points=d.points(), detail=_detail(d))
            for name, d in sorted(F.ROSTER.items(), key=lambda kv: (-kv[1].points(), kv[0]))
            if d.points() > 0
        ]

    def setup(self, fleets, names, colours) -> dict:
        return {
            "sides": {
                str(seat): {
                    "name": names[seat],
                    "colour": colours[seat],
                    "ships": [o.name for o in fleets[seat]],
                }
                for seat in sorted(fleets)
            }
        }


MYTREK = MyTrekFleets()
