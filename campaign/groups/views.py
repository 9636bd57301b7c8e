"""Pages of away dates, the calendar feed and webhooks (thin: each look-up starts from what the
user may see, outsiders get 404; each change is one action).

    /away/                              your absences: declare, end early, cancel
    /away/<id>/end/                     POST: back early (or cancel one to come)
    /campaigns/<id>/away/               who is away in the campaign (moderators: notes, effects, policy)
    /campaigns/<id>/away/policy/        POST (moderator): the campaign's away policy
    /calendar/                          your deadline calendar: make, replace or revoke its secret URL
    /calendar/<secret>.ics              the feed itself (no log-in: the secret is the key)
    /campaigns/<id>/webhooks/           (moderator) the campaign's webhooks and their log
"""

from __future__ import annotations

from django import forms
from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from campaign import layers
from campaign.access import is_moderator, role_of, visible_campaigns
from campaign.actions.errors import ActionError, NotFound
from campaign.models import Campaign

from . import away, calendar, webhooks
from .models import Absence, AwayEffect, AwayMode, Webhook, WebhookEvent

ALL = ""


class AbsenceForm(forms.Form):
    starts = forms.DateTimeField(label="Away from (UTC)", widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    ends = forms.DateTimeField(label="Back on (UTC)", widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    campaign = forms.ChoiceField(label="For", required=False)
    note = forms.CharField(label="Note for the moderators (optional; other players never see it)", required=False,
                           max_length=200)

    def __init__(self, *args, user, campaign=None, **kwargs):
        super().__init__(*args, **kwargs)
        if campaign is not None:
            self.fields["campaign"].choices = [(str(campaign.pk), campaign.name)]
            self.fields["campaign"].initial = str(campaign.pk)
        else:
            mine = visible_campaigns(user).exclude(status=Campaign.Status.FINISHED).order_by("name")
            self.fields["campaign"].choices = [(ALL, "All my campaigns")] + [(str(c.pk), c.name) for c in mine]


class PolicyForm(forms.Form):
    mode = forms.ChoiceField(label="When a player is away", widget=forms.RadioSelect)
    limit_hours = forms.IntegerField(label="Longest extension (hours)", min_value=1, max_value=away.MAX_LIMIT_HOURS)
    substitute = forms.CharField(label="Substitute to ask (a user name)", required=False, max_length=150)

    def __init__(self, *args, campaign, **kwargs):
        super().__init__(*args, **kwargs)
        offered = layers.of(campaign).away_modes
        self.fields["mode"].choices = [(m.value, m.label) for m in AwayMode if m.value in offered]


class WebhookForm(forms.Form):
    url = forms.CharField(label="Address (URL)", max_length=500)
    preset = forms.ChoiceField(label="Format", choices=Webhook.Preset.choices)
    events = forms.MultipleChoiceField(label="Events", choices=WebhookEvent.choices,
                                       widget=forms.CheckboxSelectMultiple,
                                       initial=[WebhookEvent.TURN, WebhookEvent.ANNOUNCEMENT])


def _campaign(request, campaign_id: int) -> Campaign:
    campaign = visible_campaigns(request.user).filter(pk=campaign_id).first()
    if campaign is None:
        raise Http404("no such campaign")
    return campaign


@login_required
def my_absences(request):
    form = AbsenceForm(request.POST or None, user=request.user)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                cid = form.cleaned_data["campaign"]
                away.declare_absence(user=request.user, starts=form.cleaned_data["starts"],
                                     ends=form.cleaned_data["ends"], note=form.cleaned_data["note"],
                                     campaign_id=int(cid) if cid else None)
                flash.success(request, "Your absence is recorded.")
                return redirect("away-mine")
            except ActionError as exc:
                form.add_error(None, str(exc))
        status = 400
    rows = Absence.objects.filter(user=request.user, ended_at__isnull=True, ends__gt=timezone.now()) \
        .select_related("campaign")
    return render(request, "groups/my_absences.html", {"form": form, "rows": rows, "now": timezone.now()},
                  status=status)


@login_required
@require_POST
def end_absence(request, absence_id: int):
    try:
        away.end_absence(absence_id=absence_id, user=request.user)
    except NotFound:
        raise Http404("no such absence") from None
    except ActionError as exc:
        flash.error(request, str(exc))
        return redirect(request.POST.get("next") or "away-mine")
    flash.success(request, "Welcome back: your absence has ended and what it changed is undone where it could be.")
    nxt = request.POST.get("next", "")
    return redirect(nxt if nxt.startswith("/") and not nxt.startswith("//") else "away-mine")


@login_required
def campaign_away(request, campaign_id: int):
    campaign = _campaign(request, campaign_id)
    moderator = is_moderator(request.user, campaign)
    seats = layers.of(campaign).seats
    names = {s.number: s.label for s in (seats(campaign) if seats else [])}
    rows = [{"seat": seat, "name": names.get(seat, f"seat {seat}"), "starts": starts, "ends": ends,
             "now": starts <= timezone.now()}
            for seat, (starts, ends) in away.away_now(campaign).items()]
    mine = away.seats_of(campaign, request.user.pk) if campaign.status == Campaign.Status.ACTIVE else []
    form = None
    status = 200
    if mine or campaign.status == Campaign.Status.SETUP and role_of(request.user, campaign) == "player":
        form = AbsenceForm(request.POST or None, user=request.user, campaign=campaign)
        if request.method == "POST":
            if form.is_valid():
                try:
                    away.declare_absence(user=request.user, starts=form.cleaned_data["starts"],
                                         ends=form.cleaned_data["ends"], note=form.cleaned_data["note"],
                                         campaign_id=campaign.pk)
                    flash.success(request, "Your absence is recorded; the other players see that your seat is away.")
                    return redirect("campaign-away", campaign.pk)
                except ActionError as exc:
                    form.add_error(None, str(exc))
            status = 400
    elif request.method == "POST":
        raise Http404("no seat of yours here")
    context = {"campaign": campaign, "rows": rows, "form": form, "moderator": moderator,
               "campaign_url": reverse(layers.of(campaign).detail_url, args=[campaign.pk]),
               "my_absences": away.absences_of(request.user, campaign)}
    if moderator:
        policy = away.policy_of(campaign)
        context.update(
            {
                "policy": policy,
                "mode": away.mode_for(campaign),
                "policy_form": PolicyForm(
                    campaign=campaign,
                    initial={
                        "mode": away.mode_for(campaign),
                        "limit_hours": policy.limit_hours,
                        "substitute": policy.substitute.username if policy.substitute_id else "",
                    },
                ),
                "notes": away.moderator_view(campaign),
                "effects": AwayEffect.objects.filter(campaign=campaign)
                .select_related("absence__user")
                .order_by("-pk")[:30],
            }
        )
    return render(request, "groups/campaign_away.html", context, status=status)


@login_required
@require_POST
def set_policy(request, campaign_id: int):
    campaign = _campaign(request, campaign_id)
    form = PolicyForm(request.POST, campaign=campaign)
    if not form.is_valid():
        flash.error(request, "Not saved: " + "; ".join(e for errs in form.errors.values() for e in errs))
        return redirect("campaign-away", campaign.pk)
    try:
        away.set_away_policy(campaign_id=campaign.pk, user=request.user, **form.cleaned_data)
        flash.success(request, "The away policy is saved.")
    except NotFound:
        raise Http404("no such campaign") from None
    except ActionError as exc:
        flash.error(request, f"Not saved: {exc}")
    return redirect("campaign-away", campaign.pk)


@login_required
def calendar_page(request):
    secret = None
    if request.method == "POST":
        if request.POST.get("revoke"):
            calendar.revoke_feed(user=request.user)
            flash.success(request, "Your calendar address is revoked: calendars reading it get nothing more.")
            return redirect("calendar")
        secret = calendar.rotate_feed(user=request.user)
    from .models import CalendarFeed

    feed = CalendarFeed.objects.filter(user=request.user).first()
    url = request.build_absolute_uri(reverse("calendar-feed", args=[secret])) if secret else None
    return render(request, "groups/calendar.html", {"feed": feed, "url": url,
                                                    "events": calendar.deadlines(request.user)})


def calendar_feed(request, secret: str):
    user = calendar.feed_user(secret)
    if user is None:
        raise Http404("no such calendar")
    response = HttpResponse(calendar.render_feed(user), content_type="text/calendar; charset=utf-8")
    response["Cache-Control"] = "private, max-age=300"
    response["X-Robots-Tag"] = "noindex"
    return response


def _moderated(request, campaign_id: int) -> Campaign:
    campaign = _campaign(request, campaign_id)
    if not is_moderator(request.user, campaign):
        raise Http404("only the moderators manage webhooks")
    return campaign


@login_required
def webhooks_page(request, campaign_id: int):
    campaign = _moderated(request, campaign_id)
    form = WebhookForm(request.POST if request.method == "POST" and "url" in request.POST else None)
    status = 200
    if request.method == "POST":
        try:
            if "remove" in request.POST:
                webhooks.remove_webhook(campaign_id=campaign.pk, user=request.user,
                                        webhook_id=int(request.POST["remove"]))
                flash.success(request, "The webhook is removed.")
                return redirect("campaign-webhooks", campaign.pk)
            if "enable" in request.POST:
                webhooks.enable_webhook(campaign_id=campaign.pk, user=request.user,
                                        webhook_id=int(request.POST["enable"]))
                flash.success(request, "The webhook is on again.")
                return redirect("campaign-webhooks", campaign.pk)
            if form.is_valid():
                webhooks.add_webhook(campaign_id=campaign.pk, user=request.user, **form.cleaned_data)
                flash.success(request, "The webhook is added: sign-check its posts with the secret shown below.")
                return redirect("campaign-webhooks", campaign.pk)
        except ValueError:
            form.add_error(None, "no such webhook")
        except NotFound:
            raise Http404("no such webhook") from None
        except ActionError as exc:
            form.add_error(None, str(exc))
        status = 400
    hooks = list(Webhook.objects.filter(campaign=campaign).order_by("pk"))
    for hook in hooks:
        hook.log = list(hook.deliveries.order_by("-pk")[:15])
    return render(request, "groups/webhooks.html", {
        "campaign": campaign, "form": form, "hooks": hooks, "header": webhooks.SIGNATURE_HEADER,
        "campaign_url": reverse(layers.of(campaign).detail_url, args=[campaign.pk])}, status=status)
