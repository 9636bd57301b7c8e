"""Print&Play's pickup fleet book (issue 30): the house roster's dashboards and the player's own
(designed on the dashboard designer page: tactical/hosts/pickup/designs.py), bought by points, two
to six sides (the dice bag, 001 Initiative). Registered by ``tactical/rules/printplay/`` as
``"tactical.hosts.pickup.printplay:PRINTPLAY"`` (the pure package may not import this module)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tactical.hosts.pickup.books import DesignError, FleetBook, Offer

# The designer page's fields, as ``dashboards.Dashboard.to_json`` names them (ruling PP2).
DESIGN_FIELDS = ("name", "faction", "type", "shields", "shield_max", "hull", "impulse", "sensors", "wps", "ecm",
                 "ablative", "emergency", "abilities", "weapons")
WEAPON_FIELDS = ("name", "mount", "qty", "hit", "dmg", "range", "arc", "kind", "minus_shields", "burst")
MAX_WEAPONS = 8


def _detail(d) -> str:
    return f"{d.type}: hull {d.hull}, shields {d.shields[0]} ({d.shield_max}), impulse {d.impulse}"


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
    designer = "Dashboard designer"  # the player designs his own ships (tactical/hosts/pickup/designs.py)

    # --- the designer --------------------------------------------------------------------------

    def design(self, raw: Any):
        """The engine's designer on a design as sent (JSON or the form's): the priced ``Dashboard``,
        or ``DesignError`` naming the field (``dashboards.DashboardError.field``)."""
        from tactical.rules.printplay import dashboards as dash

        if not isinstance(raw, Mapping):
            raise DesignError("", "a design is an object of the dashboard's fields")
        unknown = sorted(str(k)[:20] for k in raw if k not in DESIGN_FIELDS)
        if unknown:
            raise DesignError(unknown[0], f"no dashboard field {unknown[0]!r} (the fields: {', '.join(DESIGN_FIELDS)})")
        fields = {k: raw[k] for k in DESIGN_FIELDS if k in raw}
        shields = fields.pop("shields", None)
        if isinstance(shields, Mapping):
            shields = [shields.get(side) for side in dash.SIDES]
        if not isinstance(shields, list) or len(shields) != 4:
            raise DesignError("shields", "shields are four numbers: fore, aft, port, starboard")
        abilities = fields.pop("abilities", [])
        if not isinstance(abilities, list) or not all(isinstance(a, str) for a in abilities) or len(abilities) > 5:
            raise DesignError("abilities", f"abilities are a list of: {', '.join(dash.ABILITIES)}")
        weapons = fields.pop("weapons", None)
        if not isinstance(weapons, list) or not 1 <= len(weapons) <= MAX_WEAPONS:
            raise DesignError("weapons", f"a dashboard has 1 to {MAX_WEAPONS} weapon lines")
        lines = []
        for i, w in enumerate(weapons):
            if not isinstance(w, Mapping) or set(w) - set(WEAPON_FIELDS) or not set(WEAPON_FIELDS[:7]) <= set(w):
                raise DesignError(f"weapons.{i}", f"a weapon line has the fields {', '.join(WEAPON_FIELDS)} "
                                  "(kind, minus_shields and burst may be left out)")
            lines.append(dash.Weapon(**{k: w[k] for k in WEAPON_FIELDS if k in w}))
        missing = [k for k in ("name", "faction", "type", "shield_max", "hull", "impulse") if k not in fields]
        if missing:
            raise DesignError(missing[0], f"the dashboard needs its {missing[0]}")
        try:
            return dash.design("own", shields=shields, weapons=lines, abilities=tuple(abilities), source="player",
                               **fields)
        except dash.DashboardError as exc:
            raise DesignError(exc.field, f"{exc.rule}: {exc.message}") from None

    def _own(self, user) -> tuple[list[Offer], dict[str, str]]:
        from tactical.models import PlayerDesign
        from tactical.rules.printplay import dashboards as dash

        if not getattr(user, "is_authenticated", False):
            return [], {}
        offers, refused = [], {}
        for row in PlayerDesign.objects.filter(owner=user, ruleset=self.ruleset).order_by("points", "name", "pk"):
            key = f"design-{row.pk}"
            try:  # checked again: a design stored before a change of the designer's limits
                d = dash.from_json({**row.data, "key": key})
            except dash.DashboardError as exc:
                refused[key] = f"your design {row.name!r} ({key}) breaks {exc.rule}: {exc.message}"
                continue
            d = dash.Dashboard(**{**d.__dict__, "points": dash.points_for(d)})
            offers.append(Offer(key, f"{d.name} ({d.faction})", d.points, _detail(d) + "; your dashboard",
                                own=True, data=d.to_json()))
        return offers, refused

    def offers(self, user) -> list[Offer]:
        from tactical.rules.printplay.dashboards import ROSTER

        house = [Offer(d.key, f"{d.name} ({d.faction})", d.points,
                       _detail(d) + ("; the book's dashboard" if d.source == "book" else "; the site's dashboard"))
                 for d in sorted(ROSTER.values(), key=lambda d: (d.points, d.key))]
        return house + self._own(user)[0]

    def refusals(self, user) -> dict[str, str]:
        return self._own(user)[1]

    def setup(self, fleets, names, colours) -> dict:
        from tactical.rules.printplay.play import setup_for
        from tactical.rules.printplay.state import MATS

        mat = "4x6" if len(fleets) > 2 else "4x4"
        w, h = MATS[mat]
        # Ruling PP21: an asteroid field and a nebula (its type rolled at set-up) either side of
        # the middle, the same distance from the south and north zones.
        terrain = [{"kind": "asteroids", "at": [w / 2 - 10, h / 2], "radius": 4},
                   {"kind": "nebula", "at": [w / 2 + 10, h / 2], "radius": 4}]
        return setup_for({seat: [o.data if o.data is not None else o.key for o in fleets[seat]]
                          for seat in sorted(fleets)}, names=dict(names),
                         mat=mat, terrain=terrain, colours=dict(colours))


PRINTPLAY = PrintPlayBook()
