"""Star Sectors' fleet book for pickup battles and what-if (issue 28 items 1 and 7): the site's
house roster of profile cards (the book prints none: ``tactical.rules.starsectors.cards.ROSTER``)
and the player's own cards from the card designer page (``battles/designs/starsectors/``:
tactical/hosts/pickup/designs.py), every one priced by 004 III (its CF, +1 per cloaking device,
advanced weapon bank and extra engineering phase: ruling SS2) and checked by the engine
(``cards.design_from``). Fleets of 15, 25, 100 points … (III); the limits are ruling SS23, the
player's own cards ruling SS31. Named by the registry record as
``"tactical.hosts.pickup.starsectors_fleets:STAR_SECTORS"``."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from django.utils.text import slugify

from tactical.hosts.pickup.books import DesignError, FleetBook, Offer
from tactical.rules.starsectors import cards as C


def _detail(card: C.Card, whose: str) -> str:
    banks = ", ".join(card.banks) or "no advanced banks"
    extra = ", +1 engineering phase" if card.extra_phases else ""
    power = f"{card.power}: " if card.power else ""
    return (f"{power}CF {card.cf} DF {card.df} MF {card.mf} SS {card.ss}, cargo {card.cargo}, "
            f"{card.nacelles} nacelle(s){extra}, {card.cloaks} cloak(s), {banks}; arc {card.arc}, hull {card.hull} "
            f"({whose})")


def _problems_text(exc: C.CardError) -> str:
    parts = [f"{message} ({rule})" for rule, message in exc.problems.values()]
    if len(parts) > 1:
        parts = [f"{field or 'card'}: {p}" for field, p in zip(exc.problems, parts)]
    return "; ".join(parts)


@dataclass(frozen=True)
class PricedCard:
    """A card the engine checked, as the designer store keeps it (``designs.save_design``): its
    designer fields only (``cards.DESIGN_FIELDS``), so it is checked again the same way when offered."""

    name: str
    points: int
    data: dict

    def to_json(self) -> dict:
        return dict(self.data)


def card_key(name: str) -> str:
    """A player's card in a battle: ``own-`` and its name (never the stored row's number)."""
    return f"own-{slugify(name)[:30] or 'card'}"


class StarSectorsFleets(FleetBook):
    ruleset = "starsectors"
    unit = "points"
    title = "Star Sectors"
    max_sides = 6
    sides_rule = "004 III, ruling SS1"
    min_points = 5
    max_points = 200
    default_points = 25
    max_ships = 16
    limits_text = "ruling SS23"
    designer = "Card designer"  # players design their own profile cards (tactical/hosts/pickup/designs.py)
    design_form = "tactical.hosts.pickup.starsectors_designs:StarSectorsCardForm"
    design_template = "tactical/rulesets/starsectors/designs.html"

    def design(self, fields: Any) -> PricedCard:
        """The engine's card designer on a card as sent (the page's fields or the API's JSON): the
        card priced by III, or ``DesignError`` at the first field at fault (its message names
        every one, each with its section)."""
        try:
            card = C.design_from(fields)
        except C.CardError as exc:
            raise DesignError(exc.field, _problems_text(exc)) from None
        data = card.to_json()
        return PricedCard(card.name, card.points, {k: data[k] for k in C.DESIGN_FIELDS})

    def _own(self, user) -> tuple[list[Offer], dict[str, str]]:
        """His own cards (nobody else's), each checked again (a row stored past the checks: the
        admin, or older than them), and those the designer now refuses, with the reason."""
        from tactical.models import PlayerDesign

        if not getattr(user, "is_authenticated", False):
            return [], {}
        offers, refused = [], {}
        rows = PlayerDesign.objects.filter(owner=user, ruleset=self.ruleset).order_by("points", "name", "pk")
        for row in rows:
            key = f"design-{row.pk}"
            try:
                card = C.design_from(row.data, key=card_key(row.name))
            except C.CardError as exc:
                refused[key] = f"your card {row.name!r} ({key}) breaks {exc.rule}: {exc.message}"
                continue
            offers.append(Offer(key, card.name, card.points, _detail(card, "your card"), own=True,
                                data=card.to_json()))
        return offers, refused

    def offers(self, user) -> list[Offer]:
        """The house roster by points, then his own cards by points."""
        house = [Offer(key=c.key, name=c.name, points=c.points, detail=_detail(c, "a house card, the site's"))
                 for c in sorted(C.ROSTER.values(), key=lambda c: (c.points, c.key))]
        return house + self._own(user)[0]

    def refusals(self, user) -> dict[str, str]:
        return self._own(user)[1]

    def setup(self, fleets, names, colours) -> dict:
        from tactical.rules.starsectors.fleets import random_terrain

        total = sum(o.points for fleet in fleets.values() for o in fleet)
        width, height = (20, 16) if total > 80 else (14, 10)
        rng = random.Random(repr(sorted((seat, [o.key for o in fleets[seat]]) for seat in fleets)))
        return {"width": width, "height": height,
                "sides": {str(seat): {"name": names.get(seat, f"Side {seat}"),
                                      "ships": [{"card": dict(o.data) if o.data is not None else o.key}
                                                for o in fleets[seat]]}
                          for seat in sorted(fleets)},
                "terrain": random_terrain(rng, width, height, 3)}


STAR_SECTORS = StarSectorsFleets()  # registered by tactical/rules/starsectors/__init__.py
