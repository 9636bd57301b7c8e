"""CAM pages. Thin: find what the user may see (outsiders get 404), call one action, render.
A refused action re-renders the page with the action's reason (status 400/403) and nothing
changed."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaign import battles
from campaign.access import role_of, visible_campaigns
from campaign.models import Campaign, Membership
from campaign.rules.cam import breakcontact as bc
from campaign.rules.cam import ships as sh
from campaign.sanitise import whole_number

from . import actions, adapters, charts, online
from .forms import CreateForm, SDForm, fleet_text, parse_fleet, players_from
from .models import EDGE_CHOICES, LAYER, CamScenario


def cam_campaigns(user):
    return visible_campaigns(user).filter(layer=LAYER)


def _campaign(request, campaign_id: int) -> Campaign:
    return get_object_or_404(cam_campaigns(request.user).select_related("cam"), pk=campaign_id)


def _status(exc: actions.CamActionError) -> int:
    return getattr(exc, "http_status", None) or (
        403 if isinstance(exc, actions.NotAllowed) else 404 if isinstance(exc, actions.NotFound) else 400)


def _ints(values) -> list[int]:
    out = []
    for v in values:
        number = whole_number(v)
        if number is None:
            raise actions.CamActionError(f"{v!r} is not a roster number"[:200])
        out.append(number)
    return out


def _int(value, default=0) -> int:
    if value in (None, ""):
        return default
    number = whole_number(value, negative=True)
    if number is None:
        raise actions.CamActionError(f"{value!r} is not a whole number"[:200])
    return number


@login_required
def cam_list(request):
    return render(
        request,
        "cam/list.html",
        {"campaigns": cam_campaigns(request.user).select_related("moderator", "cam")},
    )


@login_required
def cam_create(request):
    form = CreateForm(request.POST or None)
    error = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            campaign = actions.create_cam_campaign(
                user=request.user, name=data["name"], period=data["period"], starting_points=data["starting_points"],
                scenarios=data["scenarios"], points_level=data["points_level"], break_percent=data["break_percent"],
                replacement_percent=data["replacement_percent"], survival_roll=data["survival_roll"],
                battle_mode=data["battle_mode"], seed=data["seed"] or None, players=players_from(data),
                tables=data["tables"] or 1, replacement_house_rule=data["replacement_house_rule"],
                scenario_mode=data["scenario_mode"])
        except actions.CamActionError as exc:
            error = str(exc)
        else:
            return redirect("cam-detail", campaign.pk)
    return render(request, "cam/create.html", {"form": form, "error": error}, status=400 if error else 200)


def _detail_context(request, campaign: Campaign) -> dict:
    cam = campaign.cam
    role = role_of(request.user, campaign)
    players = list(cam.players.order_by("seat").select_related("user").prefetch_related("ships"))
    mine = next((p for p in players if p.user_id == request.user.pk), None)
    catalogue = adapters.catalogue(cam)
    rosters = []
    for p in players:
        entered = [{"sd": catalogue.get(s["sd"]), "key": s["sd"], "name": s.get("name") or ""}
                   for s in p.starting_fleet]
        ships = []
        for s in p.ships.all():
            sd = catalogue.get(s.sd)
            ships.append({"row": s, "sd": sd, "points": sd.points if sd else None})
        rosters.append(
            {
                "player": p,
                "ships": ships,
                "fleet_text": fleet_text(p.starting_fleet),
                "entered": entered,
                "fleet_points": sum(
                    catalogue[s["sd"]].points for s in p.starting_fleet if s["sd"] in catalogue
                ),
            }
        )
    scenarios = list(cam.scenario_rows.order_by("number"))
    current = next((s for s in scenarios if s.stage != CamScenario.Stage.SCORED), None)
    awaiting = (campaign.status == Campaign.Status.ACTIVE and cam.replacements_done < len(
        [s for s in scenarios if s.stage == CamScenario.Stage.SCORED]) and current is None)
    standings = actions.standings(cam) if campaign.cam.started else None
    destroyed = {
        p.seat: [s for s in p.ships.all() if s.status == "destroyed" and s.replaced_by is None]
        for p in players
    }
    return {"campaign": campaign, "cam": cam, "role": role, "is_moderator": role == Membership.Role.MODERATOR,
            "players": players, "mine": mine, "rosters": rosters, "scenarios": scenarios, "current": current,
            "awaiting_between": awaiting, "standings": standings, "destroyed": destroyed,
            "catalogue": [sd for sd in catalogue.values() if sd.available_in(cam.period)],
            "picker": sorted(({"sd": sd, "available": sd.available_in(cam.period)} for sd in catalogue.values()),
                             key=lambda x: (not x["available"], x["sd"].points, x["sd"].name))}


@login_required
def cam_detail(request, campaign_id: int, error: str | None = None, status: int = 200):
    campaign = _campaign(request, campaign_id)
    if campaign.status == Campaign.Status.SETUP:  # still in the platform's lobby: no seats yet
        return redirect("lobby-detail", campaign.pk)
    return render(request, "cam/detail.html", {**_detail_context(request, campaign), "error": error}, status=status)


def _post_action(request, campaign_id: int, run, *, ok: str, scenario: int | None = None, held: str = "",
                 fragment: str = ""):
    """Run one action; on refusal re-render the page it came from with the reason. ``held``: what
    to say instead of ``ok`` when a player's input was stored but the rubber is paused (CAM60).
    ``fragment``: the part of the campaign page to come back to (issue 23 item 14: not its top)."""
    campaign = _campaign(request, campaign_id)  # outsiders: 404
    try:
        result = run()
    except actions.CamActionError as exc:
        if scenario is not None:
            return scenario_page(request, campaign_id, scenario, error=str(exc), status=_status(exc))
        return cam_detail(request, campaign_id, error=str(exc), status=_status(exc))
    if held and campaign.paused and role_of(request.user, campaign) != Membership.Role.MODERATOR:
        ok = f"{held} The campaign is paused: the step is made when the moderator resumes it (ruling CAM60)."
    messages.success(request, ok)
    if scenario is not None:
        number = getattr(result, "number", scenario)
        return redirect("cam-scenario", campaign_id, number)
    if isinstance(result, CamScenario):
        return redirect("cam-scenario", campaign_id, result.number)
    return redirect(reverse("cam-detail", args=[campaign_id]) + (f"#{fragment}" if fragment else ""))


@login_required
@require_POST
def cam_fleet(request, campaign_id: int):
    fleet = parse_fleet(request.POST.get("fleet", ""))
    added = request.POST.get("add_sd", "").strip()
    if added:  # "Add" beside a catalogue SD: the fleet as typed, plus that ship (checked when entered)
        fleet.append({"sd": added, "name": request.POST.get("add_name", "").strip()})

    def run():  # a seat that is no number is refused as the action's own refusals are (not a 500)
        seat = _int(request.POST.get("seat"), None) if request.POST.get("seat") else None
        return actions.set_starting_fleet(campaign_id=campaign_id, user=request.user, fleet=fleet, seat=seat)
    seat = request.POST.get("seat", "")
    # back to the fleet's card, not the page's top (the page's script adds without leaving it)
    return _post_action(
        request,
        campaign_id,
        run,
        fragment=f"starting-{seat}" if seat.isascii() and seat.isdigit() else "",
        ok="Ship added to the starting fleet." if added else "Starting fleet saved.",
    )


@login_required
@require_POST
def cam_start(request, campaign_id: int):
    return _post_action(request, campaign_id, lambda: actions.start(campaign_id=campaign_id, user=request.user),
                        ok="The rubber has begun.")


@login_required
@require_POST
def cam_generate(request, campaign_id: int):
    nature = request.POST.get("nature") or None

    def run():
        defender = _int(request.POST.get("defender"), None) if request.POST.get("defender") else None
        return actions.generate_scenario(campaign_id=campaign_id, user=request.user, nature=nature, defender=defender)
    return _post_action(request, campaign_id, run, ok="Scenario generated (000 CAM 2.1).")


@login_required
@require_POST
def cam_between(request, campaign_id: int):
    def run():
        requests = []
        for value in request.POST.getlist("replace"):
            number = _int(value)
            sd = request.POST.get(f"sd_{number}", "")
            if sd:
                requests.append({"replaces": number, "sd": sd, "name": request.POST.get(f"name_{number}", "")})
        return actions.submit_replacements(campaign_id=campaign_id, user=request.user, requests=requests, ready=True)
    return _post_action(request, campaign_id, run, ok="Replacement requests saved; you are ready (000 CAM 4.2).",
                        held="Replacement requests saved; you are ready (000 CAM 4.2).")


@login_required
@require_POST
def cam_between_run(request, campaign_id: int):
    return _post_action(request, campaign_id, lambda: actions.run_between(campaign_id=campaign_id, user=request.user),
                        ok="Between-scenarios step made (000 CAM 4.2).")


@login_required
def cam_sds(request, campaign_id: int):
    campaign = _campaign(request, campaign_id)
    role = role_of(request.user, campaign)
    form = SDForm(request.POST or None)
    error = None
    if request.method == "POST":
        if form.is_valid():
            try:
                actions.add_custom_sd(campaign_id=campaign.pk, user=request.user, fields=form.cleaned_data)
            except actions.CamActionError as exc:
                error = str(exc)
            else:
                messages.success(request, f"SD {form.cleaned_data['key']} added.")
                return redirect("cam-sds", campaign.pk)
    catalogue = adapters.catalogue(campaign.cam)
    sds = [{"sd": sd, "available": sd.available_in(campaign.cam.period), "custom": sd.key not in sh.STARTER_CATALOGUE}
           for sd in catalogue.values()]
    return render(request, "cam/sds.html", {"campaign": campaign, "sds": sds, "form": form, "error": error,
                                            "is_moderator": role == Membership.Role.MODERATOR},
                  status=400 if error or (request.method == "POST" and not form.is_valid()) else 200)


# --- scenarios -----------------------------------------------------------------------------------


def _scenario_row(campaign: Campaign, number: int) -> CamScenario:
    row = campaign.cam.scenario_rows.filter(number=number).first()
    if row is None:
        raise Http404("no such scenario")
    return row


def unit_label(unit) -> str:
    """A unit as players name it: the ship's name and roster number, not its id (``ship:29``)."""
    if unit.kind == "ship":
        return f"{unit.name} (#{unit.ship_id})"
    number = unit.uid.partition(":")[2]
    return f"{unit.name} {number}"


def _ship_tables(row: CamScenario, cam, mine) -> list[dict] | None:
    """Ruling BZ94: the player's ships and the table each starts on, for the form shown while the
    forces of a scenario fought online on more than one gaming table are chosen (None: no form).
    ``dealt`` is the table the dealing gives a ship not chosen: the n-th ship of the force on
    table (n - 1) mod tables + 1 (``tactical.rules.buoyz.cam.deal_tables``)."""
    if (mine is None or row.stage != CamScenario.Stage.FORCES or row.mode != CamScenario.Mode.ONLINE
            or cam.tables < 2):
        return None
    force = row.forces.get(str(mine.seat))
    if force is None:
        return None
    chosen = online.table_choices(row, mine.seat)
    ships = [u for u in force["units"] if u["kind"] == "ship"]
    return [{"uid": u["uid"], "label": f"{u['name']} (#{u['ship_id']})", "chosen": chosen.get(u["uid"]),
             "dealt": i % cam.tables + 1} for i, u in enumerate(ships)]


@login_required
def scenario_page(request, campaign_id: int, number: int, error: str | None = None, status: int = 200):
    campaign = _campaign(request, campaign_id)
    cam = campaign.cam
    row = _scenario_row(campaign, number)
    role = role_of(request.user, campaign)
    players = list(cam.players.order_by("seat").select_related("user"))
    mine = next((p for p in players if p.user_id == request.user.pk), None)
    catalogue = adapters.catalogue(cam)
    names = {p.seat: p.name for p in players}
    state = adapters.campaign_state(cam)
    shown_forces = {}
    for p in players:
        force = row.forces.get(str(p.seat))
        # The opponent's force stays hidden until the table is rolled (both chose blind).
        visible = force is not None and (
            row.tables or role == Membership.Role.MODERATOR or (mine and mine.seat == p.seat)
        )
        shown_forces[p.seat] = {"player": p, "chosen": force is not None, "force": force if visible else None,
                                "level": row.break_levels.get(str(p.seat))}
    roster = []
    if mine is not None:
        for s in mine.ships.order_by("number"):
            sd = catalogue.get(s.sd)
            roster.append(
                {
                    "row": s,
                    "sd": sd,
                    "selected": s.number in row.selections.get(str(mine.seat), {}).get("ships", []),
                }
            )
    ship_tables = _ship_tables(row, cam, mine)
    units = {}
    checks = {}
    battle = None
    if row.battle is not None:
        battle = adapters.battle_state(row, state)
        now = actions.checks_now(row) if row.stage == CamScenario.Stage.FIGHTING else {}
        for p in players:
            rows = []
            for u in battle.force(p.seat).units:
                us = battle.unit_status(p.seat, u.uid)
                rows.append({"unit": u, "state": us.state.value, "crippled": us.crippled, "label": unit_label(u)})
            units[p.seat] = {"player": p, "units": rows, "losses": battle.losses(p.seat),
                             "level": battle.scenario.break_levels[p.seat], "broken": battle.broken.get(p.seat),
                             "entered": str(p.seat) in row.turn_entries,
                             "conditions": [bc.CONDITION_TEXT[c] for c in now.get(p.seat, ())]}
        checks = {s: units[s]["conditions"] for s in units}
    preview = None
    if row.stage == CamScenario.Stage.CONFIRMING:
        preview = actions.score_preview(row)
    can_confirm = row.stage == CamScenario.Stage.CONFIRMING and (
        role == Membership.Role.MODERATOR or (mine is not None and mine.seat != row.proposed_by))
    context = {
        "campaign": campaign, "cam": cam, "row": row, "role": role, "is_moderator": role == Membership.Role.MODERATOR,
        "players": players, "mine": mine, "names": names, "forces": shown_forces, "roster": roster,
        "selection": row.selections.get(str(mine.seat), {}) if mine else {}, "units": units, "checks": checks,
        "battle": battle, "preview": preview, "can_confirm": can_confirm, "error": error, "edges": EDGE_CHOICES,
        "my_units": units.get(mine.seat) if mine else None,
        "can_autoresolve": role == Membership.Role.MODERATOR or (mine is not None and cam.battle_mode == "auto"),
        "proposer": names.get(row.proposed_by, "the moderator") if row.proposed_by is not None else None,
        "confirmed_by": actions.battle.held_confirmation(row),  # kept while paused (ruling CAM60)
        "online": online.battle_summary(row), "ship_tables": ship_tables,
        "modes": [(v, cam.mode_label(v)) for v in CamScenario.Mode.values],  # online: on the rubber's book
        # the book it is fought on (issue 31): "the Buoyz engine", or the one the moderator chose
        "fought_on": cam.online_book_title() if row.mode == CamScenario.Mode.ONLINE else "",
        "table_numbers": range(1, cam.tables + 1),
        # issue 31: the forces as record sheets, on each rule book that can print them, once the table is set
        "sheet_books": _sheet_books(campaign) if row.battle is not None else [],
    }
    return render(request, "cam/scenario.html", context, status=status)


def _sheet_books(campaign) -> list[tuple[str, str]]:
    """The books the forces print on, the rubber's own first (the page calls it the table's own):
    the one its battles use ("battles fought online use", issue 31), Buoyz when none was chosen."""
    books = battles.handler().book_choices(LAYER)
    own = (campaign.options or {}).get("battle_book") or books[0][0]
    return sorted(books, key=lambda b: b[0] != own)


@login_required
@require_POST
def scenario_forces(request, campaign_id: int, number: int):
    def run():
        return actions.select_forces(
            campaign_id=campaign_id, user=request.user, ships=_ints(request.POST.getlist("ships")),
            extra_ac=_int(request.POST.get("extra_ac")), bases=_int(request.POST.get("bases")),
            minefields=_int(request.POST.get("minefields")), edge_choice=request.POST.get("edge_choice") or None,
            on_table=bool(request.POST.get("on_table")))
    return _post_action(request, campaign_id, run, ok="Force chosen (000 CAM 2.2).", scenario=number)


@login_required
@require_POST
def scenario_table(request, campaign_id: int, number: int):
    return _post_action(request, campaign_id, lambda: actions.roll_table(campaign_id=campaign_id, user=request.user),
                        ok="Table rolled (000 CAM 2.3); the game begins.", scenario=number)


@login_required
@require_POST
def scenario_turn(request, campaign_id: int, number: int):
    def run():
        return actions.enter_turn(campaign_id=campaign_id, user=request.user,
                                  destroyed=request.POST.getlist("destroyed"),
                                  crippled=request.POST.getlist("crippled"), left=request.POST.getlist("left"))
    return _post_action(request, campaign_id, run, ok="Turn entered.", scenario=number, held="Turn entered.")


@login_required
@require_POST
def scenario_end(request, campaign_id: int, number: int):
    return _post_action(request, campaign_id, lambda: actions.propose_end(campaign_id=campaign_id, user=request.user),
                        ok="End of the game entered; the other player confirms the result.", scenario=number)


@login_required
@require_POST
def scenario_confirm(request, campaign_id: int, number: int):
    return _post_action(
        request,
        campaign_id,
        lambda: actions.confirm_result(campaign_id=campaign_id, user=request.user),
        ok="Result confirmed and scored (000 CAM 3.1, 4.3).",
        scenario=number,
        held="Your confirmation is kept.",
    )


@login_required
@require_POST
def scenario_reject(request, campaign_id: int, number: int):
    return _post_action(request, campaign_id, lambda: actions.reject_result(campaign_id=campaign_id, user=request.user),
                        ok="Result disputed; the game goes on.", scenario=number)


@login_required
@require_POST
def scenario_autoresolve(request, campaign_id: int, number: int):
    return _post_action(request, campaign_id, lambda: actions.autoresolve(campaign_id=campaign_id, user=request.user),
                        ok="Battle auto-resolved and scored.", scenario=number)


@login_required
def standings_page(request, campaign_id: int):
    campaign = _campaign(request, campaign_id)
    cam = campaign.cam
    if not campaign.cam.started:
        raise Http404("the campaign has not started")
    table = actions.standings(cam)
    scored = list(cam.scenario_rows.filter(stage=CamScenario.Stage.SCORED).order_by("number"))
    players = list(cam.players.order_by("seat"))
    rows = []
    for s in scored:
        rows.append({"row": s, "sides": [s.score["sides"][str(p.seat)] for p in players],
                     "winner": next((p.name for p in players if p.seat == s.score["winner"]), None)})
    colours = charts.player_colours(cam)
    svg = charts.cp_chart(players, scored, colours)
    return render(request, "cam/standings.html", {"campaign": campaign, "cam": cam, "standings": table,
                                                  "rows": rows, "players": players, "svg": svg,
                                                  "colours": colours})
