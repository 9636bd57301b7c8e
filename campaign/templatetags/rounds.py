"""``{{ number|round_name }}``: "the set-up round" for turn 0 (003 Set Up), else "turn N" — the one
name of each round on every page and email (issue 23 item 8; ``notifications.round_label``)."""

from django import template

from campaign.notifications import round_label

register = template.Library()


@register.filter
def round_name(number) -> str:
    return round_label(int(number))


@register.filter
def round_title(number) -> str:
    """The same name at the start of a line or link: "Set-up round", "Turn N"."""
    return round_label(int(number)).removeprefix("the ").capitalize()
