"""The generic "every side commits, then reveal" step of online play (issue 29 item 6;
``PlayRules.acting_sides``; docs/architecture.md): a toy book of sealed bids (each side bids a
number in secret; when both are in, the higher bid scores; first to 2 points wins) played on the
generic play layer. Both sides are asked at once and may bid in either order; neither reads the
other's bid until both are in; a computer side bids at once; at the deadline every late side is
played by the doctrine; each side is emailed once when first asked (not again while it is still
to act, nor the side that just acted)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from tactical.hosts.pickup import actions
from tactical.play import actions as play
from tactical.rules import kit, registry
from tactical.rules.kit import IllegalActionError, evolve
from tactical.rules.play import PlayRules, Step

pytestmark = pytest.mark.django_db
RULE = "sealed 1 (bids)"


@dataclass(frozen=True)
class Bids:
    bids: tuple = ()  # (side, bid) in, this round
    score: tuple = (0, 0)
    log: tuple = ()


@dataclass(frozen=True)
class Bid:
    side: int
    bid: int


def asked(state):
    if max(state.score) >= 2:
        return ()
    done = {s for s, _ in state.bids}
    return tuple(s for s in (1, 2) if s not in done)


class SealedPlay(PlayRules):
    name = "sealed"

    def initial_state(self, setup, dice):
        return Bids()

    def acting_side(self, state):
        sides = asked(state)
        return sides[0] if sides else None

    def acting_sides(self, state):
        return asked(state)

    def is_over(self, state):
        return max(state.score) >= 2

    def parse_action(self, data):
        return Bid(int(data["side"]), int(data["bid"]))

    def action_json(self, action):
        return {"side": action.side, "bid": action.bid}

    def check_owner(self, state, action, seat):
        if action.side != seat:
            raise IllegalActionError(RULE, "not yours")

    def apply(self, state, action, dice):
        if action.side not in asked(state) or not 1 <= action.bid <= 9:
            raise IllegalActionError(RULE, "no bid from that side now")
        told = kit.private("bid", f"Side {action.side} bids {action.bid}.", (action.side,))
        state = evolve(state, bids=state.bids + ((action.side, action.bid),), log=state.log + (told,))
        events = [told]
        if len(state.bids) == 2:
            b = dict(state.bids)
            winner = 1 if b[1] > b[2] else 2 if b[2] > b[1] else None
            score = tuple(v + (1 if winner == i + 1 else 0) for i, v in enumerate(state.score))
            shown = kit.public("reveal", f"Bids revealed: {b[1]} against {b[2]}.")
            state = evolve(state, bids=(), score=score, log=state.log + (shown,))
            events.append(shown)
        return Step(state, tuple(events))

    def doctrine_action(self, state, side):
        return Bid(side, 5)

    def late_done(self, state):
        return True

    def your_turn_label(self, state):  # one email per (turn, seat, text): each round its own
        return f"the bid of round {sum(state.score) + 1 + len(state.log)}"

    def events(self, state):
        return state.log

    def result(self, state):
        return kit.battle_result(1 if state.score[0] >= 2 else 2, [], True)

    def state_json(self, state, viewer):
        return {"score": list(state.score), "mine": [b for s, b in state.bids if s == viewer.fog_side]}


@pytest.fixture
def sealed():
    from tactical.hosts.pickup.books import FleetBook, Offer

    class Fleets(FleetBook):
        ruleset = "sealed"
        max_ships = 1
        default_points = 10

        def offers(self, user):
            return [Offer("bidder", "Bidder", 10)]

        def setup(self, fleets, names, colours):
            return {"sides": {str(s): {"name": names[s], "colour": colours[s]} for s in fleets}}

    registry.register(
        registry.ResolverRecord(
            name="sealed",
            title="Sealed bids",
            rule_book="test",
            resolve=lambda *a, **k: None,
            play=SealedPlay(),
            fleets=Fleets(),
        )
    )
    yield
    registry.RESOLVERS.pop("sealed", None)


def _battle(bob, carol=None, **kw):
    pickup = actions.create_pickup(
        user=bob, ruleset="sealed", points=10, opponent="link" if carol else "computer", **kw
    )
    if carol:
        actions.accept_pickup(token=pickup.invite_token, user=carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=["bidder"])
    if carol:
        actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=["bidder"])
    pickup.refresh_from_db()
    return pickup.battle


def test_both_sides_may_bid_first_and_neither_reads_the_others_bid(sealed, bob, carol):
    from tactical.play import embedded

    battle = _battle(bob, carol)
    play.take_action(battle_id=battle.pk, user=carol, action_json={"side": 2, "bid": 7})  # side 2 first
    state = embedded.current_state(battle)
    rules = embedded.rules_for(battle)
    assert rules.acting_sides(state) == (1,)
    assert [e.text for e in rules.visible_events(rules.events(state), 1)] == []
    with pytest.raises(play.NotYourTurn):
        play.take_action(battle_id=battle.pk, user=carol, action_json={"side": 2, "bid": 3})
    play.take_action(battle_id=battle.pk, user=bob, action_json={"side": 1, "bid": 4})
    state = embedded.current_state(battle)
    assert state.score == (0, 1) and rules.acting_sides(state) == (1, 2)
    assert [e.text for e in rules.visible_events(rules.events(state), 1)] == [
        "Side 1 bids 4.",
        "Bids revealed: 4 against 7.",
    ]


def test_a_computer_side_bids_at_once_without_waiting(sealed, bob):
    from tactical.play import embedded

    battle = _battle(bob)
    state = embedded.current_state(battle)
    assert embedded.rules_for(battle).acting_sides(state) == (1,)  # the computer's bid is in
    assert battle.steps.filter(side=2, by_doctrine=True).count() == 1


def test_at_the_deadline_every_late_side_is_played(sealed, bob, carol):
    from tactical.play import embedded

    battle = _battle(bob, carol, activation_hours=1)
    assert play.play_due_activations(timezone.now() + timedelta(hours=2)) == 1
    assert battle.log.filter(kind="activation_late").count() == 2
    assert embedded.current_state(battle).score == (0, 0)  # 5 against 5, both by the doctrine
    assert battle.steps.filter(by_doctrine=True).count() == 2


def test_each_side_is_emailed_once_when_first_asked(
    sealed, bob, carol, eager_tasks, django_capture_on_commit_callbacks
):
    pickup = actions.create_pickup(user=bob, ruleset="sealed", points=10, opponent="link")
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=["bidder"])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=["bidder"])
    assert sorted(m.to[0] for m in mail.outbox) == ["bob@example.com", "carol@example.com"]
    pickup.refresh_from_db()
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play.take_action(battle_id=pickup.battle_id, user=carol, action_json={"side": 2, "bid": 2})
    assert mail.outbox == []  # bob was asked already
    with django_capture_on_commit_callbacks(execute=True):
        play.take_action(battle_id=pickup.battle_id, user=bob, action_json={"side": 1, "bid": 3})
    # the next round: carol is asked again; bob, who just acted, is at the page (not emailed)
    assert [m.to[0] for m in mail.outbox] == ["carol@example.com"]
