"""Fog of war, the Django side: who sees what of a campaign, now or at any past turn.

The pure rules are in ``campaign/rules/eventhorizon/fog.py``; this module decides, from a user's
role, which seat's view applies, loads the state (live, or a past turn's ``Turn.snapshot``) and
builds what pages, the API, reports and emails show. Every view of campaign contents asks here
(docs/rulings.md "Fog of war").

Who sees what (ruling FW5):

- the moderator sees everything;
- a player sees through their own seat's eyes while the campaign runs (with fog of war off they
  see every fleet but still no other empire's treasury, technologies, builds or orders);
- an observer sees terrain, worlds, owners and map symbols while the campaign runs (and every
  fleet if fog of war is off);
- once the campaign has finished, everyone sees everything.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, replace

from django.core.cache import cache
from django.db.models import Count, Q

from ..access import empire_of, role_of
from ..models import Campaign, Membership, Turn
from ..rules.eventhorizon import economy as eh
from ..rules.eventhorizon import fog
from ..rules.eventhorizon import trade as eh_trade
from ..rules.eventhorizon.designs import Technology
from ..rules.eventhorizon.state import (
    BuildState,
    CampaignState,
    EmpireState,
    FleetState,
    ShipState,
    StructureState,
)
from . import adapters, mapsvg

OBSERVER_SEAT = 0  # a seat that owns nothing, so detects nothing


class HistoryUnavailable(LookupError):
    """A past turn whose starting state was not kept (the page says so)."""


@dataclass(frozen=True)
class Viewer:
    """How one user sees one campaign. ``fog_seat`` None: no fog at all (moderator, or the
    campaign has ended); ``radius`` None: every fleet is detected (fog of war off)."""

    role: str | None
    seat: int | None  # the user's own seat, if they play
    fog_seat: int | None
    radius: int | None

    @property
    def full(self) -> bool:
        return self.fog_seat is None

    @property
    def is_moderator(self) -> bool:
        return self.role == Membership.Role.MODERATOR

    def sees_seat(self, seat: int) -> bool:
        """May this viewer see a seat's private figures (treasury, technologies, builds)?"""
        return self.full or seat == self.seat


def fog_radius(campaign: Campaign) -> int | None:
    """How far a seat detects other empires' fleets; None: fog of war is off, every fleet is seen."""
    return campaign.detection_range if campaign.fog_of_war else None


def viewer_for(user, campaign: Campaign, *, as_seat: int | None = None) -> Viewer:
    """The view ``user`` has of ``campaign``. A moderator may ask for a seat's view (``as_seat``)
    to read what that player reads."""
    empire = empire_of(user, campaign)
    return viewer_from(role_of(user, campaign), empire.seat if empire else None, campaign, as_seat=as_seat)


def viewer_from(role: str | None, seat: int | None, campaign: Campaign, *, as_seat: int | None = None) -> Viewer:
    """``viewer_for`` from a role and seat already read (``lookups.campaign_access``)."""
    radius = fog_radius(campaign)
    if role == Membership.Role.MODERATOR:
        if seat is not None and campaign.status != Campaign.Status.FINISHED:
            # A moderator who plays too sees what his seat sees, no more (issue 23 item 9; ruling L6).
            return Viewer(role, seat, seat, radius)
        if as_seat is not None:
            return Viewer(role, as_seat, as_seat, radius)
        return Viewer(role, seat, None, None)
    if campaign.status == Campaign.Status.FINISHED:
        return Viewer(role, seat, None, None)
    if role == Membership.Role.PLAYER and seat is not None:
        return Viewer(role, seat, seat, radius)
    return Viewer(role, None, OBSERVER_SEAT, radius)


# --- states, live and past ------------------------------------------------------------------

def past_turns(campaign: Campaign) -> list[int]:
    """Turns whose starting map can be shown: every turn up to the current one."""
    return list(range(1, campaign.turn + 1))


def state_at(campaign: Campaign, turn: int | None = None) -> CampaignState:
    """The campaign as it stood at the start of ``turn`` (None or the current turn: now).
    Raises HistoryUnavailable for a turn out of range or whose snapshot was not kept."""
    if turn is None or turn == campaign.turn:
        return adapters.load_state(campaign)
    if not 1 <= turn < campaign.turn:
        raise HistoryUnavailable(f"turn {turn} is not a turn of this campaign (1 to {campaign.turn})")
    snapshot = Turn.objects.filter(campaign=campaign, number=turn).values_list("snapshot", flat=True).first()
    if not snapshot:
        raise HistoryUnavailable(f"the map at the start of turn {turn} was not kept")
    try:
        return state_from_snapshot(campaign, snapshot)
    except (KeyError, TypeError, ValueError) as exc:
        raise HistoryUnavailable(f"the kept state of turn {turn} cannot be read ({exc})") from None


def state_from_snapshot(campaign: Campaign, doc: dict) -> CampaignState:
    """Engine state from a ``Turn.snapshot`` (``campaign/eventhorizon/snapshots.py``, version 1): entities by
    seat and number, ships and builds naming ``Design`` ids. The map, the worlds' kinds and home
    worlds and the empires' names never change, so they come from the live campaign."""
    if not isinstance(doc, dict) or doc.get("version") != 1:
        raise HistoryUnavailable("the kept state of that turn is in a format this page cannot read")
    gmap = adapters.cached_map_state(campaign)
    live = adapters.load_state(campaign)
    names = {e.seat: e.name for e in live.empires}
    held = {(x, y): (owner, by, until) for x, y, owner, by, until in doc.get("worlds", [])}
    worlds = tuple(
        replace(w, owner=held.get(w.coord, (None, None, None))[0], held_out_by=held.get(w.coord, (None, None, None))[1],
                held_out_until=held.get(w.coord, (None, None, None))[2])
        for w in live.worlds
    )
    members: dict[int, list[int]] = defaultdict(list)
    ships = []
    for number, owner, design, name, fleet, hero, damage in doc.get("ships", []):
        ships.append(ShipState(id=number, owner=owner, design=design, name=name or "", hero_crew=bool(hero),
                               damage=eh.Damage(**damage) if damage else eh.NO_DAMAGE))
        members[fleet].append(number)
    c = doc.get("campaign", {})
    return CampaignState(
        turn=doc.get("turn", c.get("turn", 0)),
        map=gmap,
        empires=tuple(
            EmpireState(
                seat=e["seat"],
                name=names.get(e["seat"], f"empire {e['seat']}"),
                bp=e.get("bp", 0),
                technologies=frozenset(Technology(t) for t in e.get("technologies", [])),
                eliminated=bool(e.get("eliminated")),
                is_bot=bool(e.get("is_bot")),
            )
            for e in sorted(doc.get("empires", []), key=lambda e: e["seat"])
        ),
        worlds=worlds,
        designs=live.designs,
        structures=tuple(
            StructureState(
                id=number,
                owner=owner,
                resource=eh.Resource(resource),
                coord=(x, y),
                technology=Technology(tech) if tech else None,
            )
            for number, owner, resource, x, y, tech, _built in doc.get("structures", [])
        ),
        ships=tuple(ships),
        fleets=tuple(
            FleetState(id=number, owner=owner, coord=(x, y), ships=tuple(members[number]))
            for number, owner, x, y in doc.get("fleets", [])
        ),
        builds=tuple(
            BuildState(
                dockyard=dock,
                owner=owner,
                design=design,
                turns_left=left,
                hero_crew=bool(hero),
                name=name or "",
            )
            for dock, owner, design, name, hero, _ordered, left in doc.get("builds", [])
        ),
        purpose=c.get("purpose"),
        finished=c.get("status") == Campaign.Status.FINISHED,
        options=campaign.options,
    )


@dataclass(frozen=True)
class View:
    """What a viewer sees of the campaign at one moment."""

    viewer: Viewer
    turn: int
    full: CampaignState  # for the routes' interdiction only; never rendered directly
    seen: CampaignState
    cells: frozenset | None  # detected cells; None: all


def view_for(campaign: Campaign, viewer: Viewer, turn: int | None = None) -> View:
    state = state_at(campaign, turn)
    return view_of_state(state, viewer, campaign.turn if turn is None else turn)


def view_of_state(state: CampaignState, viewer: Viewer, turn: int) -> View:
    if viewer.full:
        return View(viewer, turn, state, state, None)
    cells = fog.detected_cells(state, viewer.fog_seat, viewer.radius) if viewer.radius is not None else None
    seen = fog.fogged_state(state, viewer.fog_seat, viewer.radius)
    return View(viewer, turn, state, seen, cells)


# --- what the map shows ---------------------------------------------------------------------

_TRADE_MAPS: dict[int, tuple] = {}


def _trade_map(gmap):
    hit = _TRADE_MAPS.get(id(gmap))
    if hit is None or hit[0] is not gmap:
        if len(_TRADE_MAPS) > 16:
            _TRADE_MAPS.clear()
        hit = _TRADE_MAPS[id(gmap)] = (gmap, eh_trade.TradeMap.from_map(gmap))
    return hit[1]


def trade_routes(view: View) -> list[tuple[int, object]]:
    """(seat, NetworkStatus) for the networks the viewer may see: their own (ruling FW6), or all
    for an unfogged view. Interdiction is judged with every fleet, seen or not: a player knows
    their own route is cut (their income says so) without seeing who cuts it."""
    state = view.full
    tmap = _trade_map(state.map)
    owners = {w.coord: w.owner for w in state.worlds if w.owner is not None}
    homes = {w.home_of: w.coord for w in state.worlds if w.home_of is not None and w.owner == w.home_of}
    fleets: dict = {}
    for f in state.fleets:
        cell = fleets.setdefault(f.coord, {})
        cell[f.owner] = cell.get(f.owner, 0) + len(f.ships)
    if view.viewer.full:
        seats = state.active_seats()
    elif view.viewer.seat is not None and view.viewer.fog_seat == view.viewer.seat:
        seats = (view.viewer.seat,) if view.viewer.seat in state.active_seats() else ()
    else:
        seats = ()
    out = []
    for seat in seats:
        net = eh_trade.network(tmap, seat, owners, homes.get(seat))
        out.append((seat, eh_trade.network_status(net, seat, fleets)))
    return out


def _fleet_detail(state: CampaignState, fleet: FleetState, *, own: bool) -> str:
    ships = state.ship_index()
    counts: dict[str, int] = defaultdict(int)
    names = []
    for sid in fleet.ships:
        ship = ships.get(sid)
        if ship is None:
            continue
        design = state.designs.get(ship.design)
        counts[design.ship_type.label if design else "ship"] += 1
        if own and ship.name:
            names.append(ship.name)
    text = ", ".join(f"{n} {label}" for label, n in sorted(counts.items()))
    if names:
        text += "; " + ", ".join(names)
    return text


def overlay_for(campaign: Campaign, view: View) -> mapsvg.Overlay:
    state = view.seen
    empires = {e.seat: e for e in campaign.empires.all()}

    def colour(seat):
        return empires[seat].colour if seat in empires else "#888888"

    def name(seat):
        return empires[seat].name if seat in empires else f"empire {seat}"

    overlay = mapsvg.Overlay()
    homes = overlay.home_worlds = {}
    for w in state.worlds:
        if w.owner is not None:
            overlay.owner_colour[w.coord] = colour(w.owner)
            overlay.owner_name[w.coord] = name(w.owner)
        if w.home_of is not None:
            homes[w.coord] = name(w.home_of)
    symbols = defaultdict(set)
    for s in state.structures:
        if s.resource.symbol:
            symbols[s.coord].add(s.resource.symbol)
    overlay.symbols = {c: "".join(s for s in adapters.RESOURCE_SYMBOL_ORDER if s in found)
                       for c, found in symbols.items()}
    fleets = defaultdict(list)
    for f in state.fleets:
        own = view.viewer.full or f.owner == view.viewer.seat
        fleets[f.coord].append(mapsvg.FleetMark(
            number=f.id, seat=f.owner, colour=colour(f.owner), owner=name(f.owner), ships=len(f.ships),
            detail=_fleet_detail(state, f, own=own)))
    overlay.fleets = dict(fleets)
    for seat, status in trade_routes(view):
        cut = set(status.interdicted)
        for route in status.network.edges:
            overlay.routes.append(mapsvg.RouteMark(path=route.path, seat=seat, colour=colour(seat),
                                                   interdicted=route in cut))
        for c in status.cut_off:
            overlay.notes.setdefault(c, []).append("cut off from the home world: no income")
    return overlay


def map_svg_for(campaign: Campaign, user, *, turn: int | None = None, interactive: bool = False,
                as_seat: int | None = None) -> str:
    """The map SVG as ``user`` may see it, now (``turn`` None) or at the start of a past turn.
    Raises HistoryUnavailable when that turn's state was not kept."""
    return rendered_map(campaign, viewer_for(user, campaign, as_seat=as_seat), turn, interactive=interactive)[0]


def rendered_map(campaign: Campaign, viewer: Viewer, turn: int | None = None, *,
                 interactive: bool = False) -> tuple[str, list[dict]]:
    """(SVG, visible fleets) for a viewer, cached. Rendering a map takes tens of milliseconds;
    the key holds everything the picture depends on — the viewer's eyes, the turn, and a
    fingerprint of the rows a turn, a roll-back or a moderator's edit can change — so a cached
    map is never one the viewer should no longer see."""
    return _rendered(campaign, viewer, map_cache_key(campaign, viewer, turn, interactive=interactive),
                     turn, interactive, "svg", "fleets")


def map_cache_key(campaign: Campaign, viewer: Viewer, turn: int | None = None, *, interactive: bool = False) -> str:
    """The key of a viewer's map in the cache (no query: the campaign row's state version says
    whether anything the map shows changed, campaign/versioning.py). Equal keys mean an
    identical picture; not the reverse (the state version moves with rows the viewer cannot see),
    so the SVG's ETag is made from the picture itself (``map_etag``)."""
    if turn == campaign.turn:
        turn = None
    return ":".join(str(part) for part in (
        "sc-map", 2, campaign.pk, campaign.created_at.timestamp() if campaign.created_at else "", campaign.turn,
        campaign.status, campaign.fog_of_war, campaign.detection_range, campaign.state_version, turn,
        viewer.fog_seat, viewer.seat, viewer.radius, int(interactive)))


def map_etag(svg: str) -> str:
    """The SVG's ETag, from what the viewer sees only: a change they cannot see (another empire's
    private design, its hidden fleet) leaves it as it was, so it tells them nothing (issue 24)."""
    return '"' + hashlib.sha256(svg.encode()).hexdigest()[:32] + '"'


def cached_svg(campaign: Campaign, viewer: Viewer, key: str, turn: int | None, *, interactive: bool) -> str:
    """The SVG under ``key`` (from ``map_cache_key`` with the same arguments), rendered if need be."""
    return _rendered(campaign, viewer, key, turn, interactive, "svg")[0]


def visible_fleets(campaign: Campaign, viewer: Viewer, turn: int | None = None) -> list[dict]:
    """The fleets a viewer sees on the map now or at the start of a past turn, cached like the
    map but apart from its (large) SVG, so pages that list fleets never load the picture."""
    key = map_cache_key(campaign, viewer, turn, interactive=True)
    return _rendered(campaign, viewer, key, turn, True, "fleets")[0]


def _rendered(campaign: Campaign, viewer: Viewer, key: str, turn: int | None, interactive: bool, *parts: str) -> tuple:
    """The cached ``parts`` ("svg", "fleets") of a viewer's map, rendering both on a miss."""
    if turn == campaign.turn:
        turn = None
    found = cache.get_many([f"{key}:{p}" for p in parts])
    if len(found) == len(parts):
        return tuple(found[f"{key}:{p}"] for p in parts)
    view = view_for(campaign, viewer, turn)
    made = {"svg": mapsvg.render(view.seen.map, overlay_for(campaign, view), interactive=interactive),
            "fleets": fleets_json(campaign, view)}
    cache.set_many({f"{key}:{p}": v for p, v in made.items()}, MAP_CACHE_SECONDS)
    return tuple(made[p] for p in parts)


MAP_CACHE_SECONDS = 600


def fleets_json(campaign: Campaign, view: View) -> list[dict]:
    """Fleets the viewer sees, for the API and the map's side panel."""
    state = view.seen
    ships = state.ship_index()
    out = []
    for f in state.fleets:
        own = view.viewer.full or f.owner == view.viewer.seat
        row = {"number": f.id, "owner": f.owner, "x": f.coord[0], "y": f.coord[1], "ships": len(f.ships),
               "types": _fleet_detail(state, f, own=False)}
        if own:
            row["ship_list"] = [
                {"number": sid, "name": ships[sid].name,
                 "design": state.designs[ships[sid].design].name if ships[sid].design in state.designs else None,
                 "hero_crew": ships[sid].hero_crew, "damaged": ships[sid].damage.any}
                for sid in f.ships if sid in ships
            ]
        out.append(row)
    return out


def empire_rows(campaign: Campaign, viewer: Viewer) -> list[dict]:
    """The empire table: names, colours and worlds (public, FW1) and, where the viewer may see
    them, treasury, technologies, ships and fleets."""
    worlds = dict(campaign.worlds.filter(owner__isnull=False).values_list("owner__seat").annotate(n=Count("id")))
    ships = dict(campaign.ships.values_list("owner__seat").annotate(n=Count("id")))
    fleets = dict(campaign.fleets.values_list("owner__seat").annotate(n=Count("id")))
    rows = []
    for e in campaign.empires.select_related("user").order_by("seat"):
        private = viewer.sees_seat(e.seat)
        row = {"empire": e, "seat": e.seat, "name": e.name, "colour": e.colour, "faction": e.faction,
               "eliminated": e.eliminated, "is_bot": e.is_bot, "worlds": worlds.get(e.seat, 0), "private": private}
        if private:
            row.update(bp=e.bp, technologies=sorted(e.technologies), ships=ships.get(e.seat, 0),
                       fleets=fleets.get(e.seat, 0))
        rows.append(row)
    return rows


def visible_structures(campaign: Campaign, viewer: Viewer):
    """Structures the viewer may see (FW3): own ones, and others' that carry a map symbol."""
    qs = campaign.structures.select_related("owner").order_by("number")
    if viewer.full:
        return list(qs)
    mapped = [r.value for r in eh.Resource if r.symbol]
    return list(qs.filter(Q(owner__seat=viewer.seat) | Q(resource__in=mapped)))
