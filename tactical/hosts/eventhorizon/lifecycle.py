"""The battle lifecycle: how the campaign turn hands a battle off and takes its result back
(issue 5, "Battles"; docs/battles.md; rulings C15–C20 in docs/rulings.md).

1. ``process_turn`` (campaign/actions/turns.py, through the handler of campaign/battles.py that
   tactical/battles/hooks.py registers) asks ``game_chooser`` which battles are to be fought
   as games (embedded tactical or tabletop) rather than auto-resolved. If any, the turn stops
   before its battles step (``Turn.status`` "battles"), the state so far is stored, and
   ``open_battles`` creates a ``Battle`` row for each game with its setup and deadline.
2. A battle is settled by ``record_result`` — from the embedded engine (tactical/play/actions.py), a
   confirmed tabletop entry, a moderator's settlement — or is left to auto-resolve
   (``settle_due_battles`` at the battle deadline, or a moderator).
3. When the turn's last battle is settled, ``finish_turn_if_ready`` applies the results in
   order (auto-resolving the rest) and runs the rest of the turn: the turn is done and the next
   one opens.

Everything here runs inside the caller's transaction, with the campaign row locked.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from campaign import locks
from campaign.eventhorizon import adapters
from campaign.models import Campaign, Empire, Turn
from campaign.notifications import absolute
from campaign.rules.eventhorizon import conflict
from campaign.rules.eventhorizon.economy import Damage, Resource
from campaign.rules.eventhorizon.mapgen import Terrain
from campaign.rules.eventhorizon.state import CampaignState
from tactical.battles.forms import seat_name
from tactical.models import Battle, BattleLogEntry

GAME_MODES = (Battle.Mode.TACTICAL, Battle.Mode.TABLETOP)


class BattleError(ValueError):
    """A battle action that cannot be done; the message names the problem."""


# --- choosing how each battle is settled ---------------------------------------------------------

def requested_mode(campaign: Campaign, seats: tuple[int, int], preferences: dict[int, str]) -> str:
    """The mode a battle between ``seats`` is settled in (ruling C17): the campaign's mode,
    unless the campaign lets players ask (``battle_requests``) and they asked for a game.
    "either": a side asking for an embedded battle gets one; a tabletop battle needs both sides
    to ask for it (nobody can be made to come to a table). "both": both sides must ask for the
    same game. Asking for auto-resolve never overrides a campaign whose mode is a game."""
    mode = campaign.battle_mode
    asks = [preferences.get(s, "") for s in seats]
    if campaign.battle_requests == "either":
        if Battle.Mode.TACTICAL in asks:
            mode = Battle.Mode.TACTICAL
        elif all(a == Battle.Mode.TABLETOP for a in asks):
            mode = Battle.Mode.TABLETOP
    elif campaign.battle_requests == "both" and asks[0] == asks[1] and asks[0] in GAME_MODES:
        mode = asks[0]
    return mode


def game_chooser(campaign: Campaign):
    """``fought_as_game(state, battle)`` for ``resolve_turn``: the mode a battle would be
    fought in is a game, both sides have ships there, a human plays at least one side, no side
    is computer-played in a tabletop battle, and no other battle is fought in the same hex this
    turn (ruling C18)."""
    empires = {e.seat: e for e in Empire.objects.filter(campaign=campaign)}

    def fought_as_game(state: CampaignState, battle: conflict.Battle) -> bool:
        return mode_for(campaign, empires, state, battle) != Battle.Mode.AUTO

    return fought_as_game


def _human(empire: Empire | None) -> bool:
    return empire is not None and empire.user_id is not None and not empire.is_bot and not empire.auto_bot


def mode_for(campaign: Campaign, empires: dict[int, Empire], state: CampaignState, battle: conflict.Battle,
             battles: tuple[conflict.Battle, ...] = ()) -> str:
    seats = (battle.attacker, battle.defender)
    prefs = {s: (empires[s].battle_preference if s in empires else "") for s in seats}
    mode = requested_mode(campaign, seats, prefs)
    if mode == Battle.Mode.AUTO:
        return mode
    hex = tuple(battle.hex)
    if not all(conflict.ships_in_hex(state, hex, s) for s in seats):
        return Battle.Mode.AUTO  # C18: planetary defences alone are auto-resolved
    humans = [s for s in seats if _human(empires.get(s))]
    if not humans:
        return Battle.Mode.AUTO
    if mode == Battle.Mode.TABLETOP and len(humans) < 2:
        return Battle.Mode.AUTO  # C18: a computer player cannot come to a table
    if battles and sum(1 for b in battles if tuple(b.hex) == hex) > 1:
        return Battle.Mode.AUTO
    return mode


# --- opening battles -----------------------------------------------------------------------------

def battle_json(battle: conflict.Battle) -> dict:
    return {"hex": list(battle.hex), "attacker": battle.attacker, "defender": battle.defender, "aewa": battle.aewa}


def battle_from_json(raw: dict) -> conflict.Battle:
    return conflict.Battle(hex=tuple(raw["hex"]), attacker=raw["attacker"], defender=raw["defender"],
                           aewa=raw.get("aewa", False))


def setup_for(campaign: Campaign, empires: dict[int, Empire], state: CampaignState, battle: conflict.Battle) -> dict:
    """What is on the table (docs/battles.md, "Setup"): each side's ships with their design and
    the damage they carry, the hex's terrain and world, the defender's defences and AEWA."""
    hex = tuple(battle.hex)
    world = state.world_at(hex)
    defences = {s.owner for s in state.structures_at(hex) if s.resource is Resource.PLANETARY_DEFENCES}
    sides = {}
    for seat in (battle.attacker, battle.defender):
        empire = empires.get(seat)
        ships = []
        for ship in sorted(conflict.ships_in_hex(state, hex, seat), key=lambda s: s.id):
            design = state.designs[ship.design]
            ships.append({"id": ship.id, "name": ship.name, "design_id": ship.design, "design": design.to_dict(),
                          "damage": ship.damage.to_json(), "hero_crew": ship.hero_crew})
        sides[str(seat)] = {"name": empire.name if empire else f"Empire {seat}",
                            "colour": empire.colour if empire else "#888888", "ships": ships}
    terrain = state.terrain_at(hex)
    return {
        "hex": list(hex), "terrain": terrain.value if isinstance(terrain, Terrain) else str(terrain),
        "world": None if world is None else {"kind": world.kind.value, "owner": world.owner,
                                             "defences": world.owner in defences if world.owner is not None else False},
        "attacker": battle.attacker, "defender": battle.defender, "aewa": battle.aewa, "sides": sides,
    }


def open_battles(campaign: Campaign, turn: Turn, state: CampaignState, battles: tuple[conflict.Battle, ...],
                 now=None) -> list[Battle]:
    """Create the Battle rows of a turn that stopped before its battles (``battles`` in order;
    only those to be fought as games get a row) and start the embedded ones."""
    now = now or timezone.now()
    empires = {e.seat: e for e in Empire.objects.filter(campaign=campaign)}
    deadline = now + timedelta(hours=campaign.battle_hours) if campaign.battle_hours else None
    rows = []
    for index, b in enumerate(battles):
        if not conflict.battle_is_fought(state, b):
            continue
        mode = mode_for(campaign, empires, state, b, battles)
        if mode == Battle.Mode.AUTO:
            continue
        bots = [s for s in (b.attacker, b.defender) if not _human(empires.get(s))]
        row = Battle.objects.create(
            campaign=campaign, turn=turn.number, index=index, x=b.hex[0], y=b.hex[1], attacker=b.attacker,
            defender=b.defender, aewa=b.aewa, mode=mode, deadline=deadline,
            setup=setup_for(campaign, empires, state, b), doctrine_sides=bots,
        )
        if mode == Battle.Mode.TACTICAL:
            convert(row, campaign)
        how = _how_fought(row)
        log(row, "created", f"Battle at {tuple(b.hex)}: {seat_name(row, b.attacker)} (attacker) invades the hex of "
                            f"{seat_name(row, b.defender)} (defender); to be {how}"
                            + (f", settled by {deadline:%Y-%m-%d %H:%M} UTC at the latest" if deadline else ""))
        rows.append(row)
        notify_sides(row, f"A battle at {tuple(b.hex)} is to be {how}: "
                          f"{absolute(reverse('battle-detail', args=[row.pk]))}")
    for row in rows:
        if row.mode == Battle.Mode.TACTICAL:
            from tactical.play import actions as play

            play.begin(row)  # deployment by hand first, or straight to the first card
    return rows


def _how_fought(row: Battle) -> str:
    """How a new battle is to be fought, as its log and the sides' email say it: online on which
    rule book (issue 31: a newcomer's group must know what to read), or its mode."""
    if row.mode != Battle.Mode.TACTICAL:
        return Battle.Mode(row.mode).label.lower()
    from tactical.rules import registry

    title = registry.book_title(row.ruleset)
    return f"played online on {title}" + (" (the fleets converted)" if row.converted else "")


def battle_book(campaign: Campaign) -> str:
    """The rule book the campaign's battles are fought on online (issue 31: the campaign option
    ``battle_book``; "" or unset: Event Horizon's own)."""
    return (campaign.options or {}).get("battle_book") or "eventhorizon"


def convert(row: Battle, campaign: Campaign) -> None:
    """A battle to be fought online on another rule book than Event Horizon's (issue 31): its
    setup becomes the book's, converted by the book's registered converter, with the Event
    Horizon setup kept under ``layer_setup`` (its result is converted back when it ends,
    ``tactical/play/actions.py``)."""
    from tactical.rules import registry

    book = battle_book(campaign)
    converter = registry.find_converter(campaign.layer, book)
    if converter is None or row.converted:
        return
    row.setup = {**converter.to_book(row.setup), "layer_setup": row.setup}
    row.ruleset = book
    row.save(update_fields=["setup", "ruleset"])
    log(row, "converted", f"Fought on {registry.book_title(book)}: the fleets are "
                          f"converted by rulings {converter.rulings}.")


def log(battle: Battle, kind: str, text: str, *, user=None, seat: int | None = None, data: dict | None = None):
    return BattleLogEntry.objects.create(
        battle=battle,
        kind=kind,
        text=text,
        user=user if user and user.is_authenticated else None,
        seat=seat,
        data=data or {},
    )


def notify_sides(battle: Battle, text: str, seats=None) -> None:
    from campaign import notifications

    campaign_id, turn = battle.campaign_id, battle.turn
    for seat in seats or battle.seats:
        transaction.on_commit(
            lambda s=seat: notifications.notify_battle_decision(campaign_id, turn, s, text), robust=True
        )


# --- results -------------------------------------------------------------------------------------

def result_from_json(raw, how: str = "tactical") -> conflict.BattleResult:
    """A result as entered or reported (docs/battles.md, "Result") → the engine's value; a
    ResultError names anything malformed."""
    if not isinstance(raw, dict):
        raise conflict.ResultError("a battle result must be an object with 'holder' and 'ships'")
    holder = raw.get("holder")
    if holder is not None and (isinstance(holder, bool) or not isinstance(holder, int)):
        raise conflict.ResultError(f"'holder' must be a seat number or null, not {holder!r}")
    ships = raw.get("ships")
    if not isinstance(ships, list):
        raise conflict.ResultError("'ships' must be a list with one entry per ship in the battle")
    out = []
    for entry in ships:
        if not isinstance(entry, dict) or not isinstance(entry.get("ship"), int) or isinstance(entry.get("ship"), bool):
            raise conflict.ResultError(f"each ship entry needs a whole-number 'ship', not {entry!r}")
        damage = entry.get("damage") or {}
        if not isinstance(damage, dict):
            raise conflict.ResultError(f"ship {entry['ship']}: 'damage' must be an object")
        unknown = set(damage) - {"hull", "engine", "weapons", "force_field_generators", "stealth", "boarding_parties"}
        if unknown:
            raise conflict.ResultError(f"ship {entry['ship']}: unknown damage field(s) {', '.join(sorted(unknown))}")
        weapons = damage.get("weapons", [])
        if not isinstance(weapons, list) or not all(isinstance(w, str) for w in weapons):
            raise conflict.ResultError(f"ship {entry['ship']}: 'weapons' lost must be a list of weapon keys")
        captor = entry.get("captured_by")
        if captor is not None and (isinstance(captor, bool) or not isinstance(captor, int)):
            raise conflict.ResultError(f"ship {entry['ship']}: 'captured_by' must be a seat number")
        try:
            dmg = Damage(**{**damage, "weapons": tuple(weapons)})
        except TypeError as exc:
            raise conflict.ResultError(f"ship {entry['ship']}: {exc}") from None
        out.append(conflict.ShipResult(ship=entry["ship"], fate=str(entry.get("fate", "")), damage=dmg,
                                       captured_by=captor))
    return conflict.BattleResult(holder=holder, ships=tuple(out), how=how)


def result_to_json(result: conflict.BattleResult) -> dict:
    return {"holder": result.holder, "ships": [
        {"ship": r.ship, "fate": r.fate, "damage": r.damage.to_json() if r.fate != conflict.DESTROYED else None,
         "captured_by": r.captured_by} for r in result.ships]}


def check_result(battle: Battle, raw, how: str) -> conflict.BattleResult:
    """Parse and check a result against the campaign as it stands (the turn's state before its
    battles); raises ResultError naming the problem."""
    state = adapters.load_state(battle.campaign)
    result = result_from_json(raw, how)
    conflict.check_battle_result(state, battle_from_json(battle.layer_setup), result)
    return result


def record_result(*, battle: Battle, result, how: str, user=None, note: str = "") -> Battle:
    """Settle ``battle`` with ``result`` (docs/battles.md "Result" JSON, or None to leave it to
    auto-resolve when the turn completes) and complete the turn if it was the last one. The
    caller holds the campaign row lock inside its transaction."""
    if battle.resolved:
        raise BattleError(f"battle {battle.pk} is already resolved")
    engine_how = settled_key(battle, how, result is not None)
    if result is not None:
        checked = check_result(battle, result, engine_how)
        result = result_to_json(checked)
        result["how"] = engine_how
    battle.result = result
    battle.status = Battle.Status.RESOLVED
    battle.resolved_how = how
    battle.resolved_at = timezone.now()
    battle.activation_deadline = None
    battle.save(update_fields=["result", "status", "resolved_how", "resolved_at", "activation_deadline"])
    text = f"Resolved: {Battle.How(how).label.lower()}"
    if result is not None:
        holder = result["holder"]
        text += "; " + (
            f"{seat_name(battle, holder)} holds the field"
            if holder is not None
            else "neither side holds the field"
        )
    if note:
        text += f" ({note})"
    log(battle, "resolved", text, user=user, data={"how": how, "result": result})
    finish_turn_if_ready(battle.campaign)
    return battle


def settled_key(battle: Battle, how: str, with_result: bool) -> str:
    """How a battle was settled, as the turn report names it (a key of ``conflict.SETTLED``):
    fought online, tabletop confirmed or not disputed by the deadline, settled by the moderator
    (on the tabletop or online), or auto-resolved (by the moderator, at the deadline)."""
    if not with_result:
        return {Battle.How.MODERATOR: "auto_moderator", Battle.How.DEADLINE: "auto_deadline"}.get(how, "auto")
    if how == Battle.How.MODERATOR:
        return "tabletop_moderator" if battle.mode == Battle.Mode.TABLETOP else "tactical_moderator"
    if how in (Battle.How.TABLETOP, Battle.How.UNCONFIRMED):
        return str(how)
    return "tactical"


def finish_turn_if_ready(campaign: Campaign):
    """If the campaign's turn waits for battles and all are resolved, finish it (the rest of the
    turn pipeline). Returns the finished Turn or None."""
    from campaign.eventhorizon import actions as eh_actions

    # Re-read under the lock: the caller's copy may predate dice committed by this transaction.
    # Locking order (campaign/locks.py): the campaign row, then the turn row.
    campaign = locks.campaign(campaign.pk)
    turn = locks.turn(campaign.pk, campaign.turn, status=Turn.Status.BATTLES)
    if turn is None:
        return None
    if Battle.objects.filter(campaign=campaign, turn=turn.number).exclude(status=Battle.Status.RESOLVED).exists():
        return None
    return eh_actions.finish_turn(campaign, turn)


def results_for(campaign: Campaign, turn: Turn) -> dict[int, conflict.BattleResult]:
    """The settled battles' results by index; one fought online names its rule book (ruling BR5)."""
    out = {}
    for b in Battle.objects.filter(campaign=campaign, turn=turn.number, status=Battle.Status.RESOLVED):
        if b.result is not None:
            how = b.result.get("how", "tactical")
            out[b.index] = replace(result_from_json(b.result, how), book=fought_on(b))
    return out


def fought_on(battle: Battle) -> str:
    """The title of the rule book ``battle`` was fought on online ("My Trek V"), "" for a battle
    not fought online (ruling BR5: the turn report, the battle pages and the API name it)."""
    from tactical.rules import registry

    if battle.mode != Battle.Mode.TACTICAL:
        return ""
    try:
        return registry.book_title(battle.ruleset)
    except ValueError:
        return ""


def auto_settled_for(campaign: Campaign, turn: Turn) -> dict[int, str]:
    """Battles handed off as games and then left to auto-resolve: how (``settled_key``), by index."""
    return {b.index: settled_key(b, b.resolved_how, False)
            for b in Battle.objects.filter(campaign=campaign, turn=turn.number, status=Battle.Status.RESOLVED,
                                           result__isnull=True)}
