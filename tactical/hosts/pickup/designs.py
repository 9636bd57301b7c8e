"""A player's own ship designs for pickup battles, under a rule book whose fleet book has a
designer (``FleetBook.designer``; Print&Play's dashboards, issue 30): saved only once the book's
designer has checked and priced them (``FleetBook.design``), offered in every pickup battle of
that book he plays in (``FleetBook.offers(user)``, like Buoyz's custom SDs), deleted by him.
Nobody else sees or buys them; a refused design writes nothing."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from tactical.models import PlayerDesign

from .actions import Conflict, NotFound, PickupError
from .books import DesignError, FleetError, book

MAX_DESIGNS = 40  # a player's designs per rule book


class DesignRefused(PickupError):
    """The designer's refusal: ``field`` names the field at fault (the page shows it there)."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.field = field


def designer_book(ruleset: str):
    """The fleet book of ``ruleset`` if it has a designer; ``NotFound`` otherwise."""
    try:
        found = book(ruleset)
    except FleetError:
        raise NotFound(f"no rule book {ruleset!r} with a designer") from None
    if not getattr(found, "designer", ""):
        raise NotFound(f"{found.title} has no ship designer on this site")
    return found


def designs_of(user, ruleset: str):
    if not getattr(user, "is_authenticated", False):
        return PlayerDesign.objects.none()
    return PlayerDesign.objects.filter(owner=user, ruleset=ruleset)


@transaction.atomic
def save_design(*, user, ruleset: str, fields) -> PlayerDesign:
    """Check and price ``fields`` with the book's designer and keep the design as the book stores it."""
    found = designer_book(ruleset)
    try:
        design = found.design(fields)
    except DesignError as exc:
        raise DesignRefused(exc.message, exc.field) from None
    except (TypeError, ValueError) as exc:  # a value of the wrong kind the designer did not name
        raise DesignRefused(f"not a design: {str(exc)[:200]}") from None
    # Locked per player so two saves at once cannot pass the limit together.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    if designs_of(user, ruleset).count() >= MAX_DESIGNS:
        raise Conflict(f"you have {MAX_DESIGNS} designs for {found.title} already: delete one first")
    return PlayerDesign.objects.create(owner=user, ruleset=ruleset, name=design.name, points=design.points,
                                       data=design.to_json())


@transaction.atomic
def delete_design(*, user, ruleset: str, design_id: int) -> None:
    """Delete one of his designs (a fleet that bought it keeps it: the fleet holds the design as bought)."""
    deleted, _ = designs_of(user, ruleset).filter(pk=design_id).delete()
    if not deleted:
        raise NotFound(f"no design {design_id} of yours")


__all__ = ["DesignRefused", "MAX_DESIGNS", "delete_design", "designer_book", "designs_of", "save_design"]
