"""``{% press_link campaign %}``: the link to a campaign's press with the viewer's unread count,
for the campaign pages of every layer."""

from django import template
from django.urls import reverse
from django.utils.html import format_html

from .. import visibility

register = template.Library()


@register.simple_tag(takes_context=True)
def press_link(context, campaign):
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return ""
    reader = visibility.reader(campaign, user)
    if reader.role is None:
        return ""
    unread = sum(visibility.unread_counts(reader).values())
    url = reverse("press", args=[campaign.pk])
    if unread:
        return format_html('<a href="{}" id="press-link">Press <span class="pill">{} new</span></a>', url, unread)
    return format_html('<a href="{}" id="press-link">Press</a>', url)
