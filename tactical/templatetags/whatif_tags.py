"""What-if snippets for other apps' pages (issue 17, item 5): the CAM scenario page's card with the
auto-resolve odds of the two forces as the viewer may see them, the "What-if" link and the
viewer's latest what-if of that scenario. A template library, so the CAM layer imports nothing of
``tactical`` (docs/architecture.md, test (g))."""

from __future__ import annotations

from django import template

from tactical.whatif import cam as whatif_cam

register = template.Library()


@register.inclusion_tag("tactical/_cam_scenario_whatif.html", takes_context=True)
def cam_scenario_whatif(context, campaign, row):
    return {"whatif": whatif_cam.scenario_panel(context["request"].user, campaign, row)}
