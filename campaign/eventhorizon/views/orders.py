"""The turn workflow's pages: a player's orders for the open turn, ready, taking a seat back,
and designing a ship. Thin: look up what the user may see, call one action, render.

The order page works in two ways. With JavaScript (``static/orders.js``) it is an editor for
everything the orders format holds (docs/orders.md), with fleet paths plotted on the map and a
live preview from the API. Without JavaScript it is a plain form: the orders as JSON in a text
area, saved by POST, with the refusal shown as a form error.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaign import actions, battles, layers, sanitise
from campaign.access import empire_of, visible_campaigns
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.models import Design
from campaign.models import Campaign, Empire, Turn, TurnOrders
from campaign.rules.eventhorizon import economy as eh
from campaign.rules.eventhorizon import fog
from campaign.rules.eventhorizon.designs import WEAPONS, DesignError, ShipType, Technology
from campaign.rules.eventhorizon.designs import Design as DesignSpec
from campaign.rules.eventhorizon.orders import PathRules, fleet_speed, purchase_options, ship_campaign_move
from campaign.rules.eventhorizon.setup import SETUP_TURN
from campaign.sanitise import whole_number

from .. import adapters
from ..visibility import fog_radius, map_svg_for

SCOPE_HELP = {
    eh.Scope.EMPIRE: "one per empire, on a world you own",
    eh.Scope.WORLD: "one per world you own",
    eh.Scope.WORLD_REPEATABLE: "on a world you own, more than one allowed",
    eh.Scope.ANY_HEX: "any hex, one per hex",
}


def _campaign_for(request, campaign_id: int) -> Campaign:
    # An outsider gets 404, never a hint that the campaign exists.
    return get_object_or_404(visible_campaigns(request.user).filter(layer__in=layers.having("orders")), pk=campaign_id)


def _player(request, campaign: Campaign) -> Empire:
    empire = empire_of(request.user, campaign)
    if empire is None:
        raise PermissionDenied("only the campaign's players write orders")
    return empire


# --- data for the page and the API ------------------------------------------------------------

def _damage_json(damage) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(damage).items()}


def fleet_rows(state, seats=None) -> list[dict]:
    """Fleets in full (ships, speed, damage) for the given seats (None: all of them). Only for
    fleets the caller may see in full: their own, or every fleet for the moderator."""
    ships = state.ship_index()
    rows = []
    for fleet in state.fleets:
        if seats is not None and fleet.owner not in seats:
            continue
        members = []
        for sid in fleet.ships:
            ship = ships[sid]
            design = state.designs.get(ship.design)
            members.append({
                "id": sid, "name": ship.name, "design": design.name if design else None,
                "ship_type": design.ship_type.label if design else None,
                "move": ship_campaign_move(state, sid), "hero_crew": ship.hero_crew,
                "damaged": ship.damage.any, "damage": _damage_json(ship.damage),
            })
        rows.append({"id": fleet.id, "owner": fleet.owner, "x": fleet.coord[0], "y": fleet.coord[1],
                     "speed": fleet_speed(state, fleet.ships), "ships": members})
    return rows


def order_options(campaign: Campaign, empire: Empire, raw_orders) -> dict:
    """What the order form may offer after the purchases in ``raw_orders`` (issue 13 item 14):
    resources by world and dockyards, each with the reason it cannot be ordered, if any."""
    state, names = adapters.state_for_orders(campaign)
    if state.empire(empire.seat).eliminated:
        return {"resources": {}, "dockyards": {}, "designs": {}}
    purchases = raw_orders.get("purchases", []) if isinstance(raw_orders, dict) else []
    return purchase_options(state, empire.seat, purchases, names.get(empire.seat, {}),
                            setup=state.turn == SETUP_TURN)


def page_data(campaign: Campaign, empire: Empire, turn: Turn | None, row: TurnOrders | None) -> dict:
    """Everything the order editor needs, as JSON (rendered with json_script)."""
    state = adapters.load_state(campaign)
    seat = empire.seat
    mine = state.empire(seat)
    names = adapters.design_names_by_seat(campaign).get(seat, {})
    own_designs = set(Design.objects.filter(campaign=campaign, empire=empire).values_list("name", flat=True))
    busy = {b.dockyard: b for b in state.builds if b.owner == seat}
    worlds = []
    for w in state.worlds:
        if w.owner != seat:
            continue
        worlds.append({
            "x": w.coord[0], "y": w.coord[1], "kind": w.kind.value, "economy": w.economy.value if w.economy else None,
            "home": w.home_of == seat,
            "structures": [s.resource.label for s in state.structures if s.coord == w.coord and s.owner == seat],
        })
    dockyards = []
    for s in state.structures:
        if s.owner == seat and s.resource is eh.Resource.DOCKYARD:
            build = busy.get(s.id)
            dockyards.append({
                "id": s.id, "x": s.coord[0], "y": s.coord[1],
                "building": (f"{state.designs[build.design].name}, {build.turns_left} turn(s) to go"
                             if build and build.design in state.designs else ("a ship" if build else None)),
            })
    designs = []
    for name, pk in sorted(names.items(), key=lambda item: (state.designs[item[1]].bp, item[0])):
        d = state.designs[pk]
        designs.append({"name": name, "ship_type": d.ship_type.label, "bp": d.bp, "build_time": d.ship_type.build_time,
                        "move": d.campaign_move, "own": name in own_designs})
    repairs = []
    ships = state.ship_index()
    fleet_of = {sid: f for f in state.fleets for sid in f.ships}
    for ship in ships.values():
        if ship.owner != seat or not ship.damage.any or ship.id not in fleet_of:
            continue
        try:
            cost = eh.repair_cost(state.designs[ship.design], ship.damage)
        except eh.EconomyError:
            cost = None
        at = fleet_of[ship.id].coord
        repairs.append({"id": ship.id, "name": ship.name or f"ship {ship.id}", "x": at[0], "y": at[1], "cost": cost})
    return {
        "campaign": campaign.pk, "turn": campaign.turn, "seat": seat,
        # The set-up round (003 Set Up): purchases and standing orders only; ships delivered at once.
        "setup": campaign.turn == SETUP_TURN,
        "grid": {"kind": campaign.grid, "width": campaign.width, "height": campaign.height},
        "bp": mine.bp,
        "open": turn is not None and turn.status == Turn.Status.OPEN,
        "orders": row.orders if row else {}, "ready": bool(row and row.ready), "revision": row.revision if row else 0,
        "standing": empire.standing_orders or {"invasion": [], "loss_order": "cheapest", "initiative": "first"},
        "steered_drift": bool(state.options.get("steered_drift")),
        "fleets": fleet_rows(state, {seat}),
        # The steps a path may take, from the order check's own rules (issue 23 item 2).
        "paths": PathRules.of(fog.orders_view(state, seat, fog_radius(campaign))).as_json(),
        "worlds": worlds, "dockyards": dockyards, "designs": designs, "repairs": repairs,
        "resources": [
            {"key": r.value, "label": r.label, "cost": r.cost, "requires": r.requires.label if r.requires else "",
             "where": SCOPE_HELP[r.scope]}
            for r in eh.Resource
        ],
        "technologies": [{"key": t.value, "label": t.label, "have": t in mine.technologies} for t in Technology],
        "options": order_options(campaign, empire, row.orders if row else {}),
        "urls": {
            "preview": reverse("api-orders-preview", args=[campaign.pk]),
            "orders": reverse("api-orders", args=[campaign.pk]),
            "ready": reverse("api-ready", args=[campaign.pk]),
        },
    }


def waiting_battles(user, campaign: Campaign, turn: Turn | None, empire: Empire) -> list[dict]:
    """While the turn waits for its battles (issue 13 item 18): the turn's battles the player may
    see, theirs first, each with its page, sides and what it waits for."""
    if turn is None or turn.status != Turn.Status.BATTLES:
        return []
    hand = battles.handler()
    seat_name = hand.seat_name
    rows = []
    for b in hand.waiting_battles(user, campaign, turn.number):
        rows.append({
            "pk": b.pk, "x": b.x, "y": b.y, "url": reverse("battle-detail", args=[b.pk]),
            "attacker": seat_name(b, b.attacker), "defender": seat_name(b, b.defender),
            "mode": b.get_mode_display(), "status": b.get_status_display(), "resolved": b.resolved,
            "mine": empire.seat in (b.attacker, b.defender), "deadline": b.deadline,
        })
    rows.sort(key=lambda r: (not r["mine"], r["resolved"]))
    return rows


# --- the order page -------------------------------------------------------------------------

class OrdersForm(forms.Form):
    orders = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false", "class": "mono"}), required=False,
        help_text='The orders as JSON. An empty object {} means "hold".',
    )
    ready = forms.BooleanField(required=False, help_text="I am done with this turn.")
    turn = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)  # the turn shown (issue 14)

    def clean_orders(self):
        text = (self.cleaned_data.get("orders") or "").strip() or "{}"
        try:
            value = sanitise.loads(text, "orders")
        except sanitise.HostileInput as exc:
            raise forms.ValidationError(str(exc)) from None
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
        if not isinstance(value, dict):
            raise forms.ValidationError("the orders must be a JSON object ({...})")
        return value


@login_required
def order_page(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    empire = _player(request, campaign)
    turn = Turn.objects.filter(campaign=campaign, number=campaign.turn).first()
    row = TurnOrders.objects.filter(turn=turn, empire=empire).first() if turn else None
    if request.method == "POST":
        form = OrdersForm(request.POST)
        if form.is_valid():
            try:
                saved, preview = eh_actions.submit_orders(
                    empire_id=empire.pk, raw=form.cleaned_data["orders"], ready=form.cleaned_data["ready"],
                    turn_number=form.cleaned_data["turn"],
                )
            except actions.OrdersRefused as exc:
                form.add_error("orders", [p["text"] for p in exc.problems])  # every problem, one each
            except actions.ActionError as exc:
                form.add_error("orders", str(exc))
            else:
                messages.success(request, f"Orders saved (revision {saved.revision}). {preview.lines[0]}."
                                 + (" You are ready." if saved.ready else ""))
                for warning in preview.warnings:
                    messages.warning(request, f"Warning: {warning}")
                return redirect("campaign-orders", campaign.pk)
    else:
        form = OrdersForm(initial={"orders": json.dumps(row.orders if row else {}, indent=2),
                                   "ready": bool(row and row.ready), "turn": campaign.turn})
    data = page_data(campaign, empire, turn, row)
    context = {
        "campaign": campaign, "empire": empire, "turn": turn, "row": row, "form": form, "data": data,
        "open": data["open"],
        "waiting_battles": waiting_battles(request.user, campaign, turn, empire),
        "map_svg": map_svg_for(campaign, request.user, interactive=True),
        "weapons": WEAPONS.values(),
    }
    return render(request, "orders/orders.html", context)


@login_required
@require_POST
def ready_toggle(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    empire = _player(request, campaign)
    ready = request.POST.get("ready") in ("1", "true", "on")
    number = whole_number(request.POST.get("turn", ""))
    if number is None:  # issue 14: the page names its turn, so a form posted twice acts once
        messages.error(request, "the ready form did not say which turn: reload the page and try again")
        return redirect("campaign-orders", campaign.pk)
    try:
        eh_actions.mark_ready(empire.pk, ready, turn_number=number)
    except actions.ActionError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "You are ready: the turn is processed when every player is ready or at the deadline."
                         if ready else "You are no longer ready: revise your orders until the deadline.")
    return redirect("campaign-orders", campaign.pk)


@login_required
@require_POST
def take_back(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    empire = _player(request, campaign)
    try:
        eh_actions.take_back_seat(empire.pk)
    except actions.ActionError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Welcome back: you play {empire.name} again.")
    return redirect("campaign-orders", campaign.pk)


# --- designing a ship -----------------------------------------------------------------------

FORCE_FIELD_CHOICES = [("", "none")] + [(str(n), f"strength {n}") for n in range(4, 9)]


class DesignForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="Unique among your designs, e.g. 'Sword Class Frigate'.")
    ship_type = forms.ChoiceField(
        choices=[(t.value, f"{t.label} ({t.bp} BP, {t.build_time} turn(s) to build)") for t in ShipType],
        help_text="The design's BP must add up exactly to its type's BP.",
    )
    hull = forms.IntegerField(min_value=1, max_value=12, initial=4, help_text="1 to 12, 1 BP each.")
    engine = forms.IntegerField(min_value=1, max_value=9, initial=4,
                                help_text="1 to 9, 1 BP each; campaign move is half of it, rounded up.")
    force_field = forms.TypedChoiceField(choices=FORCE_FIELD_CHOICES, required=False, coerce=int, empty_value=None)
    boarding_parties = forms.IntegerField(min_value=0, initial=0, required=False)
    cargo = forms.IntegerField(
        min_value=0, initial=0, required=False, help_text="BP of cargo capacity (holds 5 BP each)."
    )
    stealth_field = forms.BooleanField(required=False)
    improved_force_fields = forms.BooleanField(required=False)
    nanobot_skin = forms.BooleanField(required=False)
    core_containment_capacitor = forms.BooleanField(required=False)
    ai_supercomputer = forms.BooleanField(required=False)
    civilian = forms.BooleanField(required=False, help_text="Space stations only.")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for weapon in WEAPONS.values():
            self.fields[f"weapon_{weapon.key}"] = forms.IntegerField(
                label=f"{weapon.label} ({weapon.bp} BP each)", min_value=0, initial=0, required=False)

    def weapon_fields(self):
        return [self[f"weapon_{key}"] for key in WEAPONS]

    def spec(self) -> dict:
        d = self.cleaned_data
        return {
            "name": d["name"].strip(), "ship_type": d["ship_type"], "hull": d["hull"], "engine": d["engine"],
            "force_field": d.get("force_field"),
            "weapons": {key: d.get(f"weapon_{key}") or 0 for key in WEAPONS if d.get(f"weapon_{key}")},
            "stealth_field": d["stealth_field"], "boarding_parties": d.get("boarding_parties") or 0,
            "cargo": d.get("cargo") or 0, "improved_force_fields": d["improved_force_fields"],
            "nanobot_skin": d["nanobot_skin"], "core_containment_capacitor": d["core_containment_capacitor"],
            "ai_supercomputer": d["ai_supercomputer"], "civilian": d["civilian"],
        }


@login_required
def design_ship(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    empire = _player(request, campaign)
    breakdown = None
    if request.method == "POST":
        form = DesignForm(request.POST)
        if form.is_valid():
            spec = form.spec()
            try:
                design = eh_actions.save_design(spec=spec, campaign=campaign, empire=empire,
                                             description=form.cleaned_data["description"])
            except actions.ActionError as exc:
                form.add_error(None, str(exc))
                try:
                    draft = DesignSpec.from_dict(spec)
                    breakdown = {"lines": draft.bp_breakdown(), "total": draft.bp, "target": draft.ship_type.bp}
                except DesignError:
                    breakdown = None
            else:
                messages.success(request, f"Design '{design.name}' saved ({design.bp} BP): build it at a dockyard.")
                return redirect("campaign-orders", campaign.pk)
    else:
        form = DesignForm()
    context = {
        "campaign": campaign, "empire": empire, "form": form, "breakdown": breakdown,
        "designs": [{"name": d.name, "type": ShipType(d.ship_type).label, "bp": d.bp}
                    for d in Design.objects.filter(campaign=campaign, empire=empire).order_by("bp", "name")],
        "technologies": [Technology(t).label for t in empire.technologies],
        "weapons": WEAPONS.values(),
        "bp_rules": design_bp_rules(),
    }
    return render(request, "orders/design.html", context)


def design_bp_rules() -> dict:
    """What each component costs ("Star Ship Design Rules"), for the designer's running BP
    total (static/design.js, issue 13 item 21); the same constants the engine adds up."""
    from campaign.rules.eventhorizon import designs as d

    return {
        "types": {t.value: {"label": t.label, "bp": t.bp} for t in ShipType},
        "hull": d.HULL_BP_PER_POINT, "engine": d.ENGINE_BP_PER_POINT,
        "force_field": {str(k): v for k, v in d.FORCE_FIELD_COST.items()},
        "improved_force_fields": d.IMPROVED_FORCE_FIELD_SURCHARGE, "stealth_field": d.STEALTH_FIELD_BP,
        "boarding_parties": d.BOARDING_PARTY_BP, "cargo": d.CARGO_BP_PER_POINT,
        "core_containment_capacitor": d.CORE_CONTAINMENT_CAPACITOR_BP, "ai_supercomputer": d.AI_SUPERCOMPUTER_BP,
        "weapons": {w.key: {"label": w.label, "bp": w.bp} for w in WEAPONS.values()},
    }
