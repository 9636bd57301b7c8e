"""A toy rule book on the kit (issue 27 item 7): the smallest complete book, and the model for
the next ones. Two fleets of skiffs take turns; the acting side fires one skiff at an enemy skiff
(1d6, 4+ takes one of its 2 hull points) or passes; a cloaked skiff is hidden from the enemy and
cannot be named by it. The battle ends when a side has no skiff left, or after 40 turns.

Everything a book needs: rules (``check`` beside ``apply``), a codec, a doctrine, online play
(``PlayRules``), the ``RuleBook`` (``kit.Book``), a pickup ``FleetBook``, a what-if ``Trial``,
and one registration
(``register()``; the tests call it and ``unregister()``, as a real book's ``__init__`` registers
once on import).
"""

from __future__ import annotations

from dataclasses import dataclass

from tactical.rules import kit, registry
from tactical.rules.kit import Event, IllegalActionError, evolve
from tactical.rules.kit.trial import Trial
from tactical.rules.play import PlayRules, Step, action_type, whole_number

RULE = "toy 1 (fire)"
TURN_CAP = 40


@dataclass(frozen=True)
class Ship:
    id: int
    side: int
    hull: int = 2
    cloaked: bool = False


@dataclass(frozen=True)
class State:
    ships: tuple[Ship, ...]
    acting: int = 1
    turn: int = 0
    log: tuple[Event, ...] = ()


@dataclass(frozen=True)
class Fire:
    ship: int
    target: int


@dataclass(frozen=True)
class Pass:
    side: int


def alive(state, side):
    return [s for s in state.ships if s.side == side and s.hull > 0]


def over(state) -> bool:
    return state.turn >= TURN_CAP or not alive(state, 1) or not alive(state, 2)


def hidden_from(ship: Ship, side: int | None) -> bool:
    return ship.cloaked and side is not None and ship.side != side


def named(state, ship_id, side) -> Ship:
    ship = next((s for s in state.ships if s.id == ship_id), None)
    if ship is None or hidden_from(ship, side):
        raise IllegalActionError(RULE, f"there is no ship {ship_id} in this battle")
    return ship


def check(state, action) -> None:
    if over(state):
        raise IllegalActionError(RULE, "the battle is over")
    if isinstance(action, Pass):
        if action.side != state.acting:
            raise IllegalActionError(RULE, f"it is side {state.acting}'s turn")
        return
    firer = named(state, action.ship, state.acting)
    if firer.side != state.acting or firer.hull <= 0:
        raise IllegalActionError(RULE, f"ship {firer.id} cannot fire now")
    target = named(state, action.target, firer.side)
    if target.side == firer.side or target.hull <= 0:
        raise IllegalActionError(RULE, f"ship {target.id} is not an enemy in the fight")


def apply(state, action, dice) -> kit.Resolution:
    check(state, action)
    log = kit.EventLog()
    if isinstance(action, Fire):
        face = kit.d6(dice, f"{RULE}: ship {action.ship} at ship {action.target}")[0]
        hit = face >= 4
        ships = tuple(evolve(s, hull=s.hull - 1) if hit and s.id == action.target else s for s in state.ships)
        state = evolve(state, ships=ships)
        log.add("fire", f"Ship {action.ship} fires at ship {action.target}: {face}, {'hit' if hit else 'miss'}.")
    else:
        log.add("pass", f"Side {action.side} passes.")
    res = log.resolution(evolve(state, acting=3 - state.acting, turn=state.turn + 1))
    return kit.Resolution(evolve(res.state, log=state.log + res.events), res.events)


def legal(state) -> tuple:
    if over(state):
        return ()
    side = state.acting
    return tuple(Fire(s.id, t.id) for s in alive(state, side) for t in alive(state, 3 - side)
                 if not hidden_from(t, side)) + (Pass(side),)


def to_json(action) -> dict:
    if isinstance(action, Pass):
        return {"type": "pass", "side": action.side}
    return {"type": "fire", "ship": action.ship, "target": action.target}


def from_json(data):
    kind = action_type(data, {"fire": {"ship", "target"}, "pass": {"side"}},
                       lambda message: IllegalActionError("toy action format", message))
    values = {k: whole_number(v) for k, v in data.items() if k != "type"}
    if None in values.values() or len(values) != (2 if kind == "fire" else 1):
        raise IllegalActionError("toy action format", f"a {kind} action needs whole numbers")
    return Fire(**values) if kind == "fire" else Pass(**values)


class ToyPlay(PlayRules):
    name = "toy"

    def initial_state(self, setup, dice):
        ships, n = [], 0
        for seat in (1, 2):
            for _ in range(int(setup["sides"][str(seat)])):
                n += 1
                ships.append(Ship(n, seat))
        return State(tuple(ships))

    def acting_side(self, state):
        return None if over(state) else state.acting

    def is_over(self, state):
        return over(state)

    def parse_action(self, data):
        return from_json(data)

    def action_json(self, action):
        return to_json(action)

    def check_owner(self, state, action, seat):
        side = action.side if isinstance(action, Pass) else named(state, action.ship, seat).side
        if side != seat:
            raise IllegalActionError(RULE, "that is not yours")

    def apply(self, state, action, dice):
        res = apply(state, action, dice)
        return Step(res.state, res.events)

    def doctrine_action(self, state, side):
        return BOOK.doctrine_action(state)

    def events(self, state):
        return state.log

    def result(self, state):
        left = [side for side in (1, 2) if alive(state, side)]
        return kit.battle_result(left[0] if len(left) == 1 else None,
                                 [{"ship": s.id, "side": s.side, "fate": "survived" if s.hull else "destroyed"}
                                  for s in state.ships], over(state), turns=state.turn)

    def legal_json(self, state, side):
        return {"all": [to_json(a) for a in legal(state)]} if state.acting == side and not over(state) else {}

    def state_json(self, state, viewer):
        return {"turn": state.turn, "ships": [vars(s) for s in state.ships if not hidden_from(s, viewer.fog_side)]}


class ToyBook(kit.Book):
    key = "toy"
    title = "Toy skiffs (a test book)"
    rule_book = "tests/tactical/toybook"
    play = ToyPlay()
    max_steps = 100

    def legal_actions(self, state):
        return legal(state)

    def check(self, state, action):
        check(state, action)

    def choose(self, state):
        return legal(state)[0]  # the first enemy in sight, else pass

    def sample_setup(self, rng):
        return {"sides": {"1": rng.randint(1, 3), "2": rng.randint(1, 3)}}

    def plant_hidden(self, state, seat):
        ghost = Ship(99, 3 - seat, cloaked=True)
        yield evolve(state, ships=state.ships + (ghost,),
                     log=state.log + (kit.private("cloak", "Ship 99 cloaks.", (3 - seat,)),))

    def probe_actions(self, state, seat):
        yield {"type": "fire", "ship": 1, "target": 99}
        yield {"type": "fire", "ship": 99, "target": 1}


def _fleets():
    from tactical.hosts.pickup.books import FleetBook, Offer

    class ToyFleets(FleetBook):
        ruleset = "toy"
        max_ships = 3
        default_points = 30

        def offers(self, user):
            return [Offer("skiff", "Skiff", 10, "hull 2, one gun")]

        def setup(self, fleets, names, colours):
            return {"sides": {str(seat): len(fleets[seat]) for seat in sorted(fleets)}}

    return ToyFleets()


BOOK = ToyBook()


# --- what-if: one battle from a job {"sides": {"1": n, "2": m}} and its seed, and the tally ------

def play_job(job, seed, index):
    from campaign.rules.dice import SeededDice, derive_seed

    dice = SeededDice(derive_seed(f"what-if/{seed}/{index}"))
    return BOOK.outcome(BOOK.simulate(BOOK.new_battle(job, dice), dice))["winner"]


class Tally:
    def __init__(self):
        self.wins = {"1": 0, "2": 0, "draw": 0}

    def add(self, winner):
        self.wins[str(winner) if winner is not None else "draw"] += 1

    def result(self):
        return {"trials": sum(self.wins.values()), "wins": dict(self.wins)}


def tally_for(job):
    return Tally()


def same(value):
    return value


TRIAL = Trial("toy", f"{__name__}:play_job", f"{__name__}:same", f"{__name__}:same", f"{__name__}:tally_for")


def register() -> None:
    registry.register(registry.ResolverRecord(
        name="toy", title=BOOK.title, rule_book=BOOK.rule_book,
        resolve=lambda state, dice, **kw: BOOK.outcome(BOOK.simulate(state, dice)),
        play=BOOK.play, book=BOOK, fleets=_fleets(), trial=TRIAL))


def unregister() -> None:
    registry.RESOLVERS.pop("toy", None)
