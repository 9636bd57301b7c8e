"""Battle pages (issue 5, "Battles" and "Tabletop result entry").

    campaigns/<id>/battles/          the campaign's battles the user may see, by turn
    battles/<id>/                    one battle: sides, ships, log, the entered result; the
                                     tabletop entry form, confirm / dispute, the moderator's
                                     settle and mode change
    battles/<id>/enter|confirm|dispute|settle|mode/   POST only: one action each
    campaigns/<id>/battle-preference/                  POST: how the player asks for his battles

Thin: find the battle the user may see (``visible_battles``: its two sides' players and the
campaign's moderator; anyone else gets 404), call one action from tactical/battles/actions.py, redirect;
an action's refusal is shown on the page as the form's error (status 400) and changes nothing.
"""

from __future__ import annotations

from itertools import groupby

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaign.access import empire_of, is_moderator, visible_campaigns
from campaign.models import Turn
from tactical.battles import actions
from tactical.battles.actions import BattleError, NotFound
from tactical.battles.forms import (
    DisputeForm,
    ModeForm,
    PreferenceForm,
    ResultForm,
    SettleForm,
    holder_text,
    result_rows,
    seat_name,
    settled_text,
    side_rows,
)
from tactical.models import Battle
from tactical.play import embedded, kinds
from tactical.rules.play import PlayRules


def _battle_for(request, battle_id: int) -> Battle:
    return get_object_or_404(actions.visible_battles(request.user).select_related("campaign"), pk=battle_id)


def _campaign_for(request, campaign_id: int):
    return get_object_or_404(visible_campaigns(request.user), pk=campaign_id)


@login_required
def battle_list(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    battles = list(actions.visible_battles(request.user).filter(campaign=campaign).order_by("-turn", "index"))
    for b in battles:
        b.side_names = (seat_name(b, b.attacker), seat_name(b, b.defender))
        b.holder_text = holder_text(b, b.result)
        b.settled_text = settled_text(b)
    turns = [(turn, list(rows)) for turn, rows in groupby(battles, key=lambda b: b.turn)]
    current = Turn.objects.filter(campaign=campaign, number=campaign.turn).first()
    return render(request, "tactical/battle_list.html", {
        "campaign": campaign, "turns": turns, "current_turn": current,
        "moderator": is_moderator(request.user, campaign),
    })


def _render(request, battle: Battle, *, status: int = 200, entry_form=None, dispute_form=None, settle_form=None,
            mode_form=None, error: str = ""):
    campaign = battle.campaign
    seat = actions.seat_of(request.user, battle)
    moderator = is_moderator(request.user, campaign)
    open_ = not battle.resolved
    tabletop = battle.mode == Battle.Mode.TABLETOP
    can_enter = open_ and tabletop and seat is not None
    can_answer = (open_ and battle.status == Battle.Status.ENTERED and seat is not None
                  and seat != battle.proposed_by)
    turn = Turn.objects.filter(campaign=campaign, number=battle.turn).first()
    # A CAM scenario fought online (tactical/hosts/cam/scenarios.py) is played and settled from its scenario page.
    cam = "cam" in (battle.setup or {})
    context = {
        "battle": battle, "campaign": campaign, "seat": seat, "moderator": moderator,
        "sides": side_rows(battle), "turn": turn,
        "log": battle.log.select_related("user").order_by("created_at", "id"),
        "proposal_rows": result_rows(battle, battle.proposal) if battle.proposal and open_ else [],
        "proposal_holder": holder_text(battle, battle.proposal),
        "proposed_by_name": seat_name(battle, battle.proposed_by) if battle.proposed_by else "",
        "result_rows": result_rows(battle, battle.result),
        "result_holder": holder_text(battle, battle.result),
        "settled_text": settled_text(battle),
        "can_enter": can_enter, "can_answer": can_answer,
        "can_settle": open_ and moderator and not cam,
        "show_entry_form": open_ and tabletop and (seat is not None or moderator),
        "entry_form": entry_form or ResultForm(battle),
        "dispute_form": dispute_form or DisputeForm(),
        "settle_form": settle_form or SettleForm(),
        "mode_form": mode_form or ModeForm(battle=battle),
        "error": error,
        "play_url_ok": battle.mode == Battle.Mode.TACTICAL and not cam,
        "cam_scenario_url": reverse("cam-scenario", args=[campaign.pk, battle.turn]) if cam else "",
        # its title and ship table from its host and rule book (issue 23 item 15)
        "page": kinds.page_for(battle), "ships_template": _ships_template(battle),
        "sheets_book": "" if cam else _sheets_title(battle),
        # a what-if of its sides on the book the campaign chose (issue 31; "" on the layer's own book)
        "whatif_url": _converted_whatif_url(battle),
    }
    return render(request, "tactical/battle_detail.html", context, status=status)


def _converted_whatif_url(battle: Battle) -> str:
    from tactical.whatif import converted

    if "cam" in (battle.setup or {}):  # a CAM scenario on Buoyz, CAM's own book
        return ""
    return converted.new_url(battle.campaign, battle=battle)


def _sheets_title(battle: Battle) -> str:
    """The rule book the battle's record sheets are printed in (issue 31), by its title."""
    from tactical.hosts.eventhorizon.lifecycle import battle_book
    from tactical.rules import registry

    book = battle.ruleset if battle.converted else battle_book(battle.campaign)
    try:
        return registry.book_title(book)
    except ValueError:
        return ""


def _ships_template(battle: Battle) -> str:
    if battle.converted:  # the campaign's own ships (side_rows reads its layer's setup): its own book's table
        from tactical.rules import registry

        battle = Battle(ruleset=registry.OWN_BOOK.get(battle.campaign.layer, "eventhorizon"))
    try:
        return embedded.rules_for(battle).battle_ships_template
    except ValueError:  # a rule book without online play: the generic table
        return PlayRules.battle_ships_template


@login_required
def battle_detail(request, battle_id: int):
    return _render(request, _battle_for(request, battle_id))


def sheets_for(battle: Battle, nonce: str = "") -> tuple[str, str]:
    """(rule book, HTML) of the battle's printable record sheets (issue 31 item 4): on the rule
    book it is fought on, or, for a battle not fought online, the one its campaign chose — the
    campaign's ships converted by that book's converter. The page links back to the battle."""
    from tactical.hosts.eventhorizon.lifecycle import battle_book
    from tactical.rules import registry

    if "cam" in (battle.setup or {}):
        raise ValueError("a CAM scenario's ships are printed from its scenario page")
    kwargs = {"nonce": nonce, "back": (reverse("battle-detail", args=[battle.pk]), "Back to the battle")}
    if battle.converted:
        converter = registry.find_converter(battle.campaign.layer, battle.ruleset)
        return battle.ruleset, converter.sheets(battle.setup, **kwargs)
    book = battle_book(battle.campaign)
    converter = registry.find_converter(battle.campaign.layer, book)
    if converter is None:
        return book, registry.record_sheets(book, battle.setup, **kwargs)
    return book, converter.sheets(converter.to_book(battle.layer_setup), **kwargs)


@login_required
def battle_sheets(request, battle_id: int):
    """The battle's ships as record sheets to print (one page per ship), for a table."""
    battle = _battle_for(request, battle_id)
    try:
        _book, html = sheets_for(battle, getattr(request, "csp_nonce", ""))
    except ValueError as exc:
        raise Http404(str(exc)) from None
    return HttpResponse(html)


def _refused(request, battle_id: int, exc: BattleError, **forms):
    """Show the action's refusal on the page; the battle is re-read (nothing was changed)."""
    if isinstance(exc, NotFound):
        raise Http404(str(exc))
    battle = _battle_for(request, battle_id)
    return _render(request, battle, status=400, error=str(exc), **forms)


@login_required
@require_POST
def battle_enter(request, battle_id: int):
    battle = _battle_for(request, battle_id)
    form = ResultForm(battle, request.POST)
    if not form.is_valid():
        return _render(request, battle, status=400, entry_form=form, error="Check the entry: see the marked fields.")
    try:
        actions.enter_result(battle_id=battle.pk, user=request.user, result=form.result())
    except BattleError as exc:
        form.add_error(None, str(exc))
        return _refused(request, battle.pk, exc, entry_form=form)
    messages.success(request, "Result entered: the other side is asked to confirm or dispute it.")
    return redirect("battle-detail", battle.pk)


@login_required
@require_POST
def battle_confirm(request, battle_id: int):
    battle = _battle_for(request, battle_id)
    try:
        actions.confirm_result(battle_id=battle.pk, user=request.user)
    except BattleError as exc:
        return _refused(request, battle.pk, exc)
    messages.success(request, "Result confirmed: the battle is resolved.")
    return redirect("battle-detail", battle.pk)


@login_required
@require_POST
def battle_dispute(request, battle_id: int):
    battle = _battle_for(request, battle_id)
    form = DisputeForm(request.POST)
    if not form.is_valid():
        return _render(request, battle, status=400, dispute_form=form, error="Check the reason: see the form.")
    try:
        actions.dispute_result(battle_id=battle.pk, user=request.user, reason=form.cleaned_data["reason"])
    except BattleError as exc:
        form.add_error("reason", str(exc))
        return _refused(request, battle.pk, exc, dispute_form=form)
    messages.success(request, "Result disputed: the moderator settles the battle.")
    return redirect("battle-detail", battle.pk)


@login_required
@require_POST
def battle_settle(request, battle_id: int):
    battle = _battle_for(request, battle_id)
    form = SettleForm(request.POST)
    entry_form = None
    if not form.is_valid():
        return _render(request, battle, status=400, settle_form=form, error="Choose how to settle the battle.")
    how, note = form.cleaned_data["how"], form.cleaned_data["note"]
    kwargs = {"note": note}
    if how == "auto":
        kwargs["auto"] = True
    elif how == "own":
        entry_form = ResultForm(battle, request.POST)
        if not entry_form.is_valid():
            return _render(request, battle, status=400, entry_form=entry_form, settle_form=form,
                           error="Check the entry: see the marked fields.")
        kwargs["result"] = entry_form.result()
    try:
        actions.settle_battle(battle_id=battle.pk, user=request.user, **kwargs)
    except BattleError as exc:
        if entry_form is not None:
            entry_form.add_error(None, str(exc))
        else:
            form.add_error(None, str(exc))
        return _refused(request, battle.pk, exc, settle_form=form,
                        **({"entry_form": entry_form} if entry_form is not None else {}))
    messages.success(request, "Battle settled." if how != "auto" else
                     "Battle settled: it is auto-resolved when the turn completes.")
    return redirect("battle-detail", battle.pk)


@login_required
@require_POST
def battle_mode(request, battle_id: int):
    battle = _battle_for(request, battle_id)
    form = ModeForm(request.POST, battle=battle)
    if not form.is_valid():
        return _render(request, battle, status=400, mode_form=form, error="Choose a mode from the list.")
    try:
        actions.change_mode(battle_id=battle.pk, user=request.user, mode=form.cleaned_data["mode"])
    except BattleError as exc:
        form.add_error(None, str(exc))
        return _refused(request, battle.pk, exc, mode_form=form)
    messages.success(request, f"The battle is now to be {Battle.Mode(form.cleaned_data['mode']).label.lower()}.")
    return redirect("battle-detail", battle.pk)


@login_required
@require_POST
def battle_preference(request, campaign_id: int):
    """The orders page's small form: how the player asks for his battles to be settled."""
    campaign = _campaign_for(request, campaign_id)
    empire = empire_of(request.user, campaign)
    if empire is None:
        raise Http404("you have no empire in this campaign")
    form = PreferenceForm(request.POST)
    preference = form.data.get("preference", "")
    try:
        empire = actions.set_battle_preference(empire_id=empire.pk, user=request.user, preference=preference)
    except NotFound as exc:
        raise Http404(str(exc)) from None
    except BattleError as exc:
        messages.error(request, f"Battle preference not changed: {exc}")
    else:
        messages.success(request, f"Battle preference: {empire.get_battle_preference_display().lower()}.")
    return redirect("campaign-orders", campaign.pk)
