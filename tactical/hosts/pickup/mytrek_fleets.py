"""My Trek V's fleet book for pickup battles (issue 29 item 5): the house roster (the site's
designs, not the book's: ruling MT19) and the player's own designs (the ship designer page,
``battles/designs/mytrek/``: tactical/hosts/pickup/designs.py), each priced by the "Assembling a
Fleet" table (002) and checked by the engine (``fleets.design_from``), at most 6 ships a side, 400
points by default (the book's worked example is one 400-point ship). Named by the registry record
as ``"tactical.hosts.pickup.mytrek_fleets:MYTREK"``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tactical.hosts.pickup.books import DesignError, FleetBook, Offer
from tactical.rules.kit import IllegalActionError
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


@dataclass(frozen=True)
class Priced:
    """A design the engine checked, as the designer store keeps it (``designs.save_design``)."""

    name: str
    points: int
    data: dict

    def to_json(self) -> dict:
        return dict(self.data)


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
    designer = "Ship designer"  # players design their own ships (tactical/hosts/pickup/designs.py)
    design_form = "tactical.hosts.pickup.mytrek_designs:MyTrekDesignForm"
    design_template = "tactical/rulesets/mytrek/designs.html"

    def design(self, fields: Any) -> Priced:
        """The engine's design checks on a design as sent (the page's fields or the API's JSON):
        the design priced by the points table, or ``DesignError`` naming the first field at fault
        (its message names every one)."""
        if not isinstance(fields, Mapping):
            raise DesignError(
                "", f"{T.FLEET}: a design is an object of its fields ({', '.join(F.DESIGN_FIELDS)})"
            )
        try:
            d = F.design_from(fields)
        except IllegalActionError as exc:  # the engine's DesignError names every field at fault
            problems = getattr(exc, "problems", None) or {"": exc.message}
            text = "; ".join(f"{k}: {v}" if k and len(problems) > 1 else v for k, v in problems.items())
            raise DesignError(next(iter(problems)), f"{T.FLEET}: {text}") from None
        return Priced(d.name, d.points(), F.design_json(d))

    def _own(self, user) -> tuple[list[Offer], dict[str, str]]:
        from tactical.models import PlayerDesign

        if not getattr(user, "is_authenticated", False):
            return [], {}
        offers, refused = [], {}
        for row in PlayerDesign.objects.filter(owner=user, ruleset=self.ruleset).order_by(
            "points", "name", "pk"
        ):
            key = f"design-{row.pk}"
            try:  # checked again: a row stored past the checks (the admin, or older than them)
                d = F.design_from(row.data)
            except IllegalActionError as exc:
                refused[key] = f"your design {row.name!r} ({key}) breaks {exc.rule}: {exc.message}"
                continue
            detail = _detail(d).replace(" — the site's design", " — your design")
            offers.append(Offer(key, d.name, d.points(), detail, own=True, data=F.design_json(d)))
        return offers, refused

    def offers(self, user) -> list[Offer]:
        house = [
            Offer(key=name.lower(), name=name, points=d.points(), detail=_detail(d))
            for name, d in sorted(F.ROSTER.items(), key=lambda kv: (-kv[1].points(), kv[0]))
            if d.points() > 0
        ]
        return house + self._own(user)[0]

    def refusals(self, user) -> dict[str, str]:
        return self._own(user)[1]

    def setup(self, fleets, names, colours) -> dict:
        return {
            "sides": {
                str(seat): {
                    "name": names[seat],
                    "colour": colours[seat],
                    "ships": [o.data if o.data is not None else o.name for o in fleets[seat]],
                }
                for seat in sorted(fleets)
            }
        }


MYTREK = MyTrekFleets()
