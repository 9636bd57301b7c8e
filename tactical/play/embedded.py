"""Embedded (online) tactical battles: from a ``Battle`` row to its engine's state and back,
for any registered rule book.

The battle's ``ruleset`` names its rule book; ``rules_for`` finds that rule book's online-play
hooks (``tactical.rules.play.PlayRules``, registered with ``tactical/rules/registry.py``) — this
package never imports an engine. A battle's ``setup`` (written by tactical/hosts/eventhorizon/lifecycle.py,
or by whoever created the battle) is what the hooks' ``initial_state`` sets up with the battle's
dice. Every automatic step (Event Horizon's card drawn) and every action taken is a
``BattleStep`` row; every die rolled is in the campaign's dice log under the phase
``battle <id>``. ``current_state`` rebuilds the battle by replaying the steps with those logged
dice (``tactical.rules.replay.ReplayDice``, which refuses any mismatch), and ``states`` gives the
state after every step for the replay page. Rulings TP1… in docs/rulings.md.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tactical.play import kinds
from tactical.rules import registry
from tactical.rules.play import AUTOMATIC, PlayRules
from tactical.rules.replay import LoggedDie, ReplayDice

_CACHE: OrderedDict = OrderedDict()
CACHE_SIZE = 32


def rules_for(battle) -> PlayRules:
    """The online-play hooks of the battle's rule book (or of its registered kind:
    tactical/play/kinds.py)."""
    kind = kinds.kind_for(battle)
    if kind is not None:
        return kind.rules
    return registry.find_play(battle.ruleset)


def start_state(battle, dice, rules: PlayRules) -> Any:
    """The battle before its first step: its kind's set-up, else its rule book's from ``setup``."""
    kind = kinds.kind_for(battle)
    if kind is not None:
        return kind.initial_state(battle, dice)
    return initial_state(battle.setup, dice, rules)


def initial_state(setup: Mapping[str, Any], dice, rules: PlayRules) -> Any:
    """The battle before its first step, set up from ``setup`` with ``dice``."""
    return rules.initial_state(setup, dice)


def step_to_engine(rules: PlayRules, state, action_json: Mapping, dice):
    """Play one stored step (an automatic step or an action) again."""
    return rules.replay_step(state, action_json, dice)


def logged_dice(battle) -> list[LoggedDie]:
    from campaign.models import DiceRoll

    rows = (DiceRoll.objects.filter(campaign_id=battle.campaign_id, phase=battle.dice_phase)
            .order_by("seq").values_list("expression", "purpose", "faces"))
    return [LoggedDie.from_log(e, p, f) for e, p, f in rows]


def _steps(battle) -> list[tuple[int, dict, object]]:
    return list(battle.steps.order_by("seq").values_list("id", "action", "created_at"))


def _key(battle, count: int, last) -> tuple:
    """(battle, its creation time, number of steps, the last step's id and time): a step rolled
    back with its transaction can never match a later one (its time differs)."""
    return (battle.pk, battle.created_at, count, (last[0], last[2]) if last else None)


def current_state(battle) -> Any:
    """The battle now: its setup replayed through every stored step with its logged dice.
    Cached per process by (battle, number of steps) — states are frozen, so sharing is safe."""
    count = battle.steps.count()
    last = battle.steps.order_by("-seq").values_list("id", "action", "created_at").first()
    key = _key(battle, count, last)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    rules = rules_for(battle)
    steps = _steps(battle)
    key = _key(battle, len(steps), steps[-1] if steps else None)
    dice = ReplayDice(logged_dice(battle))
    state = start_state(battle, dice, rules)
    for _, action, _ in steps:
        state = step_to_engine(rules, state, action, dice).state
    if battle.status == "playing":
        dice.finish()
    remember(key, state)
    return state


def remember(key: tuple, state) -> None:
    _CACHE[key] = state
    _CACHE.move_to_end(key)
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)


def cache_key_after(battle, last_step, count: int) -> tuple:
    """The cache key of the state after ``count`` steps, the last of them ``last_step``."""
    return (battle.pk, battle.created_at, count, (last_step.pk, last_step.created_at))


@dataclass(frozen=True)
class Frame:
    """One frame of the replay: the state after ``step`` (None: the set-up), the events that
    step logged and the dice it rolled."""

    index: int
    step: Any
    action: Mapping | None
    state: Any
    events: tuple
    dice: tuple[LoggedDie, ...]


def states(battle, upto: int | None = None) -> list[Frame]:
    """The set-up and the state after each step (up to step ``upto``), with each step's events
    and dice, for the replay page."""
    rules = rules_for(battle)
    rows = list(battle.steps.order_by("seq"))
    if upto is not None:
        rows = rows[:upto]
    dice = ReplayDice(logged_dice(battle))
    state = start_state(battle, dice, rules)
    frames = [Frame(0, None, None, state, tuple(rules.events(state)), dice.served(0))]
    for i, row in enumerate(rows, 1):
        start = dice.position
        res = step_to_engine(rules, state, row.action, dice)
        state = res.state
        frames.append(Frame(i, row, row.action, state, tuple(res.events), dice.served(start)))
    return frames


HIDDEN_DICE_TIMEOUT = 24 * 3600  # seconds: a set outdated by a new step is not looked up again; Redis lets it go


def hidden_dice(battle, side: int) -> list[int]:
    """The dice-log rows (``seq``) of ``battle`` whose purposes ``side`` may not read while the
    battle is fought (ruling DL5): the dice of the other side's steps hidden from it — the
    replay's "hidden action" (BZP1, CAM49) — and of any step with a line it may not read (their
    purposes name the cloaked or lurking ship).

    Finding them replays the whole battle (``states``), so each side's set is kept in Django's
    cache (Redis in production) under ``hidden_dice_key``: the battle as it stands — its number
    of steps, its last step, its last logged die. A new step, a step rolled back with its
    transaction, a roll-back that cuts the battle's dice (CAM46, an Event Horizon turn's) or
    deletes it: each is another key, so a stale set is never served. Two queries on a hit."""
    from django.core.cache import cache

    stand = battle_stand(battle)
    if stand is None:
        return []  # no die rolled yet: nothing to hide
    hit = cache.get(hidden_dice_key(stand, side))
    if hit is not None:
        return list(hit)
    # One replay serves both sides: each side's set is kept.
    by_side = replay_hidden_dice(battle, sides=sorted({side, *(s for s in battle.seats if s is not None)}))
    cache.set_many({hidden_dice_key(stand, s): rows for s, rows in by_side.items()}, HIDDEN_DICE_TIMEOUT)
    return list(by_side[side])


def battle_stand(battle) -> str | None:
    """The battle as it stands now, for cache keys (None: no die rolled in it yet): ``_key``'s
    battle, creation time, number of steps and last step (a step rolled back with its
    transaction never matches a later one: its time differs), and the seq and hash of its last
    logged die (the hash chain pins every die before it). Two queries."""
    from django.db.models import Count, Max

    from campaign.models import DiceRoll

    last_die = (DiceRoll.objects.filter(campaign_id=battle.campaign_id, phase=battle.dice_phase)
                .order_by("-seq").values_list("seq", "hash").first())
    if last_die is None:
        return None
    steps = battle.steps.aggregate(n=Count("id"), last=Max("id"), at=Max("created_at"))
    key = _key(battle, steps["n"], (steps["last"], None, steps["at"]) if steps["n"] else None)
    return repr((*key, *last_die))


def hidden_dice_key(stand: str, side: int) -> str:
    """Django's cache key of ``side``'s hidden dice in a battle standing as ``stand``."""
    return "dl5:hidden-dice:" + hashlib.sha256(f"{stand} side {side}".encode()).hexdigest()


def replay_hidden_dice(battle, sides) -> dict[int, list[int]]:
    """``hidden_dice`` for each of ``sides``, from one replay of the whole battle (no cache)."""
    from campaign.models import DiceRoll

    seqs = list(DiceRoll.objects.filter(campaign_id=battle.campaign_id, phase=battle.dice_phase)
                .order_by("seq").values_list("seq", flat=True))
    if not seqs:
        return {side: [] for side in sides}
    rules = rules_for(battle)
    hidden: dict[int, list[int]] = {side: [] for side in sides}
    at = 0
    for frame in states(battle):
        count = len(frame.dice)
        if frame.step is not None:
            for side in sides:
                if (len(rules.visible_events(frame.events, side)) < len(frame.events)
                        or (frame.step.side not in (None, side) and rules.hides_step(frame.events, side))):
                    hidden[side].extend(seqs[at:at + count])
        at += count
    # None are left over; if some were, they are nobody's to read yet.
    return {side: rows + seqs[at:] for side, rows in hidden.items()}


def visible_events(rules: PlayRules, events, side: int | None):
    """The events one side may read (``side`` None: everything, for the moderator or after the
    battle)."""
    return rules.visible_events(events, side)


__all__ = ["AUTOMATIC", "Frame", "battle_stand", "cache_key_after", "current_state", "hidden_dice", "hidden_dice_key",
           "initial_state", "logged_dice", "remember", "replay_hidden_dice", "rules_for", "start_state", "states",
           "step_to_engine", "visible_events"]
