"""What a pickup battle needs of a rule book beyond its online play: the ships a player may buy,
their points, the book's limits, and the battle setup its ``PlayRules.initial_state`` reads.

One ``FleetBook`` per rule book, registered with the book's ``ResolverRecord(fleets=…)`` (the
object, or its ``"module:attribute"`` path when the book's package is pure and may not import
this module). ``available()`` and ``BOOKS`` list the rule books the registry can play online
(``tactical.rules.registry.playable()``) that registered one — a rule book appears on the "new
pickup battle" page by registering, with no change here (Event Horizon's and Buoyz's fleet books
are defined below, as they read the site's designs; Print&Play's, My Trek V's and Star Sectors'
are in their own modules beside this one).

A fleet is a list of ship keys (a key may repeat: two of the same design). ``check_fleet``
refuses, with every problem named, a fleet over the points total, over the book's ship limit,
empty, or naming a ship the player may not buy (one of his own designs the book refuses is named
with its reason: ``refusals``).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tactical.rules import registry


class FleetError(ValueError):
    """A fleet the rule book does not allow; ``problems`` lists every reason."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


class DesignError(ValueError):
    """A ship design a book's designer refuses (``FleetBook.design``): ``field`` is the field at
    fault ("" for the whole design)."""

    def __init__(self, field: str, message: str):
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}" if field else message)


@dataclass(frozen=True)
class Offer:
    """A ship a player may buy: its key in fleet submissions, what it is called, its points,
    a one-line description and whether it is the player's own design (not the book's). ``data``
    is what the book needs to set the ship up later (a Buoyz custom SD as JSON), kept with the
    submitted fleet so a design changed or deleted afterwards does not change the fleet."""

    key: str
    name: str
    points: int
    detail: str = ""
    own: bool = False
    data: Mapping[str, Any] | None = field(default=None, compare=False)


class FleetBook:
    ruleset: str = ""
    unit: str = "points"
    min_points: int = 1
    max_points: int = 1000
    default_points: int = 100
    max_ships: int = 12
    limits_text: str = ""
    title: str = ""
    max_sides: int = 2  # seats in one battle (ruling PK6)
    sides_rule: str = ""
    designer: str = ""  # the designer page's title when players may design ships (``design``)

    def design(self, fields):
        """The book's designer: the checked, priced design of ``fields``, or ``DesignError``."""
        raise DesignError("", f"{self.title or self.ruleset} has no ship designer")

    def offers(self, user) -> list[Offer]:
        raise NotImplementedError

    def setup(self, fleets: Mapping[int, Sequence[Offer]], names: Mapping[int, str],
              colours: Mapping[int, str]) -> dict:
        raise NotImplementedError

    # --- shared -----------------------------------------------------------------------------

    def check_points(self, points) -> int:
        if isinstance(points, bool) or not isinstance(points, int):
            raise FleetError([f"the points total must be a whole number, not {points!r}"])
        if not self.min_points <= points <= self.max_points:
            raise FleetError([f"the points total must be between {self.min_points} and {self.max_points} "
                              f"{self.unit}, not {points}"])
        return points

    def refusals(self, user) -> dict[str, str]:
        """Keys of the player's own designs the book refuses, with the reason (shown when he
        names one); never a design he may not see."""
        return {}

    def check_fleet(self, keys: Iterable[str], offers: Sequence[Offer], points: int,
                    refusals: Mapping[str, str] | None = None) -> list[Offer]:
        by_key = {o.key: o for o in offers}
        problems, fleet, refusals = [], [], refusals or {}
        for key in keys:
            offer = by_key.get(key)
            if offer is None:
                problems.append(refusals.get(key) or f"no ship {key!r} to buy here")
            else:
                fleet.append(offer)
        if not fleet and not problems:
            problems.append("a fleet needs at least one ship")
        if len(fleet) > self.max_ships:
            problems.append(f"at most {self.max_ships} ships a side ({self.limits_text or self.ruleset}), "
                            f"not {len(fleet)}")
        total = sum(o.points for o in fleet)
        if total > points:
            problems.append(f"the fleet costs {total} {self.unit}, over the battle's {points} {self.unit} "
                            f"by {total - points}")
        if problems:
            raise FleetError(problems)
        return fleet

    def computer_fleet(self, offers: Sequence[Offer], points: int, dice) -> list[Offer]:
        """The computer doctrine's fleet (ruling PK1): ships drawn at random, one die with as many
        faces as there are ships that still fit (none when only one fits), until none fits or the ship limit is reached.
        The book's own ships only; every die is ``dice``'s (the battle's logged dice)."""
        pool = sorted((o for o in offers if not o.own), key=lambda o: (o.points, o.key))
        fleet, left = [], points
        while len(fleet) < self.max_ships:
            fits = [o for o in pool if o.points <= left]
            if not fits:
                break
            if len(fits) == 1:
                pick = fits[0]  # one ship fits: nothing to roll for
            else:
                pick = fits[
                    dice.roll(
                        1, len(fits), f"pickup battle: the computer buys its ship {len(fleet) + 1}"
                    ).total
                    - 1
                ]
            fleet.append(pick)
            left -= pick.points
        return fleet


# --- Event Horizon ------------------------------------------------------------------------------

class EventHorizonBook(FleetBook):
    """Ships bought by BP (003 "Star Ship Design Rules"): the starter design library and the
    player's own designs from his Event Horizon campaigns, every one valid under the design rules
    with every component allowed (free play: ``validate_design(technologies=None)``)."""

    ruleset = "eventhorizon"
    unit = "BP"
    title = "Event Horizon"
    sides_rule = ("003 Quick Play: the online engine deals one red and one black fleet; a suit per fleet for "
                  "three or four is not played here")
    min_points = 20
    max_points = 1000
    default_points = 240
    max_ships = 12
    limits_text = "ruling PK2"

    def _rows(self, user) -> tuple[list[Offer], dict[str, str]]:
        """The library's designs and the player's own, each valid under the design rules, and the
        player's own designs those rules refuse (with the reason)."""
        from campaign.eventhorizon.models import Design
        from campaign.rules.eventhorizon.designs import Design as Spec
        from campaign.rules.eventhorizon.designs import DesignError, validate_design

        out, refused, seen = [], {}, set()
        rows = list(Design.objects.filter(campaign__isnull=True).order_by("bp", "name"))
        if getattr(user, "is_authenticated", False):
            rows += list(Design.objects.filter(empire__user=user).order_by("bp", "name", "pk"))
        for row in rows:
            own = row.campaign_id is not None
            key = f"design-{row.pk}"
            try:
                spec = validate_design(Spec.from_dict(row.spec))
            except DesignError as exc:
                if own:
                    refused[key] = f"your design {row.name!r} ({key}) breaks {exc.rule}: {exc.message}"
                continue
            except (KeyError, TypeError, ValueError) as exc:
                if own:
                    refused[key] = f"your design {row.name!r} ({key}) cannot be read (003): {exc}"
                continue
            fingerprint = (spec.name, repr(spec.to_dict()))
            if fingerprint in seen:
                continue
            seen.add(fingerprint)
            weapons = ", ".join(f"{n}× {k.replace('_', ' ')}" for k, n in spec.weapons) or "unarmed"
            detail = (f"{spec.ship_type.value.replace('_', ' ')}: hull {spec.hull}, engine {spec.engine}, "
                      f"force field {spec.force_field or 0}; {weapons}")
            out.append(Offer(key=key, name=spec.name, points=spec.bp, detail=detail, own=own))
        return out, refused

    def offers(self, user) -> list[Offer]:
        return self._rows(user)[0]

    def refusals(self, user) -> dict[str, str]:
        return self._rows(user)[1]

    def setup(self, fleets, names, colours) -> dict:
        from campaign.eventhorizon.models import Design

        pks = {int(o.key.split("-", 1)[1]) for fleet in fleets.values() for o in fleet}
        specs = dict(Design.objects.filter(pk__in=pks).values_list("pk", "spec"))
        sides, number = {}, 0
        for seat in sorted(fleets):
            ships = []
            for offer in fleets[seat]:
                number += 1
                pk = int(offer.key.split("-", 1)[1])
                ships.append({"id": number, "name": "", "design_id": pk, "design": specs[pk], "damage": {},
                              "hero_crew": False})
            sides[str(seat)] = {"name": names[seat], "colour": colours[seat], "ships": ships}
        # Open space, no world: ruling PK3.
        return {"hex": [0, 0], "terrain": "space", "world": None, "attacker": 1, "defender": 2, "aewa": False,
                "sides": sides}


# --- Buoyz 'N Da 'Hood ----------------------------------------------------------------------------

class BuoyzBook(FleetBook):
    """SDs of the book's catalogue (000 1.5, 1.6) and the player's own custom SDs (those of the CAM
    campaigns he holds a seat in: ruling PK5) bought by their points, every one held to T'Corr's
    limits (``validate_sd``). A custom SD goes into the battle setup whole (``play.sd_from_json``)."""

    ruleset = "buoyz"
    unit = "points"
    title = "Buoyz 'N Da 'Hood"
    max_sides = 6
    sides_rule = "000 3.0, ruling BZ83"
    min_points = 5
    max_points = 240
    default_points = 40
    max_ships = 12
    limits_text = "ruling PK2"

    @staticmethod
    def _detail(sd) -> str:
        return f"{getattr(sd.ship_class, 'value', sd.ship_class)}: hull {sd.hull}"

    @staticmethod
    def _custom_rows(user):
        """The custom SDs of the CAM campaigns ``user`` holds a seat in (nobody else's)."""
        from campaign.cam.models import CamSD

        if not getattr(user, "is_authenticated", False):
            return CamSD.objects.none()
        return CamSD.objects.filter(cam__players__user=user).distinct().order_by("pk")

    def _custom(self, user) -> tuple[list[Offer], dict[str, str]]:
        from campaign.cam.adapters import sd_from_row
        from tactical.rules.buoyz.play import sd_to_json
        from tactical.rules.buoyz.sds import CATALOGUE, SDError, validate_sd

        offers, refused, seen = [], {}, set()
        for row in self._custom_rows(user):
            key = f"camsd-{row.pk}"
            try:
                sd = validate_sd(sd_from_row(row))
            except SDError as exc:
                refused[key] = f"your SD {row.name!r} ({key}) breaks {exc.rule}: {exc.message}"
                continue
            except (KeyError, TypeError, ValueError, IndexError) as exc:
                refused[key] = f"your SD {row.name!r} ({key}) cannot be read (000 1.5): {exc}"
                continue
            data = sd_to_json(sd)
            fingerprint = repr(sorted((k, repr(v)) for k, v in data.items() if k != "notes"))
            if fingerprint in seen or CATALOGUE.get(sd.key) == sd:
                continue  # the same design in two campaigns, or the book's own SD: offered once
            seen.add(fingerprint)
            offers.append(Offer(key=key, name=sd.name, points=sd.points, detail=self._detail(sd), own=True,
                                data=data))
        return offers, refused

    def offers(self, user) -> list[Offer]:
        from tactical.rules.buoyz.sds import CATALOGUE, SDError, validate_sd

        out = []
        for key, sd in sorted(CATALOGUE.items(), key=lambda kv: (kv[1].points, kv[0])):
            try:
                validate_sd(sd)
            except SDError:
                continue
            out.append(Offer(key=key, name=sd.name, points=sd.points, detail=self._detail(sd)))
        own = self._custom(user)[0]
        return out + sorted(own, key=lambda o: (o.points, o.name, o.key))

    def refusals(self, user) -> dict[str, str]:
        return self._custom(user)[1]

    def setup(self, fleets, names, colours) -> dict:
        from tactical.rules.buoyz import play as bz_play  # registered with its online play by now

        def sd(offer):
            return bz_play.sd_from_json(offer.data) if offer.data is not None else offer.key

        return bz_play.setup_for({seat: [sd(o) for o in fleets[seat]] for seat in sorted(fleets)},
                                 names=dict(names), colours=dict(colours), attacker=1)


EVENT_HORIZON = EventHorizonBook()  # registered by tactical/rules/eventhorizon/__init__.py (ResolverRecord.fleets)
BUOYZ = BuoyzBook()  # registered by tactical/rules/buoyz/__init__.py


def fleet_book_of(record: registry.ResolverRecord) -> FleetBook | None:
    """A record's fleet book: ``ResolverRecord.fleets`` is the ``FleetBook`` itself or, for a
    pure rule book package that may not import this module, its ``"module:attribute"`` path."""
    found = record.fleets
    if isinstance(found, str):
        module, _, attr = found.partition(":")
        found = getattr(importlib.import_module(module), attr)
    return found


class _RegisteredBooks(Mapping):
    """``BOOKS[name]``: the fleet book of every rule book the registry plays online."""

    def _all(self) -> dict[str, FleetBook]:
        out = {}
        for record in registry.playable():
            found = fleet_book_of(record)
            if found is not None:
                out[record.name] = found
        return out

    def __getitem__(self, name: str) -> FleetBook:
        return self._all()[name]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


BOOKS: Mapping[str, FleetBook] = _RegisteredBooks()


def available() -> list[tuple[str, str, FleetBook]]:
    """(name, title, fleet book) of every rule book a pickup battle may be fought under: those
    the registry plays online and that registered a fleet book."""
    books = BOOKS._all()
    return [(r.name, r.title, books[r.name]) for r in registry.playable() if r.name in books]


def book(name: str) -> FleetBook:
    for key, _, found in available():
        if key == name:
            return found
    names = ", ".join(k for k, _, _ in available()) or "none"
    raise FleetError([f"no rule book {name!r} can be played as a pickup battle (one of: {names})"])
