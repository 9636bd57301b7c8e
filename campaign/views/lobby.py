"""The lobby's pages: create a campaign, invite, join, add moderators, remove members, start.

Thin: find the campaign among those the user may see (an outsider gets 404), validate the form,
call one action, redirect; a refused action comes back as a form error on the same page, a
member without the right role gets 403.

Every campaign layer with the "lobby" feature (``campaign/layers.py``) is served here: the create
page offers each (``?layer=<key>``) with the layer's own form and create action, and the lobby
page shows the layer's settings (its ``lobby_template``).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from .. import actions, battles, layers
from ..access import is_moderator, role_of, visible_campaigns
from ..forms import AddModeratorForm, InviteEmailForm, JoinForm
from ..models import Campaign, Invitation, Membership
from ..notifications import round_label


def _campaign_for(request, campaign_id: int) -> Campaign:
    return get_object_or_404(visible_campaigns(request.user).filter(layer__in=layers.having("lobby")), pk=campaign_id)


def _call(action, **kwargs):
    """Run an action: (result, None), or (None, message) when it was refused. Not found and not
    allowed become 404 and 403."""
    try:
        return action(**kwargs), None
    except actions.NotFound as exc:
        raise Http404(str(exc)) from None
    except actions.NotAllowed as exc:
        raise PermissionDenied(str(exc)) from None
    except actions.ActionError as exc:
        return None, str(exc)


@login_required
def lobby_list(request):
    lobbies = list(
        visible_campaigns(request.user).filter(status=Campaign.Status.SETUP)
        .annotate(players=Count("memberships", filter=Membership.seated("memberships__"), distinct=True))
        .select_related("moderator").order_by("-created_at", "-id")
    )
    facts = layers.home_facts(lobbies)
    for c in lobbies:
        c.summary, c.layer_title = facts[c.pk].summary, layers.of(c).title
    invitations = Invitation.objects.none()
    if request.user.email:
        invitations = (
            Invitation.objects.filter(email__iexact=request.user.email, accepted_at__isnull=True,
                                      campaign__status=Campaign.Status.SETUP)
            .exclude(campaign__memberships__user=request.user)
            .select_related("campaign", "invited_by")
        )
    return render(request, "lobby/list.html", {"lobbies": lobbies, "invitations": invitations})


def _lobby_layer(request) -> layers.CampaignLayer:
    """The layer the create page is for: ``?layer=<key>`` (a layer with the lobby feature; 404
    otherwise), or the first registered."""
    key = request.GET.get("layer")
    if not key:
        return layers.default()
    if key not in layers.having("lobby"):
        raise Http404("no such kind of campaign")
    return layers.get(key)


@login_required
def lobby_create(request):
    layer = _lobby_layer(request)
    form = layer.lobby_form(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign, error = _call(layer.create_lobby, moderator=request.user, **form.action_kwargs())
        if error is None:
            # Say whether the creator plays: a moderator has no seat unless he chose one (issue 23 item 9).
            plays = campaign.memberships.filter(Membership.seated(), user=request.user).exists()
            messages.success(request, f"{campaign.name} is open in the lobby: invite players, then start it. "
                             + ("You play too (seat 1) and moderate." if plays else
                                "You moderate it without a seat of your own (you did not tick \"I'll play too\")."))
            return redirect("lobby-detail", campaign.pk)
        form.add_error(None, error)
    choices = [{"key": lay.key, "title": lay.title, "description": lay.description, "current": lay.key == layer.key}
               for lay in layers.all_layers() if lay.has("lobby")]
    return render(request, "lobby/create.html", {"form": form, "layer": layer, "layers": choices})


def _render_lobby(request, campaign: Campaign, **forms):
    moderator = is_moderator(request.user, campaign)
    layer = layers.of(campaign)
    members = list(campaign.memberships.select_related("user", "empire").order_by("joined_at", "id"))
    players = [m for m in members if m.role == Membership.Role.PLAYER or (m.role == Membership.Role.MODERATOR
                                                                       and m.empire_name)]
    seats = [{"seat": n, "member": players[n - 1] if n <= len(players) else None}
             for n in range(1, campaign.seats + 1)]
    context = {
        "campaign": campaign,
        "role": role_of(request.user, campaign),
        "is_moderator": moderator,
        "members": members,
        "players": players,
        "seats": seats,
        "in_setup": campaign.status == Campaign.Status.SETUP,
        "options": _option_rows(campaign, layer) if layer.has("options") else [],
        "layer": layer,
        "campaign_url": reverse(layer.detail_url, args=[campaign.pk]),
        "start_points": layer.start_points(campaign, len(players)),
        "my_membership": next((m for m in members if m.user_id == request.user.pk), None),
    }
    if moderator:
        context.update({
            "invite_url": actions.invitation_url(campaign.invite_token) if campaign.invite_token else "",
            "invitations": campaign.invitations.select_related("accepted_by").order_by("-created_at"),
            "invite_form": forms.get("invite_form") or InviteEmailForm(),
            "moderator_form": forms.get("moderator_form") or AddModeratorForm(),
        })
    return render(request, "lobby/detail.html", context)


def _option_labels():
    from ..forms import OPTION_FIELDS

    return {key: OPTION_FIELDS.get(key, (key, "")) for key in actions.DEFAULT_OPTIONS}


def _option_rows(campaign: Campaign, layer) -> list[tuple[str, str]]:
    """The rule options as the lobby's settings say them: a switch on or off, the rule book battles
    fought online use by its title (issue 31: "" is the layer's own book, the first offered)."""
    rows = []
    for key, (label, _) in _option_labels().items():
        if key not in layer.options:
            continue
        value = campaign.options.get(key)
        if key == actions.BOOK_OPTION:
            books = battles.handler().book_choices(campaign.layer)
            value = dict(books).get(value) or (books[0][1] if books else "")
            if not value:
                continue
        else:
            value = "on" if value else "off"
        rows.append((label, value))
    return rows


@login_required
def lobby_detail(request, campaign_id: int):
    return _render_lobby(request, _campaign_for(request, campaign_id))


@login_required
@require_POST
def lobby_invite(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    form = InviteEmailForm(request.POST)
    if form.is_valid():
        invitation, error = _call(actions.invite_by_email, campaign_id=campaign.pk, user=request.user,
                                  email=form.cleaned_data["email"])
        if error is None:
            messages.success(request, f"Invitation sent to {invitation.email}.")
            return redirect("lobby-detail", campaign.pk)
        form.add_error("email", error)
    elif not is_moderator(request.user, campaign):
        raise PermissionDenied("only the campaign's moderators can invite players")
    return _render_lobby(request, campaign, invite_form=form)


@login_required
@require_POST
def lobby_link(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    op = request.POST.get("op")
    if op in ("list", "unlist"):
        _, error = _call(actions.set_listing, campaign_id=campaign.pk, user=request.user, listed=op == "list")
        if error:
            messages.error(request, error)
        else:
            messages.success(request, "The campaign is listed among the open campaigns." if op == "list"
                             else "The campaign is no longer listed among the open campaigns.")
        return redirect("lobby-detail", campaign.pk)
    if op not in ("enable", "disable", "regenerate"):
        messages.error(request, "Choose to switch the invitation link on or off, or to make a new one.")
        return redirect("lobby-detail", campaign.pk)
    _, error = _call(actions.set_invite_link, campaign_id=campaign.pk, user=request.user,
                     enabled=op != "disable", regenerate=op == "regenerate")
    if error:
        messages.error(request, error)
    else:
        messages.success(request, {"enable": "The invitation link is on.", "disable": "The invitation link is off.",
                                   "regenerate": "The invitation link is new: the old one no longer works."}[op])
    return redirect("lobby-detail", campaign.pk)


@login_required
@require_POST
def lobby_add_moderator(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    form = AddModeratorForm(request.POST)
    if form.is_valid():
        membership, error = _call(actions.add_moderator, campaign_id=campaign.pk, user=request.user,
                                  username=form.cleaned_data["username"])
        if error is None:
            messages.success(request, f"{membership.user.username} is now a moderator of {campaign.name}.")
            return redirect("lobby-detail", campaign.pk)
        form.add_error("username", error)
    elif not is_moderator(request.user, campaign):
        raise PermissionDenied("only the campaign's moderators can add moderators")
    return _render_lobby(request, campaign, moderator_form=form)


@login_required
@require_POST
def lobby_remove_member(request, campaign_id: int, membership_id: int):
    campaign = _campaign_for(request, campaign_id)
    member = campaign.memberships.filter(pk=membership_id).select_related("user").first()
    if member is None:
        raise Http404("no such member")
    _, error = _call(actions.remove_member, campaign_id=campaign.pk, user=request.user, membership_id=member.pk)
    if error:
        messages.error(request, error)
        return redirect("lobby-detail", campaign.pk)
    if member.user_id == request.user.pk:
        messages.success(request, f"You have left {campaign.name}.")
        return redirect("lobby-list")
    messages.success(request, f"{member.user.username} has been removed from {campaign.name}.")
    return redirect("lobby-detail", campaign.pk)


@login_required
@require_POST
def lobby_start(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    if (
        request.POST.get("confirm") != "yes"
        and campaign.status == Campaign.Status.SETUP
        and is_moderator(request.user, campaign)
    ):
        # Starting cannot be undone: say what it does and ask first (issue 13 item 17).
        from .moderation import confirm_page

        players = campaign.memberships.filter(Membership.seated()).count()
        points = layers.of(campaign).start_points(campaign, players)
        return confirm_page(request, campaign, title="Start the campaign", question=f"Start {campaign.name} now?",
                            points=points, confirm_label="Yes, start it now",
                            action_url=reverse("lobby-start", args=[campaign.pk]),
                            cancel_url=reverse("lobby-detail", args=[campaign.pk]))
    started, error = _call(actions.start_campaign, campaign_id=campaign.pk, user=request.user)
    if error:
        messages.error(request, f"The campaign was not started: {error}.")
        return redirect("lobby-detail", campaign.pk)
    layer = layers.of(started)
    messages.success(request, f"{started.name} has started: {round_label(started.turn)} is open for orders."
                     if layer.has("orders") else f"{started.name} has started.")
    return redirect(layer.detail_url, started.pk)


def _invited_campaign(token: str) -> tuple[Campaign, Invitation | None]:
    """The campaign a token invites to (the link's or an unused emailed invitation's); 404 otherwise."""
    lobby = layers.having("lobby")
    campaign = Campaign.objects.filter(invite_token=token, layer__in=lobby).first() if token else None
    if campaign is not None:
        return campaign, None
    invitation = (Invitation.objects.filter(token=token, accepted_at__isnull=True, campaign__layer__in=lobby)
                  .select_related("campaign").first() if token else None)
    if invitation is None:
        raise Http404("no such invitation: the link is wrong, switched off or already used")
    return invitation.campaign, invitation


@login_required
def join(request, token: str):
    campaign, invitation = _invited_campaign(token)
    if role_of(request.user, campaign) is not None:
        messages.info(request, f"You are already in {campaign.name}.")
        return redirect("lobby-detail", campaign.pk)
    players = campaign.memberships.filter(Membership.seated())
    taken = list(players.values_list("colour", flat=True))
    form = JoinForm(request.POST or None, taken_colours=taken, words=layers.of(campaign).join_words)
    error = None
    refusal = actions.invitation_refusal(invitation, request.user)
    if refusal is not None:  # an emailed invitation opened by another account: say so, no form
        layer = layers.of(campaign)
        return render(request, "lobby/join.html", {"campaign": campaign, "invitation": invitation,
                                                   "refusal": refusal, "players": players.count(), "layer": layer,
                                                   "summary": layer.home_facts([campaign])[campaign.pk].summary},
                      status=403)
    if request.method == "POST" and form.is_valid():
        _, error = _call(actions.join_campaign, user=request.user, token=token, **form.cleaned_data)
        if error is None:
            messages.success(request, f"You have joined {campaign.name}.")
            return redirect("lobby-detail", campaign.pk)
        form.add_error(None, error)
    layer = layers.of(campaign)
    context = {
        "campaign": campaign, "invitation": invitation, "form": form, "players": players.count(),
        "layer": layer, "summary": layer.home_facts([campaign])[campaign.pk].summary,
        "started": campaign.status != Campaign.Status.SETUP, "full": players.count() >= campaign.seats,
    }
    return render(request, "lobby/join.html", context)
