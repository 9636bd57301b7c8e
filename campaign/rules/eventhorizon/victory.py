"""Event Horizon victory and elimination: the campaign's purpose, who has lost, who has won.

Pure Python (standard library only). Rule book: ``seeds/003_…``, "Purpose of the Campaign
(Victory Conditions)" and "Trade Routes"; project rulings: ``RULINGS.md`` "Victory condition"
and "Trade routes" (T1 – T8 in ``docs/rulings.md`` and ``trade.py``). Further rulings made here
(V1 – V14) are listed in ``docs/rulings.md`` and repeated beside the code below.

    roll_purpose(dice) -> int                      the d6, once, when the campaign is created
    check(state, dice) -> (state, events)          end of every turn: eliminations and the win
    status(state, seat) -> VictoryStatus           for turn reports

Rulings
-------
V1  Purpose of the Campaign: "Roll at the start of each campaign". One 1d6, logged as
    "003 Purpose of the Campaign", when the campaign is created; it binds every player
    (RULINGS "Victory condition"). ``check`` never rolls it: while ``state.purpose`` is None
    the purpose conditions are skipped (eliminations and the last empire standing still apply).
V2  Timing. ``check`` runs once per turn, after the battles and the build queues (ships
    completed this turn count) and before trade and income. It rolls no dice (``dice`` is taken
    for the pipeline's uniform step signature). A finished campaign is left as it is.
V3  "a player loses if he finishes a campaign turn with no ships". Ships are ships in play
    (``state.ships``), lone ships included; ships on the stocks (``state.builds``) are not
    ships yet. Owning worlds does not save an empire, and having no worlds does not eliminate
    one that still has ships. Every empire without ships is eliminated at once, and this comes
    first: an empire with no ships loses even if it would meet the purpose that turn.
V4  A lost empire (``eliminated=True``) leaves the map: its worlds become neutral (``home_of``
    keeps whose home world it was); its resources on them are removed, as are its ships on the
    stocks, its paid repairs and its Trade War counters (and everyone's counters against it).
    Its star gates stay (anyone may use a gate, "Star Gate") but count for nobody. Hold-out
    garrisons: a world of the lost empire that a hold-out garrison was keeping from an invader
    still in the game, with ships still in the hex, passes to that invader now, with the
    resources and any ship on the stocks in its hex ("Result of a Tactical Battle"), as the end
    of the hold-out would give it (conflict ruling C6); without the invader's ships there it
    becomes neutral like the others. A hold-out against a lost invader simply ends.
V5  "The enemy" with more than two players means every other empire not eliminated. Conditions
    are read from the position at the end of the turn (what each empire holds now), not from
    a history of captures.
V6  6 Total Annihilation: no other empire owns a planet and the winner owns at least one.
    Colonies do not count ("planet" against row 1's "colony").
V7  5 Trade War: the winner's consecutive-turn counter (ruling T8) is at least 3 against every
    other empire. ``turn.trade_step`` updates the counters *after* ``check``, so ``check`` reads
    them as they stood at the end of the previous turn: the win is declared in the turn after
    the third consecutive interdicted turn, whether or not the fleets are still in place. An
    enemy without routes to its home world (it has lost it, or owns no other reachable world)
    cannot be interdicted (T8), so against it Trade War can only be won as last empire standing.
V8  4 Regime Change: the winner owns the home world (``home_of``) of every other empire.
    Losing one's home world does not eliminate an empire.
V9  3 Open Battle: "fleets" here means all the enemy's ships (a fleet scattered into lone ships
    has not been destroyed). As an empire with no ships is eliminated first (V3), Open Battle is
    won exactly when the winner is the last empire standing; the win is reported as Open Battle.
V10 2 Power Projection: no other empire holds a dockyard or star gate (structures it owns), an
    enriched planet (a planet it owns with an Enrichment in its hex; colonies do not count, as
    in V6) or a worm hole (a worm hole hex where it has ships and the winner has none), and the
    winner holds at least one of these four kinds itself (otherwise nothing was captured).
V11 1 Land Grab: every colony on the map (neutral or enemy) is owned by the winner. On a map
    without colonies Land Grab cannot be met.
V12 Last empire standing. When only one empire of two or more is left, it wins whatever the
    purpose (rolled or not). If the last empires are all eliminated in the same turn, the
    campaign ends with no winner.
V13 Several empires meeting the purpose in the same turn: the most BP of ships in play (hero
    crews +30) wins, then the most worlds owned, then the lowest seat. The others do not share
    the win.
V14 A win ends the campaign at once (``finished=True``, ``winner`` set); ``turn.py`` then skips
    trade and income for that turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from ..dice import Dice
from . import trade
from .economy import Resource, WorldKind
from .mapgen import Terrain
from .state import CampaignState, Event

RULE = "003 Purpose of the Campaign (Victory Conditions)"
PURPOSE_ROLL = "003 Purpose of the Campaign"  # the logged purpose of the d6
STEP = "victory"


@dataclass(frozen=True)
class Purpose:
    """One row of the "Purpose of the Campaign" table."""

    number: int
    key: str
    name: str
    text: str

    @property
    def label(self) -> str:
        return f"{self.number} {self.name}"


TOTAL_ANNIHILATION, TRADE_WAR, REGIME_CHANGE, OPEN_BATTLE, POWER_PROJECTION, LAND_GRAB = 6, 5, 4, 3, 2, 1

PURPOSES: Mapping[int, Purpose] = MappingProxyType({
    6: Purpose(6, "total_annihilation", "Total Annihilation", "Every enemy planet must be captured."),
    5: Purpose(5, "trade_war", "Trade War",
               "All trade routes leading directly to the enemy home world must be successfully "
               "interdicted for three consecutive campaign turns."),
    4: Purpose(4, "regime_change", "Regime Change", "The enemy home world must be captured."),
    3: Purpose(3, "open_battle", "Open Battle", "The enemy's fleets must be destroyed."),
    2: Purpose(2, "power_projection", "Power Projection",
               "Every enemy owned dockyard, wormhole, enriched planet and star gate must be captured."),
    1: Purpose(1, "land_grab", "Land Grab", "Every enemy and neutral colony must be captured."),
})

LAST_STANDING = "last_standing"
NO_SHIPS_TEXT = (
    "Regardless of the rolled purpose for a campaign a player loses if he finishes a campaign turn with no ships."
)


@dataclass(frozen=True)
class VictoryStatus:
    """What a seat's report says about the campaign's purpose and its progress towards it."""

    seat: int
    purpose: int | None
    name: str
    text: str
    progress: str
    met: bool = False

    @property
    def lines(self) -> tuple[str, ...]:
        """The report's lines: the purpose, then the progress."""
        if self.purpose is None:
            return (self.progress,)
        return (f"Purpose of the campaign: {self.purpose} {self.name}. {self.text}", self.progress)


# --- the roll ---------------------------------------------------------------------------------

def roll_purpose(dice: Dice) -> int:
    """The campaign's purpose: 1d6, rolled once when the campaign is created (V1)."""
    return dice.roll(1, 6, PURPOSE_ROLL).faces[0]


def purpose(number: int) -> Purpose:
    try:
        return PURPOSES[number]
    except (KeyError, TypeError):
        raise ValueError(f"the purpose of the campaign is a d6 roll (1 to 6), not {number!r}") from None


# --- what the position says -------------------------------------------------------------------

def has_ships(state: CampaignState, seat: int) -> bool:
    """Ships in play (V3): a ship on the stocks is not a ship yet ("partially built star
    ships", 003 Result of a Tactical Battle). Every empire starts turn 1 with the fleet it bought
    in the set-up round (003 Set Up; campaign/rules/eventhorizon/setup.py)."""
    return any(s.owner == seat for s in state.ships)


def fleet_bp(state: CampaignState, seat: int) -> int:
    return sum(state.ship_bp(s) for s in state.ships if s.owner == seat)


def _enemies(state: CampaignState, seat: int) -> tuple[int, ...]:
    return tuple(s for s in state.active_seats() if s != seat)


def _planets(state: CampaignState, seat: int) -> list:
    return [w for w in state.worlds_of(seat) if w.kind is WorldKind.PLANET]


def _home_world(state: CampaignState, seat: int):
    return state.home_world(seat)


def power_assets(state: CampaignState, seat: int, against: Iterable[int]) -> Counter:
    """What ``seat`` holds of the Power Projection kinds (V10): dockyards, star gates, enriched
    planets, and worm holes where it has ships and none of ``against`` has."""
    against = set(against)
    held: Counter = Counter({"dockyard": 0, "wormhole": 0, "enriched planet": 0, "star gate": 0})
    for s in state.structures:
        if s.owner == seat and s.resource is Resource.DOCKYARD:
            held["dockyard"] += 1
        elif s.owner == seat and s.resource is Resource.STAR_GATE:
            held["star gate"] += 1
    enriched = {s.coord for s in state.structures if s.resource is Resource.ENRICHMENT}
    held["enriched planet"] = sum(1 for w in _planets(state, seat) if w.coord in enriched)
    for coord, seats in state.ship_holders().items():
        if seat in seats and not seats & against and state.terrain_at(coord) is Terrain.WORMHOLE:
            held["wormhole"] += 1
    return held


def condition_met(state: CampaignState, seat: int) -> bool:
    """True if ``seat`` (not eliminated) meets the campaign's purpose against every other
    empire still in the game (V5 – V11). False while the purpose is unrolled."""
    if state.purpose is None or state.empire(seat).eliminated:
        return False
    number = purpose(state.purpose).number
    enemies = _enemies(state, seat)
    if not enemies:  # a one-seat (sandbox) campaign has nobody to beat
        return False
    if number == TOTAL_ANNIHILATION:
        return bool(_planets(state, seat)) and not any(_planets(state, e) for e in enemies)
    if number == TRADE_WAR:
        me = state.empire(seat)
        return all(trade.trade_war_won(me.trade_war_count(e)) for e in enemies)
    if number == REGIME_CHANGE:
        homes = [_home_world(state, e) for e in enemies]
        return all(h is not None and h.owner == seat for h in homes)
    if number == OPEN_BATTLE:
        return has_ships(state, seat) and not any(has_ships(state, e) for e in enemies)
    if number == POWER_PROJECTION:
        if not any(power_assets(state, seat, enemies).values()):
            return False
        return not any(any(power_assets(state, e, (seat,)).values()) for e in enemies)
    # LAND_GRAB
    colonies = [w for w in state.worlds if w.kind is WorldKind.COLONY]
    return bool(colonies) and all(w.owner == seat for w in colonies)


def _tie_key(state: CampaignState, seat: int) -> tuple[int, int, int]:
    worlds = len(state.worlds_of(seat))
    return (-fleet_bp(state, seat), -worlds, seat)


# --- elimination --------------------------------------------------------------------------------

def eliminate(state: CampaignState, seats: Iterable[int]) -> CampaignState:
    """Remove lost empires from the map (V4). ``seats`` are eliminated together."""
    lost = set(seats)
    if not lost:
        return state
    staying = {s for s in state.active_seats() if s not in lost}
    holders = state.ship_holders()
    # Worlds of the lost held out against an invader still in the game and still in the hex go
    # to that invader (as conflict.py's hold-out ending would: C6).
    handed: dict = {}
    worlds = []
    for w in state.worlds:
        if w.owner in lost:
            if w.held_out_by in staying and w.held_out_by in holders.get(w.coord, ()):
                handed[w.coord] = w.held_out_by
                w = replace(w, owner=w.held_out_by, held_out_by=None, held_out_until=None)
            else:
                w = replace(w, owner=None, held_out_by=None, held_out_until=None)
        elif w.held_out_by in lost:
            w = replace(w, held_out_by=None, held_out_until=None)
        worlds.append(w)
    structures = []
    for s in state.structures:
        if s.owner in lost:
            if s.coord in handed:
                s = replace(s, owner=handed[s.coord])
            elif s.resource is not Resource.STAR_GATE:
                continue
        structures.append(s)
    kept = {s.id: s for s in structures}
    builds = []
    for b in state.builds:
        if b.owner in lost:
            dock = kept.get(b.dockyard)
            if dock is None or dock.owner in lost:
                continue
            b = replace(b, owner=dock.owner)
        builds.append(b)
    removed = {s.id for s in state.structures} - set(kept)
    owner_of = {s.id: s.owner for s in state.ships}
    repairs = tuple(r for r in state.repairs if r[1] not in removed and owner_of.get(r[0]) not in lost)
    empires = []
    for e in state.empires:
        if e.seat in lost:
            e = replace(e, eliminated=True, trade_war=())
        else:
            e = replace(e, trade_war=tuple((v, n) for v, n in e.trade_war if v not in lost))
        empires.append(e)
    return replace(
        state, empires=tuple(empires), worlds=tuple(worlds), structures=tuple(structures),
        builds=tuple(builds), repairs=repairs,
        ships=tuple(s for s in state.ships if s.owner not in lost),
        fleets=tuple(f for f in state.fleets if f.owner not in lost),
    )


# --- the end-of-turn check ----------------------------------------------------------------------

def check(state: CampaignState, dice: Dice) -> tuple[CampaignState, tuple[Event, ...]]:
    """Eliminations, then the last empire standing, then the purpose (V2 – V14).

    Returns the new state (``eliminated``, ``winner`` and ``finished`` set as needed) and public
    events of step ``"victory"``: ``empire_eliminated``, ``campaign_won``, ``campaign_drawn``."""
    del dice  # no rolls (V2)
    if state.finished:
        return state, ()
    if state.purpose is not None:
        purpose(state.purpose)  # refuse a corrupt purpose before changing anything
    events: list[Event] = []
    before = state
    lost = [seat for seat in state.active_seats() if not has_ships(state, seat)]
    state = eliminate(state, lost)
    for seat in lost:
        empire = state.empire(seat)
        released = [w.coord for w in before.worlds if w.owner == seat]
        handed = {w.coord: w.owner for w in state.worlds if w.coord in released and w.owner is not None}
        text = f"{empire.name} finished the turn with no ships and has lost the campaign."
        neutral = [c for c in released if c not in handed]
        if neutral:
            text += " Now neutral: " + ", ".join(str(c) for c in neutral) + "."
        for c, s in sorted(handed.items()):
            text += f" {c}, held out by a garrison, passes to {state.empire(s).name}."
        events.append(Event(STEP, "empire_eliminated", (seat,), text,
                            {"seat": seat, "rule": RULE, "condition": "no_ships",
                             "worlds_released": [list(c) for c in released],
                             "worlds_handed": [[list(c), s] for c, s in sorted(handed.items())]},
                            public=True))

    active = state.active_seats()
    if not active:
        events.append(Event(STEP, "campaign_drawn", tuple(lost),
                            "Every remaining empire finished the turn with no ships: the campaign ends with no winner.",
                            {"rule": RULE, "condition": "no_ships"}, public=True))
        return replace(state, finished=True, winner=None), tuple(events)
    if len(active) == 1 and len(state.empires) >= 2:
        winner = active[0]
        if state.purpose == OPEN_BATTLE:
            row = PURPOSES[OPEN_BATTLE]
            key, label, how = row.key, row.label, row.text
        else:
            key, label, how = LAST_STANDING, "last empire standing", "Every other empire has been eliminated."
        return _win(state, events, winner, key, label, how, contenders=(winner,))
    if state.purpose is None:
        return state, tuple(events)

    contenders = tuple(seat for seat in active if condition_met(state, seat))
    if not contenders:
        return state, tuple(events)
    winner = min(contenders, key=lambda s: _tie_key(state, s))
    row = PURPOSES[state.purpose]
    return _win(state, events, winner, row.key, row.label, row.text, contenders)


def _win(state, events, winner, key, label, how, contenders):
    name = state.empire(winner).name
    text = f"{name} wins the campaign: {label}. {how}"
    if len(contenders) > 1:
        others = ", ".join(state.empire(s).name for s in contenders if s != winner)
        text += (f" {others} also met it this turn; {name} wins on the tie-break"
                 " (most BP of ships, then most worlds, then lowest seat).")
    events.append(Event(STEP, "campaign_won", (winner,), text,
                        {"winner": winner, "rule": RULE, "purpose": state.purpose, "condition": key,
                         "contenders": list(contenders),
                         "tie_break": [list(_tie_key(state, s)) for s in contenders] if len(contenders) > 1 else []},
                        public=True))
    return replace(state, winner=winner, finished=True), tuple(events)


# --- reports ------------------------------------------------------------------------------------

def status(state: CampaignState, seat: int) -> VictoryStatus:
    """The campaign's purpose and ``seat``'s progress towards it, in words."""
    empire = state.empire(seat)
    if state.purpose is None:
        return VictoryStatus(seat, None, "Not yet rolled", "", "The purpose of the campaign has not been rolled yet.")
    row = purpose(state.purpose)
    met = condition_met(state, seat)
    if state.finished:
        if state.winner is None:
            progress = "The campaign is over: no empire was left with ships, so nobody won."
        elif state.winner == seat:
            progress = "The campaign is over: you have won."
        else:
            progress = f"The campaign is over: {state.empire(state.winner).name} won."
    elif empire.eliminated:
        progress = "You have lost: your empire finished a campaign turn with no ships."
    else:
        progress = _progress(state, seat, row.number)
        if met:
            progress += " Condition met."
    return VictoryStatus(seat, row.number, row.name, row.text, progress, met)


def _by_enemy(state: CampaignState, counts: Mapping[int, int]) -> str:
    return ", ".join(f"{state.empire(s).name}: {n}" for s, n in sorted(counts.items()) if n)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _progress(state: CampaignState, seat: int, number: int) -> str:
    enemies = _enemies(state, seat)
    if not enemies:
        return "No enemy is left in the game."
    if number == TOTAL_ANNIHILATION:
        left = {e: len(_planets(state, e)) for e in enemies}
        total = sum(left.values())
        mine = len(_planets(state, seat))
        if not total:
            return f"No enemy planet is left; you own {_plural(mine, 'planet')}."
        return (f"{_plural(total, 'enemy planet')} still to capture ({_by_enemy(state, left)}); "
                f"you own {_plural(mine, 'planet')}.")
    if number == TRADE_WAR:
        me = state.empire(seat)
        parts = ", ".join(f"{state.empire(e).name}: {min(me.trade_war_count(e), trade.TRADE_WAR_TURNS)} of "
                          f"{trade.TRADE_WAR_TURNS}" for e in enemies)
        return ("Consecutive turns with every route to the enemy home world interdicted by your fleets "
                f"(as of the end of last turn): {parts}.")
    if number == REGIME_CHANGE:
        held = [e for e in enemies if (h := _home_world(state, e)) is not None and h.owner == seat]
        todo = [e for e in enemies if e not in held]
        text = f"Enemy home worlds held: {len(held)} of {len(enemies)}."
        if todo:
            text += " Still to capture: " + ", ".join(
                f"{state.empire(e).name}'s at {_home_world(state, e).coord}" if _home_world(state, e)
                else f"{state.empire(e).name}'s (none on the map)" for e in todo) + "."
        return text
    if number == OPEN_BATTLE:
        ships = Counter(s.owner for s in state.ships if s.owner in enemies)
        return (f"{_plural(sum(ships.values()), 'enemy ship')} still to destroy ({_by_enemy(state, ships)}).")
    if number == POWER_PROJECTION:
        left: Counter = Counter()
        for e in enemies:
            left.update(power_assets(state, e, (seat,)))
        mine = power_assets(state, seat, enemies)
        kinds = ("dockyard", "wormhole", "enriched planet", "star gate")
        remaining = ", ".join(_plural(left[k], k) for k in kinds)
        return (f"Enemy-held: {remaining} ({sum(left.values())} still to capture). "
                f"You hold {sum(mine.values())} of these.")
    colonies = [w for w in state.worlds if w.kind is WorldKind.COLONY]
    if not colonies:
        return "There are no colonies on this map: Land Grab cannot be won (only as last empire standing)."
    mine = sum(1 for w in colonies if w.owner == seat)
    neutral = sum(1 for w in colonies if w.owner is None)
    return (f"Colonies owned: {mine} of {len(colonies)} ({neutral} neutral, "
            f"{len(colonies) - mine - neutral} enemy still to capture).")
