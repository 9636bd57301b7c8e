"""Pages for email notifications: a member's preferences per campaign, and the unsubscribe link
every email carries (no login needed: the signed token is the authority)."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from .. import actions
from ..access import role_of, visible_campaigns
from ..models import Campaign, Membership


class NotificationPreferencesForm(forms.Form):
    notify_turn = forms.BooleanField(
        required=False, label="Turn reports",
        help_text="When a turn has been processed: your empire's report (a moderator gets the full one).",
    )
    notify_reminders = forms.BooleanField(
        required=False, label="Deadline reminders",
        help_text="24 hours and 1 hour before the deadline, while your orders are not marked ready.",
    )
    notify_battles = forms.BooleanField(
        required=False, label="Battle decisions", help_text="When a battle needs your decision.",
    )
    notify_press = forms.BooleanField(
        required=False, label="Press",
        help_text="Messages other players send to your seat or to everyone, and the moderator's announcements; "
                  "reply to the email to answer in the same conversation.",
    )


@login_required
@require_http_methods(["GET", "POST"])
def preferences(request, campaign_id: int):
    # An outsider gets 404, never a hint that the campaign exists.
    campaign = get_object_or_404(visible_campaigns(request.user), pk=campaign_id)
    membership = Membership.objects.filter(campaign=campaign, user=request.user).first()
    current = {name: getattr(membership, name) if membership else True for name in actions.NOTIFICATION_FIELDS}
    if request.method == "POST":
        form = NotificationPreferencesForm(request.POST)
        if form.is_valid():
            try:
                actions.set_notification_preferences(campaign_id=campaign.pk, user=request.user, **form.cleaned_data)
            except actions.ActionError as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, "Your email preferences for this campaign are saved.")
                return redirect("notification-preferences", campaign_id=campaign.pk)
    else:
        form = NotificationPreferencesForm(initial=current)
    return render(request, "notifications/preferences.html", {
        "campaign": campaign, "form": form, "role": role_of(request.user, campaign), "email": request.user.email,
    })


# Mail clients' one-click unsubscribe (RFC 8058) POSTs without a CSRF token; the signed token is
# what authorises the change, and it can only switch an email off.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    from .. import notifications

    if request.method == "GET":
        # A GET only shows what the link does: link scanners in mail systems must not unsubscribe.
        try:
            _, campaign_id, preference = notifications.read_unsubscribe_token(token)
        except notifications.BadToken as exc:
            return render(request, "notifications/unsubscribe.html", {"error": str(exc)}, status=400)
        return render(request, "notifications/unsubscribe.html", {
            "what": notifications.PREFERENCE_LABELS[preference], "done": False,
            # The token is signed, so naming its campaign tells nobody anything new.
            "campaign": Campaign.objects.filter(pk=campaign_id).only("name").first(),
        })
    try:
        membership, preference = actions.unsubscribe(token=token)
    except actions.ActionError as exc:
        return render(request, "notifications/unsubscribe.html", {"error": str(exc)}, status=400)
    return render(request, "notifications/unsubscribe.html", {
        "what": notifications.PREFERENCE_LABELS[preference], "done": True, "campaign": membership.campaign,
    })
