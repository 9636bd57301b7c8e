"""The CAM REST API (DRF), under /api/cam/. Thin like the pages: scope to what the caller may see
(outsiders 404, anonymous 401/403), call one action, render. A refused action answers 400 (403
when the caller may not do it) with ``{"detail": reason, "reason": code}`` and changes nothing.

    campaigns/                                     GET your CAM campaigns; POST create one (you moderate)
    campaigns/{id}/                                GET settings, players, scenarios
    campaigns/{id}/start/                          POST (moderator) start the rubber
    campaigns/{id}/fleet/                          PUT {"fleet": [...], "seat"?} a starting fleet (set-up)
    campaigns/{id}/sds/                            GET the SD catalogue; POST (moderator) a custom SD
    campaigns/{id}/rosters/                        GET every roster with ship states
    campaigns/{id}/scenarios/                      GET list; POST generate the next (CAM 2.1)
    campaigns/{id}/scenarios/{n}/                  GET one scenario (the opponent's force hidden until the table)
    campaigns/{id}/scenarios/{n}/forces/           PUT {"ships": [...], "extra_ac", "bases", "minefields",
    "edge_choice"}
    campaigns/{id}/scenarios/{n}/table/            POST roll the table (CAM 2.3)
    campaigns/{id}/scenarios/{n}/turns/            POST {"destroyed", "crippled", "left"} this game turn's losses
    campaigns/{id}/scenarios/{n}/break-contact/    GET the CAM 3.1 conditions each side meets and the checks made
    campaigns/{id}/scenarios/{n}/end/ | confirm/ | reject/ | autoresolve/   POST
    campaigns/{id}/between/                        POST {"requests": [...], "ready": true} (CAM 4.2)
    campaigns/{id}/standings/                      GET CAM 4.3 standings
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from campaign.access import role_of
from campaign.models import Campaign, Membership
from campaign.rules.cam import breakcontact as bc

from . import actions, adapters, online
from .api_schema import (
    BETWEEN,
    BREAK_CONTACT,
    FLEET,
    REFUSED,
    STANDINGS,
    CamCampaignSerializer,
    CamRosterSerializer,
    CamScenarioSerializer,
    CamSDSerializer,
    refusals,
)
from .models import CamScenario
from .views import cam_campaigns


def _campaign(request, campaign_id: int) -> Campaign:
    campaign = cam_campaigns(request.user).select_related("cam").filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound("no such CAM campaign")
    return campaign


def _refused(exc: actions.CamActionError) -> Response:
    code = getattr(exc, "http_status", None) or (status.HTTP_403_FORBIDDEN if isinstance(exc, actions.NotAllowed) else (
        status.HTTP_404_NOT_FOUND if isinstance(exc, actions.NotFound) else status.HTTP_400_BAD_REQUEST))
    return Response({"detail": str(exc), "reason": exc.reason}, status=code)


def _run(request, campaign_id: int, fn, render, *, created: bool = False) -> Response:
    _campaign(request, campaign_id)
    try:
        result = fn()
    except actions.CamActionError as exc:
        return _refused(exc)
    return Response(render(result), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


def _data(request) -> dict:
    return request.data if isinstance(request.data, dict) else {}


def campaign_json(campaign: Campaign) -> dict:
    cam = campaign.cam
    return {
        "id": campaign.pk, "name": campaign.name, "layer": campaign.layer, "status": campaign.status,
        "seed_hash": campaign.seed_hash, "seed": campaign.revealed_seed,
        "settings": {"period": cam.period, "starting_points": cam.starting_points, "scenarios": cam.scenarios,
                     "points_level": cam.points_level, "break_percent": cam.break_percent,
                     "replacement_percent": cam.replacement_percent, "survival_roll": cam.survival_roll,
                     "battle_mode": cam.battle_mode, "scenario_mode": cam.scenario_mode, "tables": cam.tables,
                     "replacement_house_rule": cam.replacement_house_rule},
        "players": [{"seat": p.seat, "username": p.user.username, "name": p.name, "faction": p.faction,
                     "wealth": p.wealth, "temper": p.temper, "preset": p.preset,
                     "replacement_points": p.replacement_points, "campaign_points": p.campaign_points,
                     "between_ready": p.between_ready}
                    for p in cam.players.order_by("seat").select_related("user")],
        "scenarios": [{"number": s.number, "stage": s.stage, "nature": s.nature}
                      for s in cam.scenario_rows.order_by("number")],
        "replacements_done": cam.replacements_done,
        # The step the rubber is at and its deadline (the platform's moderation moves it).
        "step": {"number": cam.step, "label": actions.step_label(campaign, cam), "deadline": cam.deadline,
                 "paused": campaign.paused, "hours": campaign.turn_hours},
    }


def scenario_json(row: CamScenario, user) -> dict:
    campaign = row.cam.campaign
    role = role_of(user, campaign)
    mine = row.cam.players.filter(user=user).first()
    forces, ship_tables = {}, {}
    for seat, force in row.forces.items():
        visible = bool(row.tables) or role == Membership.Role.MODERATOR or (mine and str(mine.seat) == seat)
        forces[seat] = force if visible else {"chosen": True}
        if visible:  # ruling BZ94: the tables chosen for the ships, hidden as the force is
            ship_tables[seat] = online.table_choices(row, int(seat))
    return {
        "number": row.number,
        "stage": row.stage,
        "nature": row.nature,
        "nature_roll": row.nature_roll,
        "defender": row.defender,
        "points_level": row.points_level,
        "break_percent": row.break_percent,
        "forces": forces,
        "break_levels": row.break_levels if row.tables else {},
        "tables": row.tables,
        "edges": row.edges,
        "battle": row.battle,
        "turn_entered": sorted(s for s in row.turn_entries if s != actions.battle.CONFIRMED),
        # a player's confirmation taken while the rubber is paused, scored on resuming (ruling CAM60)
        "confirmed_by": actions.battle.held_confirmation(row),
        "proposed_by": row.proposed_by,
        "force_end": row.force_end,
        "score": row.score,
        "events": row.events,
        "mode": row.mode,
        "online": online.battle_summary(row),
        "ship_tables": ship_tables,
    }


class Campaigns(APIView):
    @extend_schema(responses=CamCampaignSerializer(many=True), operation_id="cam_campaigns_list")
    def get(self, request):
        return Response([campaign_json(c) for c in cam_campaigns(request.user).select_related("cam")])

    @extend_schema(request=OpenApiTypes.OBJECT, responses=refusals(CamCampaignSerializer, 400, 403, 404,
                                                                    created=True))
    def post(self, request):
        d = _data(request)
        try:
            campaign = actions.create_cam_campaign(
                user=request.user, name=d.get("name", ""), period=d.get("period"),
                starting_points=d.get("starting_points"), players=d.get("players") or [],
                scenarios=d.get("scenarios", 5), points_level=d.get("points_level", 60),
                break_percent=d.get("break_percent", 40), replacement_percent=d.get("replacement_percent", 10),
                survival_roll=d.get("survival_roll", False), battle_mode=d.get("battle_mode", "tabletop"),
                seed=d.get("seed"), tables=d.get("tables", 1),
                replacement_house_rule=d.get("replacement_house_rule", False),
                scenario_mode=d.get("scenario_mode", "tabletop"))
        except actions.CamActionError as exc:
            return _refused(exc)
        except (TypeError, AttributeError) as exc:
            return Response({"detail": f"bad campaign data: {exc}", "reason": ""}, status=400)
        return Response(campaign_json(campaign), status=status.HTTP_201_CREATED)


class CampaignDetail(APIView):
    @extend_schema(responses={200: CamCampaignSerializer, 404: REFUSED})
    def get(self, request, campaign_id: int):
        return Response(campaign_json(_campaign(request, campaign_id)))


class Start(APIView):
    @extend_schema(request=None, responses=refusals(CamCampaignSerializer, 400, 403, 404))
    def post(self, request, campaign_id: int):
        return _run(request, campaign_id, lambda: actions.start(campaign_id=campaign_id, user=request.user),
                    campaign_json)


class Fleet(APIView):
    @extend_schema(request=OpenApiTypes.OBJECT, responses=refusals(FLEET, 400, 403, 404))
    def put(self, request, campaign_id: int):
        d = _data(request)
        return _run(request, campaign_id, lambda: actions.set_starting_fleet(
            campaign_id=campaign_id, user=request.user, fleet=d.get("fleet"), seat=d.get("seat")),
            lambda p: {"seat": p.seat, "fleet": p.starting_fleet})


class SDs(APIView):
    @extend_schema(responses={200: CamSDSerializer(many=True), 404: REFUSED}, operation_id="cam_campaigns_sds_retrieve")
    def get(self, request, campaign_id: int):
        campaign = _campaign(request, campaign_id)
        return Response([adapters.sd_json(sd) for sd in adapters.catalogue(campaign.cam).values()])

    @extend_schema(request=OpenApiTypes.OBJECT, responses=refusals(CamSDSerializer, 400, 403, 404, created=True))
    def post(self, request, campaign_id: int):
        d = dict(_data(request))
        return _run(request, campaign_id, lambda: actions.add_custom_sd(campaign_id=campaign_id, user=request.user,
                                                                         fields=d),
                    lambda row: adapters.sd_json(adapters.sd_from_row(row)), created=True)


class Rosters(APIView):
    @extend_schema(responses={200: CamRosterSerializer(many=True), 404: REFUSED},
                   operation_id="cam_campaigns_rosters_retrieve")
    def get(self, request, campaign_id: int):
        campaign = _campaign(request, campaign_id)
        catalogue = adapters.catalogue(campaign.cam)
        return Response([
            {"seat": p.seat, "name": p.name, "ships": [
                {"number": s.number, "sd": s.sd, "name": s.name, "status": s.status, "destroyed_in": s.destroyed_in,
                 "replaced_by": s.replaced_by, "points": catalogue[s.sd].points if s.sd in catalogue else None}
                for s in p.ships.order_by("number")]}
            for p in campaign.cam.players.order_by("seat")])


class Scenarios(APIView):
    @extend_schema(responses={200: CamScenarioSerializer(many=True), 404: REFUSED},
                   operation_id="cam_campaigns_scenarios_list")
    def get(self, request, campaign_id: int):
        campaign = _campaign(request, campaign_id)
        return Response([scenario_json(r, request.user) for r in campaign.cam.scenario_rows.order_by("number")])

    @extend_schema(request=OpenApiTypes.OBJECT,
                   responses=refusals(CamScenarioSerializer, 400, 403, 404, 409, created=True))
    def post(self, request, campaign_id: int):
        d = _data(request)
        return _run(request, campaign_id, lambda: actions.generate_scenario(
            campaign_id=campaign_id, user=request.user, nature=d.get("nature"), defender=d.get("defender")),
            lambda row: scenario_json(row, request.user), created=True)


def _row(request, campaign_id: int, number: int) -> CamScenario:
    row = _campaign(request, campaign_id).cam.scenario_rows.filter(number=number).first()
    if row is None:
        raise NotFound("no such scenario")
    return row


class ScenarioDetail(APIView):
    @extend_schema(responses={200: CamScenarioSerializer, 404: REFUSED})
    def get(self, request, campaign_id: int, number: int):
        return Response(scenario_json(_row(request, campaign_id, number), request.user))


class _ScenarioAction(APIView):
    def act(self, request, campaign_id: int, number: int, fn):
        _row(request, campaign_id, number)
        return _run(request, campaign_id, fn, lambda row: scenario_json(
            CamScenario.objects.get(pk=row.pk), request.user))


class Forces(_ScenarioAction):
    @extend_schema(request=OpenApiTypes.OBJECT, responses=refusals(CamScenarioSerializer, 400, 403, 404))
    def put(self, request, campaign_id: int, number: int):
        d = _data(request)
        return self.act(request, campaign_id, number, lambda: actions.select_forces(
            campaign_id=campaign_id, user=request.user, ships=d.get("ships", []), extra_ac=d.get("extra_ac", 0),
            bases=d.get("bases", 0), minefields=d.get("minefields", 0), edge_choice=d.get("edge_choice"),
            seat=d.get("seat"), on_table=d.get("on_table", False)))


class Table(_ScenarioAction):
    @extend_schema(request=None, responses=refusals(CamScenarioSerializer, 400, 403, 404, 409))
    def post(self, request, campaign_id: int, number: int):
        return self.act(request, campaign_id, number, lambda: actions.roll_table(campaign_id=campaign_id,
                                                                                 user=request.user))


class Turns(_ScenarioAction):
    @extend_schema(request=OpenApiTypes.OBJECT, responses=refusals(CamScenarioSerializer, 400, 403, 404))
    def post(self, request, campaign_id: int, number: int):
        d = _data(request)
        return self.act(request, campaign_id, number, lambda: actions.enter_turn(
            campaign_id=campaign_id, user=request.user, destroyed=d.get("destroyed", []),
            crippled=d.get("crippled", []), left=d.get("left", []), seat=d.get("seat")))


class BreakContact(APIView):
    @extend_schema(responses={200: BREAK_CONTACT, 404: REFUSED})
    def get(self, request, campaign_id: int, number: int):
        row = _row(request, campaign_id, number)
        conditions = actions.checks_now(row)
        return Response({
            "turn": row.battle["turn"] if row.battle else None,
            "must_check": {str(s): [{"condition": c, "text": bc.CONDITION_TEXT[c]} for c in cs]
                           for s, cs in conditions.items()},
            "broken": row.battle["broken"] if row.battle else {},
            "checks": [e for e in row.events if e["step"] == "break_contact" and e["kind"] == "check"],
        })


def _simple(fn_name: str, *codes: int):
    class View(_ScenarioAction):
        @extend_schema(request=None, responses=refusals(CamScenarioSerializer, *codes))
        def post(self, request, campaign_id: int, number: int):
            fn = getattr(actions, fn_name)
            return self.act(request, campaign_id, number, lambda: fn(campaign_id=campaign_id, user=request.user))
    View.__name__ = fn_name.title().replace("_", "")
    return View


# 409: the rubber is paused (ruling CAM60); a confirmation then is held, not refused
End = _simple("propose_end", 400, 403, 404, 409)
Confirm = _simple("confirm_result", 400, 403, 404)
Reject = _simple("reject_result", 400, 403, 404, 409)
Autoresolve = _simple("autoresolve", 400, 403, 404, 409)


class Between(APIView):
    @extend_schema(request=OpenApiTypes.OBJECT, responses=refusals(BETWEEN, 400, 403, 404))
    def post(self, request, campaign_id: int):
        d = _data(request)
        return _run(request, campaign_id, lambda: actions.submit_replacements(
            campaign_id=campaign_id, user=request.user, requests=d.get("requests", []), ready=d.get("ready", True),
            seat=d.get("seat")), lambda p: {"seat": p.seat, "requests": p.requests, "ready": p.between_ready})


class Standings(APIView):
    @extend_schema(responses={200: STANDINGS, 404: REFUSED})
    def get(self, request, campaign_id: int):
        campaign = _campaign(request, campaign_id)
        if not campaign.cam.started:
            raise NotFound("the campaign has not started")
        table = actions.standings(campaign.cam)
        return Response(
            {
                "finished": table.finished,
                "leader": table.leader,
                "winner": table.winner,
                "table": [
                    {
                        "seat": s.seat,
                        "name": s.name,
                        "campaign_points": s.campaign_points,
                        "scenario_wins": s.scenario_wins,
                        "victories": dict(s.victories),
                    }
                    for s in table.table
                ],
                "scenarios": [
                    {
                        "number": r.number,
                        "winner": r.score["winner"],
                        "victory": r.score["victory"],
                        "sides": r.score["sides"],
                    }
                    for r in campaign.cam.scenario_rows.filter(stage=CamScenario.Stage.SCORED).order_by(
                        "number"
                    )
                ],
            }
        )
