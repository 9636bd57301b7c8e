"""Helpers shared by the campaign management commands."""

from django.core.management.base import CommandError

from campaign.models import Campaign


def get_campaign(ident: str) -> Campaign:
    """A campaign by id; CommandError naming the problem otherwise."""
    try:
        pk = int(ident)
    except (TypeError, ValueError):
        raise CommandError(f"'{ident}' is not a campaign id (a whole number)") from None
    try:
        return Campaign.objects.get(pk=pk)
    except Campaign.DoesNotExist:
        raise CommandError(f"there is no campaign with id {pk}") from None


def parse_size(text: str) -> tuple[int, int]:
    """'40x30' -> (40, 30)."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise CommandError(f"--size must look like WIDTHxHEIGHT (e.g. 40x40), not '{text}'")
    return int(parts[0]), int(parts[1])
