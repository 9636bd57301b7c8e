"""The moderator's pages: the panel of a running campaign (pause, resume, extend the deadline,
process now, roll back the last turn, substitute a player, add a co-moderator) and the audit log.

Thin, like every view: find the campaign among those the user may see (an outsider gets 404),
refuse non-moderators (403), validate the form, call one action, redirect with a message; a
refused action comes back on the panel as an error (400), never half done.

The same pages serve every campaign layer with the "moderation" feature (``campaign/layers.py``):
the layer gives its open step (deadline), its roll-back preview and its part of the panel
(``panel_template``). Process now, substitute and the rule options answer 404 for a layer
without those features.
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import capfirst
from django.views.decorators.http import require_POST

from .. import actions, battles, layers
from ..access import is_moderator, role_of, visible_campaigns
from ..forms import OPTION_FIELDS, AddModeratorForm
from ..models import AuditEntry, Campaign, Membership, Turn, TurnOrders
from ..notifications import round_label

ACTION_LABELS = {
    "pause": "Paused", "resume": "Resumed", "extend": "Deadline extended", "process_now": "Turn processed now",
    "roll_back": "Turn rolled back", "substitute": "Player substituted", "admin_add": "Added (admin)",
    "admin_change": "Changed (admin)", "admin_delete": "Deleted (admin)",
    "text_orders": "Orders sent as text", "order_secret": "New order secret", "set_option": "Option changed",
    "cam_start": "Rubber started", "cam_add_sd": "Ship design added", "cam_between": "Between scenarios",
    "cam_confirm_held": "Held result confirmed", "cam_dispute": "Result disputed", "cam_settle": "Dispute settled",
    "cam_scenario_mode": "Scenario mode changed", "cam_ship_tables": "Ship tables chosen",
    "cam_deadline": "Step deadline passed", "cam_resume_step": "Step resumed",
}


def action_label(action: str) -> str:
    """The audit log's words for an action (issue 23 item 25): never its raw key."""
    return ACTION_LABELS.get(action) or action.removeprefix("cam_").replace("_", " ").capitalize()


class ExtendForm(forms.Form):
    hours = forms.IntegerField(
        min_value=1, max_value=actions.MAX_EXTENSION_HOURS, initial=24,
        help_text=f"Added to the deadline (from now if it has passed); 1 to {actions.MAX_EXTENSION_HOURS}. "
        "While paused, added to the time players get back on resuming.",
    )


class SubstituteForm(forms.Form):
    seat = forms.TypedChoiceField(coerce=int, choices=[], help_text="The seat to hand over.")
    username = forms.CharField(
        max_length=150, required=False,
        help_text="The new player's username (an account on this site). Leave empty to hand the seat to the computer.",
    )
    old_player = forms.ChoiceField(
        label="The old player", initial="observer",
        choices=[("observer", "stays as an observer"), ("remove", "leaves the campaign")],
    )

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seat"].choices = [
            (e.seat, f"{e.seat}: {e.name} ({e.user.username if e.user else 'computer'})")
            for e in campaign.empires.filter(eliminated=False).select_related("user").order_by("seat")
        ]


class RollBackForm(forms.Form):
    turn = forms.IntegerField(min_value=0, widget=forms.HiddenInput)  # 0: the set-up round


class ProcessNowForm(forms.Form):
    """The turn the panel showed (issue 14: a second click, or a form posted again, finds the turn
    processed and changes nothing) and, when some players are not ready, the moderator's yes."""

    turn = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    anyway = forms.BooleanField(required=False, label="Process even though not every player is ready")


def _not_ready(campaign: Campaign, turn: Turn | None) -> list:
    """The human players of the open turn who have not marked ready (the panel asks before
    processing without them)."""
    if turn is None or turn.status != Turn.Status.OPEN:
        return []
    ready = set(TurnOrders.objects.filter(turn=turn, ready=True).values_list("empire_id", flat=True))
    return [e for e in campaign.empires.filter(is_bot=False, eliminated=False).order_by("seat") if e.pk not in ready]


def _moderated(request, campaign_id: int, feature: str = "moderation") -> Campaign:
    campaign = get_object_or_404(visible_campaigns(request.user).filter(layer__in=layers.having(feature)),
                                 pk=campaign_id)
    if not is_moderator(request.user, campaign):
        raise PermissionDenied("only the campaign's moderators can use the moderation panel")
    return campaign


def _duration(delta) -> str:
    """'2 days 5 h 3 min' (to the minute)."""
    minutes = int(delta.total_seconds() // 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = [f"{days} day{'s' if days != 1 else ''}"] if days else []
    parts += [f"{hours} h"] if hours else []
    parts += [f"{minutes} min"] if minutes or not parts else []
    return " ".join(parts)


def _panel(request, campaign: Campaign, *, status: int = 200, error: str = "", **forms_):
    campaign.refresh_from_db()
    layer = layers.of(campaign)
    step = layer.current_step(campaign)
    turn = step.row if layer.has("orders") else None
    moderators = list(
        Membership.objects.filter(campaign=campaign, role=Membership.Role.MODERATOR).select_related("user")
    )
    context = {
        "campaign": campaign,
        "layer": layer,
        "exportable": layer.export is not None,
        "orders": layer.has("orders"),
        "campaign_url": reverse(layer.detail_url, args=[campaign.pk]),
        "step": step,
        "turn": turn,
        "now": timezone.now(),
        "paused_left": _duration(campaign.paused_remaining) if campaign.paused_remaining is not None else None,
        "moderators": moderators,
        "rollback": layer.roll_back_preview(campaign),
        "error": error,
        "extend_form": forms_.get("extend_form") or ExtendForm(),
        "moderator_form": forms_.get("moderator_form") or AddModeratorForm(),
        "audit_count": AuditEntry.objects.filter(campaign=campaign).count(),
        **layer.panel(campaign),
    }
    if layer.has("process_now"):
        context["not_ready"] = _not_ready(campaign, turn)
    if layer.has("substitute"):
        context["substitute_form"] = forms_.get("substitute_form") or SubstituteForm(campaign=campaign)
    if layer.has("options"):
        books = battles.handler().book_choices(campaign.layer)
        begun = layer.battles_begun or battles.handler().battles_begun  # the layer's own test (issue 31)
        context["battles_begun"] = len(books) > 1 and begun(campaign)
        context["switchable_options"] = [
            {"key": key, "value": campaign.options.get(key, actions.DEFAULT_OPTIONS[key]) or (
                books[0][0] if key == actions.BOOK_OPTION and books else ""),
             "label": OPTION_FIELDS.get(key, (key, ""))[0], "help": OPTION_FIELDS.get(key, (key, ""))[1],
             "choices": books if key == actions.BOOK_OPTION else None}
            for key in sorted(actions.SWITCHABLE_OPTIONS & layer.options)
            if key != actions.BOOK_OPTION or len(books) > 1]
    return render(request, "moderation/panel.html", context, status=status)


def _run(request, campaign: Campaign, success: str, action, **kwargs):
    """Call one action; on success a message and back to the panel, refused: the panel with the
    reason (400)."""
    try:
        result = action(campaign_id=campaign.pk, user=request.user, **kwargs)
    except actions.NotFound as exc:
        raise Http404(str(exc)) from None
    except actions.NotAllowed as exc:
        raise PermissionDenied(str(exc)) from None
    except actions.TurnClosed as exc:  # the turn named moved on meanwhile (a second click): 409
        return _panel(request, campaign, status=409, error=str(exc))
    except actions.ActionError as exc:
        return _panel(request, campaign, status=400, error=str(exc))
    if success:
        messages.success(request, success.format(result=result))
    return redirect("moderation-panel", campaign.pk)


@login_required
def panel(request, campaign_id: int):
    return _panel(request, _moderated(request, campaign_id))


@login_required
@require_POST
def pause(request, campaign_id: int):
    campaign = _moderated(request, campaign_id)
    return _run(request, campaign, "The campaign is paused: no turn is processed until you resume it.",
                actions.pause_campaign)


@login_required
@require_POST
def resume(request, campaign_id: int):
    campaign = _moderated(request, campaign_id)
    return _run(request, campaign, "The campaign runs again; the deadline is moved on by the pause.",
                actions.resume_campaign)


@login_required
@require_POST
def extend(request, campaign_id: int):
    campaign = _moderated(request, campaign_id)
    form = ExtendForm(request.POST)
    if not form.is_valid():
        return _panel(request, campaign, status=400, extend_form=form)
    return _run(request, campaign, f"Extended by {form.cleaned_data['hours']} hours.", actions.extend_deadline,
                hours=form.cleaned_data["hours"])


def confirm_page(request, campaign: Campaign, *, title: str, question: str, points, confirm_label: str,
                 action_url: str, cancel_url: str, undo_hint: str = ""):
    """Ask before an action that cannot be undone (issue 13 item 17): the same form again, with
    every field posted so far, and confirm=yes."""
    fields = [(k, v) for k, v in request.POST.items() if k not in ("csrfmiddlewaretoken", "confirm")]
    return render(request, "moderation/confirm.html", {
        "campaign": campaign, "title": title, "question": question, "points": list(points),
        "confirm_label": confirm_label, "action_url": action_url, "cancel_url": cancel_url,
        "undo_hint": undo_hint, "fields": fields,
    })


@login_required
@require_POST
def set_options(request, campaign_id: int):
    """The panel's rule options (checkboxes): each switchable option is set to what was sent."""
    campaign = _moderated(request, campaign_id, "options")
    keys = sorted(actions.SWITCHABLE_OPTIONS & layers.of(campaign).options)
    for key in keys:
        if key == actions.BOOK_OPTION:  # a choice (issue 31); not sent: unchanged
            if key not in request.POST:
                continue
            value = request.POST.get(key, "")
        else:
            value = bool(request.POST.get(key))
        response = _run(
            request,
            campaign,
            "Rule options saved." if key == keys[-1] else "",
            actions.set_campaign_option,
            key=key,
            value=value,
        )
        if response.status_code != 302:
            return response
    return redirect("moderation-panel", campaign.pk)


@login_required
@require_POST
def process(request, campaign_id: int):
    campaign = _moderated(request, campaign_id, "process_now")
    form = ProcessNowForm(request.POST)
    if not form.is_valid():
        return _panel(request, campaign, status=400, error="the process-now form did not say which turn: "
                      "reload the panel and try again")
    number = form.cleaned_data["turn"]
    waiting = _not_ready(campaign, Turn.objects.filter(campaign=campaign, number=number).first())
    if waiting and not form.cleaned_data["anyway"] and number == campaign.turn:
        names = ", ".join(e.name for e in waiting)
        return _panel(request, campaign, status=400, error=f"not every player is ready for turn {number} "
                      f"(not ready: {names}): tick \"process even though not every player is ready\" to process it now")
    return _run(request, campaign, capfirst(round_label(number)) + " has been processed.", actions.process_now,
                turn_number=number)


@login_required
def roll_back(request, campaign_id: int):
    """GET: what a roll-back would undo (the layer's ``roll_back_preview``), and a button; POST:
    roll back the last turn or step (``actions.roll_back_step``, through the layer)."""
    campaign = _moderated(request, campaign_id)
    layer = layers.of(campaign)
    if request.method == "POST":
        form = RollBackForm(request.POST)
        if not form.is_valid():
            return _panel(request, campaign, status=400, error="the roll-back form was incomplete: start again")
        done = (
            capfirst(round_label(form.cleaned_data["turn"]))
            + " has been rolled back. The campaign is paused: resume it or process the turn now."
            if layer.has("process_now")
            else "Step {result.number} ({result.label}) has been rolled back. The campaign is paused: "
                 "resume it to give "
            "the step its full time."
        )
        return _run(request, campaign, done, actions.roll_back_step, number=form.cleaned_data["turn"])
    preview = layer.roll_back_preview(campaign)
    if preview is None:
        nothing = ("no turn has been processed yet: there is nothing to roll back" if layer.has("process_now")
                   else "no step has been made yet: there is nothing to roll back")
        return _panel(request, campaign, status=400, error=nothing)
    context = {"campaign": campaign, "layer": layer, "form": RollBackForm(initial={"turn": preview["number"]}),
               **preview}
    return render(request, preview.get("template", "moderation/rollback_step.html"), context)


@login_required
@require_POST
def substitute(request, campaign_id: int):
    campaign = _moderated(request, campaign_id, "substitute")
    form = SubstituteForm(request.POST, campaign=campaign)
    if not form.is_valid():
        return _panel(request, campaign, status=400, substitute_form=form)
    data = form.cleaned_data
    who = data["username"].strip() or "the computer"
    return _run(request, campaign, f"Seat {data['seat']} now belongs to {who}.", actions.substitute_player,
                seat=data["seat"], username=data["username"], old_player=data["old_player"])


@login_required
@require_POST
def add_moderator(request, campaign_id: int):
    """The lobby's add_moderator action, from the panel of a running campaign."""
    campaign = _moderated(request, campaign_id)
    form = AddModeratorForm(request.POST)
    if not form.is_valid():
        return _panel(request, campaign, status=400, moderator_form=form)
    return _run(request, campaign, "{result.user.username} is now a moderator of this campaign.",
                actions.add_moderator, username=form.cleaned_data["username"])


@login_required
def audit_log(request, campaign_id: int):
    """Moderators always; players and observers once the campaign has ended (403 with the reason
    before that); outsiders 404."""
    campaign = get_object_or_404(visible_campaigns(request.user).filter(layer__in=layers.having("audit")),
                                 pk=campaign_id)
    if not is_moderator(request.user, campaign) and campaign.status != Campaign.Status.FINISHED:
        if role_of(request.user, campaign) is None:
            raise Http404("no such campaign")
        return render(request, "moderation/audit_closed.html", {"campaign": campaign}, status=403)
    entries = AuditEntry.objects.filter(campaign=campaign).select_related("user").order_by("-at", "-id")
    turns = layers.of(campaign).has("process_now")
    page = Paginator(entries, 50).get_page(request.GET.get("page"))
    rows = [
        {"entry": e, "label": "Step rolled back" if e.action == "roll_back" and not turns else action_label(e.action),
         "before": json.dumps(e.before, indent=1, sort_keys=True) if e.before is not None else "",
         "after": json.dumps(e.after, indent=1, sort_keys=True) if e.after is not None else ""}
        for e in page
    ]
    return render(request, "moderation/audit.html", {"campaign": campaign, "page": page, "rows": rows,
                                                      "moderator": is_moderator(request.user, campaign)})
