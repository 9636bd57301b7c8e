"""The rule-book contract (issue 27 item 4; issue 24 item 2): every registered ``RuleBook``
(``tactical.rules.registry.books()``) keeps it, and a new book gets all of it by registering.

Clauses, each a function that raises ``ContractError`` naming what broke (so a book's own test
can run them, ``tests/tactical/toybook/``), each shown failing on a planted fault below:

1. every legal action survives the codec's JSON round-trip and passes ``check``;
2. the doctrine's action is legal;
3. a refused action rolls nothing and changes nothing;
4. replaying the logged dice gives the same state;
5. seeded battles end;
6. ``check_owner`` refuses another seat's action;
7. hidden units: no answer to a seat (its legal actions, the state and page it is shown, the
   events it reads, the refusal of anything it tries) differs with and without a unit hidden
   from it (the book plants one, ``plant_hidden``; 003 Stealth Fields, ruling TC29; 000 10.2,
   ruling BZP2).
"""

from __future__ import annotations

import json
import random

import pytest

from campaign.rules.dice import DiceError, SeededDice, derive_seed
from tactical.rules import registry
from tactical.rules.kit import play_out
from tactical.rules.play import Viewer
from tactical.rules.replay import LoggedDie, ReplayDice

BOOKS = registry.books()
SEEDS = (1, 2)
SAMPLES = 10  # states looked at closely per battle


class ContractError(AssertionError):
    pass


class RecordingDice:
    """Seeded dice that log every roll (as the campaign's dice log does)."""

    def __init__(self, name: str):
        self._dice = SeededDice(derive_seed(name))
        self.log: list[LoggedDie] = []

    def roll(self, count, sides, purpose):
        r = self._dice.roll(count, sides, purpose)
        self.log.append(LoggedDie(count, sides, purpose, tuple(r.faces)))
        return r


class CountingDice:
    def __init__(self):
        self.rolls = 0
        self._dice = SeededDice(derive_seed("contract refusals"))

    def roll(self, count, sides, purpose):
        self.rolls += 1
        return self._dice.roll(count, sides, purpose)


class Trace:
    """One seeded doctrine battle: its set-up, steps (JSON), dice log, sampled states, end."""

    def __init__(self, book, seed: int, max_steps: int = 4000):
        self.setup = book.sample_setup(random.Random(f"contract/{book.key}/{seed}"))
        dice = RecordingDice(f"contract/{book.key}/{seed}")
        state = book.new_battle(self.setup, dice)
        self.start_rolls = len(dice.log)
        self.steps: list[dict | None] = []  # None: the rules' automatic step
        acting: list = []
        while not book.is_over(state):
            if len(self.steps) >= max_steps:
                raise ContractError(f"{book.key}: seeded battle {seed} did not end in {max_steps} steps")
            if book.acting_side(state) is None:
                state = book.automatic_step(state, dice).state
                self.steps.append(None)
                continue
            acting.append(state)
            action = book.doctrine_action(state)
            self.steps.append(book.to_json(action))
            state = book.apply(state, action, dice).state
        self.end = state
        self.dice = dice.log
        rng = random.Random(seed)
        self.states = sorted(rng.sample(range(len(acting)), min(SAMPLES, len(acting))))
        self.states = [acting[i] for i in self.states]


_TRACES: dict = {}


def trace(book, seed: int) -> Trace:
    key = (id(book), seed)
    if key not in _TRACES:
        _TRACES[key] = Trace(book, seed)
    return _TRACES[key]


def _roundtrip(book, action):
    data = json.loads(json.dumps(book.to_json(action)))
    try:
        return book.from_json(data)
    except book.illegal as exc:
        raise ContractError(f"{book.key}: {action!r} as JSON ({data}) cannot be read back: {exc}") from exc


# --- the clauses ------------------------------------------------------------------------------

def clause_codec(book, states) -> None:
    for state in states:
        for action in book.legal_actions(state):
            back = _roundtrip(book, action)
            if back != action:
                raise ContractError(f"{book.key}: {action!r} comes back from JSON as {back!r}")
            try:
                book.check(state, back)
            except book.illegal as exc:
                raise ContractError(f"{book.key}: the legal action {action!r} is refused: {exc}") from exc


def clause_doctrine(book, states) -> None:
    for state in states:
        action = book.doctrine_action(state)
        try:
            book.check(state, action)
        except book.illegal as exc:
            raise ContractError(f"{book.key}: the doctrine's {action!r} is refused: {exc}") from exc


def _answer(book, state, data, seat=None) -> str:
    try:
        action = book.from_json(data)
        if seat is not None:
            book.check_owner(state, action, seat)
        book.check(state, action)
    except book.illegal as exc:
        return f"refused: {exc}"
    return "accepted"


def clause_refusals(book, states) -> None:
    """Actions legal somewhere else in the battle, tried where they are refused."""
    tried = 0
    pool = [book.to_json(a) for s in states for a in book.legal_actions(s)[:20]]
    for state in states:
        for data in pool:
            action = book.from_json(data)
            try:
                book.check(state, action)
                continue
            except book.illegal:
                pass
            before = repr(book.snapshot(state))  # every field, deeply (the values are frozen dataclasses)
            dice = CountingDice()
            try:
                book.apply(state, action, dice)
            except book.illegal:
                pass
            else:
                raise ContractError(f"{book.key}: check refuses {data} but apply takes it")
            if dice.rolls:
                raise ContractError(f"{book.key}: refusing {data} rolled {dice.rolls} die/dice")
            if repr(book.snapshot(state)) != before:
                raise ContractError(f"{book.key}: refusing {data} changed the state")
            tried += 1
    if not tried:
        raise ContractError(f"{book.key}: no refused action was tried (the clause proved nothing)")


def clause_replay(book, t: Trace) -> None:
    dice = ReplayDice(t.dice)
    try:
        state = book.new_battle(t.setup, dice)
        for step in t.steps:
            state = (book.automatic_step(state, dice) if step is None
                     else book.apply(state, book.from_json(json.loads(json.dumps(step))), dice)).state
        dice.finish()
    except (DiceError, book.illegal) as exc:
        raise ContractError(f"{book.key}: the replay does not follow the logged dice: {exc}") from exc
    if book.snapshot(state) != book.snapshot(t.end):
        raise ContractError(f"{book.key}: replaying the logged dice gives another state")


def clause_ends(book, seeds) -> None:
    for seed in seeds:
        dice = SeededDice(derive_seed(f"contract end/{book.key}/{seed}"))
        try:
            end = book.simulate(book.new_battle(book.sample_setup(random.Random(seed)), dice), dice)
        except (RuntimeError, book.illegal) as exc:
            raise ContractError(f"{book.key}: seeded battle {seed} does not end: {exc}") from exc
        if not book.is_over(end):
            raise ContractError(f"{book.key}: seeded battle {seed} stopped before its end")
        result = book.outcome(end)
        if not {"winner", "holder", "over", "ships"} <= set(result) or result["over"] is not True:
            raise ContractError(f"{book.key}: the result JSON is not the kit's: {sorted(result)}")


def _seats(book, state) -> list[int]:
    setup_sides = getattr(state, "sides", None) or getattr(getattr(state, "battle", None), "sides", None) or (1, 2)
    return list(setup_sides)


def clause_owner(book, states) -> None:
    checked = 0
    for state in states:
        side = book.acting_side(state)
        for action in book.legal_actions(state):
            for seat in _seats(book, state):
                if seat == side:
                    continue
                try:
                    book.check_owner(state, action, seat)
                except book.illegal:
                    checked += 1
                    continue
                raise ContractError(f"{book.key}: seat {seat} may take side {side}'s {action!r}")
    if not checked:
        raise ContractError(f"{book.key}: no action was tried for another seat")


def answers(book, state, seat: int, probes) -> dict:
    """Everything ``seat`` is told about ``state``."""
    play = book.play
    viewer = Viewer(seat=seat, fog_side=seat, can_act=book.acting_side(state) == seat)
    return {
        "legal": play.legal_json(state, seat),
        "state": json.loads(json.dumps(play.state_json(state, viewer), default=repr)),
        "events": [play.event_row(e, seat) for e in play.visible_events(play.events(state), seat)],
        "svg": play.page_context(state, viewer).get("svg"),
        "refusals": {json.dumps(p, sort_keys=True): _answer(book, state, p, seat) for p in probes},
    }


def clause_hidden(book, states) -> None:
    planted = 0
    for state in states:
        for seat in _seats(book, state):
            variants = list(book.plant_hidden(state, seat))
            if not variants:
                continue
            probes = [book.to_json(a) for a in book.legal_actions(state)]
            for variant in variants:
                probes += list(book.probe_actions(variant, seat))
            plain = answers(book, state, seat, probes)
            for variant in variants:
                planted += 1
                seen = answers(book, variant, seat, probes)
                for key in plain:
                    if seen[key] != plain[key]:
                        diff = key
                        if key == "refusals":
                            diff = next(f"refusals: {p}: {plain[key][p]!r} against {seen[key][p]!r}"
                                        for p in plain[key] if plain[key][p] != seen[key][p])
                        raise ContractError(f"{book.key}: seat {seat} is told something else with a unit hidden "
                                            f"from it ({diff})")
    if not planted:
        raise ContractError(f"{book.key}: no hidden unit was planted (the clause proved nothing)")


# --- every registered book --------------------------------------------------------------------

ids = [b.key for b in BOOKS]


@pytest.mark.parametrize("book", BOOKS, ids=ids)
@pytest.mark.parametrize("seed", SEEDS)
def test_legal_actions_survive_the_codec_and_pass_check(book, seed):
    clause_codec(book, trace(book, seed).states)


@pytest.mark.parametrize("book", BOOKS, ids=ids)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_doctrines_action_is_legal(book, seed):
    clause_doctrine(book, trace(book, seed).states)


@pytest.mark.parametrize("book", BOOKS, ids=ids)
def test_a_refused_action_rolls_nothing_and_changes_nothing(book):
    clause_refusals(book, trace(book, SEEDS[0]).states)


@pytest.mark.parametrize("book", BOOKS, ids=ids)
@pytest.mark.parametrize("seed", SEEDS)
def test_replaying_the_logged_dice_gives_the_same_state(book, seed):
    clause_replay(book, trace(book, seed))


@pytest.mark.parametrize("book", BOOKS, ids=ids)
def test_seeded_battles_end(book):
    clause_ends(book, range(3, 6))


@pytest.mark.parametrize("book", BOOKS, ids=ids)
def test_check_owner_refuses_another_seats_action(book):
    clause_owner(book, trace(book, SEEDS[0]).states)


@pytest.mark.parametrize("book", BOOKS, ids=ids)
@pytest.mark.parametrize("seed", SEEDS)
def test_no_answer_depends_on_a_unit_hidden_from_the_seat(book, seed):
    clause_hidden(book, trace(book, seed).states)


# --- each clause fails on a planted fault ------------------------------------------------------

class Faulty:
    """A book with one hook replaced (``overrides``); everything else is the book's."""

    def __init__(self, book, play_overrides=None, **overrides):
        self._book = book
        self._over = overrides
        self.key = f"faulty {book.key}"
        self.play = _FaultyPlay(book.play, play_overrides or {}) if play_overrides else book.play

    def __getattr__(self, name):
        if name in self._over:
            return self._over[name]
        return getattr(self._book, name)


class _FaultyPlay:
    def __init__(self, play, overrides):
        self._play, self._over = play, overrides

    def __getattr__(self, name):
        return self._over.get(name) or getattr(self._play, name)


@pytest.fixture(params=BOOKS, ids=ids)
def faulty(request):
    return request.param


def test_clause_codec_fails_on_a_codec_that_loses_a_field(faulty):
    book = faulty

    def lossy(action):
        data = book.to_json(action)
        return {k: v for k, v in data.items() if k != "ship"} if "ship" in data else {}
    with pytest.raises(ContractError):
        clause_codec(Faulty(book, to_json=lossy), trace(book, 1).states)


def test_clause_doctrine_fails_on_a_doctrine_that_picks_an_illegal_action(faulty):
    book = faulty
    states = trace(book, 1).states
    later = book.legal_actions(states[-1])

    def illegal(state):
        for a in later + tuple(x for s in states for x in book.legal_actions(s)):
            try:
                book.check(state, a)
            except book.illegal:
                return a
        raise AssertionError("no illegal action found to plant")
    with pytest.raises(ContractError):
        clause_doctrine(Faulty(book, doctrine_action=illegal), states)


def test_clause_refusals_fails_on_an_engine_that_rolls_before_it_checks(faulty):
    book = faulty

    def hasty(state, action, dice):
        dice.roll(1, 6, "a die rolled before the check")
        return book.apply(state, action, dice)
    with pytest.raises(ContractError):
        clause_refusals(Faulty(book, apply=hasty), trace(book, 1).states)


def test_clause_replay_fails_on_an_engine_that_rolls_its_own_dice(faulty):
    book = faulty
    t = trace(book, 1)
    own = SeededDice(derive_seed("not the logged dice"))
    calls = []

    def unlogged(state, action, dice):
        calls.append(1)
        return book.apply(state, action, own if len(calls) % 3 == 0 else dice)
    with pytest.raises(ContractError):
        clause_replay(Faulty(book, apply=unlogged), t)


def test_clause_ends_fails_on_a_battle_that_never_ends(faulty):
    book = faulty

    def simulate(state, dice):  # the kit's loop, with an end test that never says "over"
        return play_out(state, dice, over=lambda s: False, acting=book.acting_side, automatic=book.automatic_step,
                        choose=book.doctrine_action, apply=book.apply, instead=book.instead, max_steps=300)
    with pytest.raises(ContractError):
        clause_ends(Faulty(book, simulate=simulate), [3])


def test_clause_owner_fails_on_a_check_owner_that_accepts_anyone(faulty):
    book = faulty
    with pytest.raises(ContractError):
        clause_owner(Faulty(book, check_owner=lambda state, action, seat: None), trace(book, 1).states)


def test_clause_hidden_fails_on_a_leaking_event(faulty):
    book = faulty
    leaky = Faulty(book, play_overrides={"visible_events": lambda events, side: list(events)})
    with pytest.raises(ContractError, match="events"):
        clause_hidden(leaky, trace(book, 1).states)


def test_clause_hidden_fails_on_a_leaking_refusal(faulty):
    book = faulty

    def telling(state, action):
        book.check(state, action)
        if any(getattr(s, "id", None) == 9_999 for s in _ships(state)):
            raise book.illegal("leak", "something is hidden here")
    with pytest.raises(ContractError, match="refusals|legal"):
        clause_hidden(Faulty(book, check=telling), trace(book, 1).states)


def _ships(state):
    return getattr(state, "ships", None) or getattr(getattr(state, "battle", None), "ships", ())
