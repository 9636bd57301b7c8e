"""Pages of pickup battles (docs/battles.md, "Pickup battles").

    battles/                       your pickup battles
    battles/new/                   a new one: rule book, points, sides, opponents
    battles/pickup/<id>/           one of yours: the invitation, your fleet, then the battle
    battles/pickup/<id>/fleet/     POST: your fleet
    battles/pickup/<id>/invite/    POST: (re)send the invitation by email
    battles/join/<token>/          an invitation: GET shows it, POST accepts it
    battles/pickup/<id>/cancel/    POST: the creator cancels it before the start (asks first: confirm=yes)
    battles/pickup/<id>/seats/<seat>/computer/  POST: the creator hands a waiting seat to the computer
    battles/pickup/<id>/leave/     POST: a player of seat 2… without a fleet leaves it
    battles/pickup/host/<campaign>/  the host campaign's page: redirects to its pickup battle
    battles/designs/<ruleset>/     your own ship designs under a rule book with a designer (POST: a new one)
    battles/designs/<ruleset>/<id>/delete/  POST: delete one

Thin: pickup battles the user plays in only (anyone else: 404), one action per POST, refusals
shown on the page (status 400) with nothing changed. The battle is played on the same play page as
an embedded campaign battle (``battle-play``).
"""

from __future__ import annotations

import importlib

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from tactical.models import BattleLogEntry, PickupBattle
from tactical.rules import registry

from . import actions, designs
from .books import BOOKS, available
from .forms import DesignForm, FleetForm, NewPickupForm


def _title(ruleset: str) -> str:
    record = registry.RESOLVERS.get(ruleset)
    return record.title if record else ruleset


def _mine(request, pickup_id: int) -> PickupBattle:
    return get_object_or_404(actions.visible_pickups(request.user).select_related("creator", "opponent", "battle"),
                             pk=pickup_id)


@login_required
def pickup_list(request):
    rows = list(actions.visible_pickups(request.user).select_related("creator", "opponent", "battle")[:200])
    for p in rows:
        p.you = p.seat_of(request.user)
        p.unit = BOOKS[p.ruleset].unit if p.ruleset in BOOKS else "points"
        p.title = _title(p.ruleset)
        if p.sides > 2:
            p.against = f"{p.sides - 1} other sides"
        else:
            p.against = ("the computer" if p.computer else p.opponent.username if p.opponent_id and p.you == 1
                         else p.creator.username if p.you == 2 else "(invited)")
    outcomes = _outcomes([p.battle_id for p in rows if p.status == p.Status.OVER and p.battle_id])
    for p in rows:
        p.outcome = outcomes.get(p.battle_id, "") if p.status == p.Status.OVER else ""
    return render(request, "tactical/pickup/list.html", {"rows": rows, "can_create": bool(available())})


@login_required
def pickup_new(request):
    form = NewPickupForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            pickup = actions.create_pickup(user=request.user, ruleset=data["ruleset"], points=data["points"],
                                           opponent=data["opponent"], email=data.get("email") or "",
                                           activation_hours=data["activation_hours"], sides=data["sides"],
                                           others=[data.get("others") or "link"] * (data["sides"] - 2)
                                           if data["sides"] > 2 else None)
        except actions.PickupError as exc:
            error = exc.message
        else:
            return redirect("pickup-detail", pickup.pk)
    status = 400 if request.method == "POST" else 200
    defaults = {name: b.default_points for name, _, b in available()}
    return render(request, "tactical/pickup/new.html", {"form": form, "error": error, "books": available(),
                                                        "defaults": defaults}, status=status)


def _detail(request, pickup: PickupBattle, *, fleet_form=None, error: str = "", status: int = 200):
    seat = pickup.seat_of(request.user)
    book = BOOKS[pickup.ruleset]
    fleets = pickup.fleets or {}
    building = pickup.status in actions.BUILDABLE and str(seat) not in fleets
    if building and fleet_form is None:
        fleet_form = FleetForm(offers=actions.offers_for(pickup, seat), max_ships=book.max_ships)
    names = dict(pickup.campaign.empires.values_list("seat", "name"))
    return render(
        request,
        "tactical/pickup/detail.html",
        {
            "pickup": pickup,
            "seat": seat,
            "book": book,
            "title": _title(pickup.ruleset),
            "names": names,
            "building": building,
            "fleet_form": fleet_form if building else None,
            "your_fleet": fleets.get(str(seat)),
            "your_total": sum(s["points"] for s in fleets.get(str(seat), [])),
            "other_ready": str(3 - seat) in fleets if seat and pickup.sides == 2 else False,
            "seats": actions.seat_rows(pickup),
            "invite_url": actions.invite_url(pickup)
            if seat == 1 and pickup.status == pickup.Status.INVITING and pickup.invite_token
            else "",
            "not_offered": sorted(actions.refusals_for(pickup, seat).values()) if building else [],
            "waiting": pickup.status in actions.BUILDABLE,
            "outcome": _outcome(pickup),
            "error": error,
        },
        status=status,
    )


def _outcomes(battle_ids: list[int]) -> dict[int, str]:
    """Each ended battle's outcome line (as ``_outcome``), for a list of battles in one query."""
    if not battle_ids:
        return {}
    found: dict[int, str] = {}
    for battle_id, text in (BattleLogEntry.objects.filter(battle_id__in=battle_ids, kind="tactical_over")
                            .order_by("battle_id", "-id").values_list("battle_id", "text")):
        found.setdefault(battle_id, text)  # the newest line of each battle comes first
    return found


def _outcome(pickup: PickupBattle) -> str:
    """Who won, in the rule book's words (its ``PlayRules.summary``, logged when the battle ended):
    a pickup battle's end goes to no campaign, so its page says it (issue 23 item 17)."""
    if pickup.status != pickup.Status.OVER or not pickup.battle_id:
        return ""
    return (BattleLogEntry.objects.filter(battle_id=pickup.battle_id, kind="tactical_over")
            .order_by("-id").values_list("text", flat=True).first() or "")


@login_required
def pickup_detail(request, pickup_id: int):
    return _detail(request, _mine(request, pickup_id))


@login_required
@require_POST
def pickup_fleet(request, pickup_id: int):
    pickup = _mine(request, pickup_id)
    seat = pickup.seat_of(request.user)
    book = BOOKS[pickup.ruleset]
    form = FleetForm(request.POST, offers=actions.offers_for(pickup, seat), max_ships=book.max_ships)
    if not form.is_valid():
        return _detail(request, pickup, fleet_form=form, error="Check the numbers of ships.", status=400)
    try:
        actions.submit_fleet(pickup_id=pickup.pk, user=request.user, ships=form.ships())
    except actions.PickupError as exc:
        return _detail(request, pickup, fleet_form=form, error=exc.message, status=exc.status)
    pickup.refresh_from_db()
    if pickup.battle_id:
        return redirect("battle-play", pickup.battle_id)
    messages.success(request, "Your fleet is submitted: the battle starts when your opponent's is in.")
    return redirect("pickup-detail", pickup.pk)


@login_required
@require_POST
def pickup_invite(request, pickup_id: int):
    pickup = _mine(request, pickup_id)
    try:
        actions.invite_by_email(pickup_id=pickup.pk, user=request.user, email=request.POST.get("email", ""))
    except actions.PickupError as exc:
        return _detail(request, pickup, error=exc.message, status=exc.status)
    messages.success(request, "The invitation is sent.")
    return redirect("pickup-detail", pickup.pk)


@login_required
def pickup_join(request, token: str):
    pickup = actions.pickup_for_token(token)
    if pickup is None:
        raise Http404("no such invitation")
    error = ""
    if request.method == "POST":
        try:
            actions.accept_pickup(token=token, user=request.user)
        except actions.PickupError as exc:
            error = exc.message
        else:
            return redirect("pickup-detail", pickup.pk)
    return render(request, "tactical/pickup/join.html", {
        "pickup": pickup, "error": error, "book": BOOKS.get(pickup.ruleset), "title": _title(pickup.ruleset),
        "taken": pickup.status != PickupBattle.Status.INVITING and pickup.seat_of(request.user) is None,
        "cancelled": pickup.status == PickupBattle.Status.CANCELLED,
    }, status=410 if pickup.status == PickupBattle.Status.CANCELLED else 400 if error else 200)


@login_required
def pickup_host(request, campaign_id: int):
    pickup = get_object_or_404(actions.visible_pickups(request.user), campaign_id=campaign_id)
    return redirect("pickup-detail", pickup.pk)


@login_required
@require_POST
def pickup_cancel(request, pickup_id: int):
    """Asks first (a confirmation step, as the moderator's irreversible actions): the same form
    again with confirm=yes."""
    pickup = _mine(request, pickup_id)
    if request.POST.get("confirm") != "yes":
        taken = [s for s in actions.seat_rows(pickup) if s["seat"] > 1 and s["player"]]
        return render(request, "tactical/pickup/confirm.html", {
            "pickup": pickup, "title": "Cancel the battle",
            "question": f"Cancel pickup battle {pickup.pk}? Nothing will be fought.",
            "points": [f"{s['player']} (seat {s['seat']}) is emailed that it is cancelled." for s in taken]
            + ["The invitation link stops working."],
            "confirm_label": "Cancel the battle", "action_url": request.path})
    try:
        actions.cancel_pickup(pickup_id=pickup.pk, user=request.user)
    except actions.PickupError as exc:
        return _detail(request, pickup, error=exc.message, status=exc.status)
    messages.success(request, "The battle is cancelled.")
    return redirect("pickup-detail", pickup.pk)


@login_required
@require_POST
def pickup_seat_computer(request, pickup_id: int, seat: int):
    pickup = _mine(request, pickup_id)
    try:
        actions.hand_seat_to_computer(pickup_id=pickup.pk, user=request.user, seat=seat)
    except actions.PickupError as exc:
        return _detail(request, pickup, error=exc.message, status=exc.status)
    pickup.refresh_from_db()
    if pickup.battle_id:
        return redirect("battle-play", pickup.battle_id)
    messages.success(request, f"Seat {seat} is the computer's: its fleet is built.")
    return redirect("pickup-detail", pickup.pk)


@login_required
@require_POST
def pickup_leave(request, pickup_id: int):
    pickup = _mine(request, pickup_id)
    try:
        actions.leave_pickup(pickup_id=pickup.pk, user=request.user)
    except actions.PickupError as exc:
        return _detail(request, pickup, error=exc.message, status=exc.status)
    messages.success(request, f"You have left pickup battle {pickup.pk}: your seat is free again.")
    return redirect("pickup-list")


# --- the player's own designs ---------------------------------------------------------------

def _named(path: str):
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _designer(ruleset: str):
    try:
        return designs.designer_book(ruleset)
    except actions.PickupError:
        raise Http404("no ship designer for this rule book") from None


@login_required
def design_list(request, ruleset: str):
    """The designer page: his designs with their price, and the form for a new one (POST)."""
    found = _designer(ruleset)
    # A book may name its own form and page (My Trek V: MyTrekFleets.design_form, design_template).
    form_class = _named(found.design_form) if getattr(found, "design_form", "") else DesignForm
    form = form_class(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                row = designs.save_design(user=request.user, ruleset=ruleset, fields=form.design_fields())
            except designs.DesignRefused as exc:
                form.refuse(exc.field, exc.message)
            except actions.PickupError as exc:
                form.add_error(None, exc.message)
                status = exc.status
            else:
                messages.success(request, f"{row.name} is saved at {row.points} {found.unit}: your pickup battles "
                                 f"under {found.title} offer it.")
                return redirect("pickup-designs", ruleset)
    return render(request, getattr(found, "design_template", "") or "tactical/pickup/designs.html", {
        "book": found, "ruleset": ruleset, "form": form,
        "designs": list(designs.designs_of(request.user, ruleset)),
        "back": request.GET.get("pickup", "") if (request.GET.get("pickup") or "").isdigit() else "",
    }, status=status)


@login_required
@require_POST
def design_delete(request, ruleset: str, design_id: int):
    _designer(ruleset)
    try:
        designs.delete_design(user=request.user, ruleset=ruleset, design_id=design_id)
    except actions.PickupError:
        raise Http404("no such design of yours") from None
    messages.success(request, "The design is deleted.")
    return redirect("pickup-designs", ruleset)
