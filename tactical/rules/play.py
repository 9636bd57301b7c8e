"""What online play asks of a rule book (pure Python; issue 15 item 3).

``tactical/play/`` (the Django side of online play: a ``Battle`` row's steps replayed, the
actions, the pages and the API) never imports an engine. It looks the battle's ruleset up in the
registry (``tactical.rules.registry.find_resolver(name).play``) and asks that record everything
engine-specific: the state from a stored setup, the state codec (actions ↔ JSON), whose decision
it is, the legal actions, one action applied with the dice, the doctrine's choice, the outcome
as the campaign's result, the events a side may read (fog of war), the board as SVG and the
page's and the API's view of the state.

A rule book subclasses ``PlayRules`` in its own package (``tactical/rules/eventhorizon/play/``,
``tactical/rules/buoyz/play/``), overriding the hooks below, and hands an instance to its
``ResolverRecord(play=…)``. The engine's state is opaque to ``tactical/play/``: it is only passed
back to these hooks (and to the ruleset's own templates).

``Viewer`` is who looks: the side they command (``seat``), whose eyes the table is seen through
(``fog_side``; None: everything — the moderator, or anyone once the battle is over), the sides'
names and colours, and whether they may act now (``can_act``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tactical.rules.kit import IllegalActionError
from tactical.rules.kit.codec import action_type, whole_number  # noqa: F401 - every codec's first checks (kit)

AUTOMATIC = "auto"  # a side's deployment when its fleet lines up automatically


@dataclass(frozen=True)
class Viewer:
    seat: int | None = None
    fog_side: int | None = None
    names: Mapping[int, str] = field(default_factory=dict)
    colours: Mapping[int, str] = field(default_factory=dict)
    can_act: bool = False


@dataclass(frozen=True)
class Step:
    """The result of one step: the state after it and the events it logged (an engine's own
    ``Resolution`` has the same two fields and may be returned instead)."""

    state: Any
    events: tuple = ()


class PlayRules:
    """The hooks of one rule book's online play. ``illegal`` is the engine's refusal: an
    exception with ``rule`` (the section broken) and ``message``; every hook that refuses raises
    it (nothing is rolled, the state is unchanged)."""

    name: str = ""
    illegal: type[Exception] = IllegalActionError
    anyone_acts = False  # True: any seat may take any action (check_owner accepts); say so explicitly
    no_fog = False  # True: every side reads every event (visible_events); say so explicitly
    format_rule = "action format"
    turn_rule = "turn sequence"
    play_template = "tactical/play.html"
    replay_ships_template = ""  # included by the replay under "Ships after this step"
    # the battle page's table of each side's ships (tactical/battles/forms.py ``side_rows``): the
    # generic one names the ship, its design and hull; a rule book with more to say gives its own
    battle_ships_template = "tactical/_battle_ships.html"
    hand_deployment = False  # sides may place their fleets by hand before the battle
    deploy_rule = ""
    late_text = "the computer doctrine plays its ships until the next step."  # a side missed its deadline

    # --- the state and its steps ---------------------------------------------------------

    def initial_state(self, setup: Mapping[str, Any], dice) -> Any:
        """The battle set up from its stored ``setup`` (sides, ships, table), dice passed in."""
        raise NotImplementedError

    def acting_side(self, state) -> int | None:
        """Whose decision it is now; None while nobody decides (``automatic_step`` runs) or
        when the battle is over."""
        raise NotImplementedError

    def acting_sides(self, state) -> tuple[int, ...]:
        """Every side that may act now, first ``acting_side``. One side for most books; a book
        whose steps are secret orders that every side gives and that are revealed together
        ("every side commits, then reveal": My Trek V, ruling MT17) returns every side whose
        orders are not in yet, and accepts them in any order. ``tactical/play/`` lets each of
        these sides act, lets the doctrine give a computer side's orders at once, hands every
        late one to the doctrine at the deadline and emails each side when it is first asked."""
        side = self.acting_side(state)
        return () if side is None else (side,)

    def is_over(self, state) -> bool:
        raise NotImplementedError

    def automatic_step(self, state, dice) -> tuple[Step, dict]:
        """The step the rules take by themselves when nobody decides (Event Horizon draws a
        card), and its JSON to store (read back by ``replay_step``)."""
        raise NotImplementedError(f"{self.name}: nobody is to act and the battle is not over")

    def replay_step(self, state, action_json: Mapping, dice) -> Step:
        """One stored step played again: an action, or an automatic step's JSON."""
        return self.apply(state, self.parse_action(action_json), dice)

    def parse_action(self, data: Any) -> Any:
        """JSON → the engine's action; raises ``illegal`` naming what is wrong."""
        raise NotImplementedError

    def action_json(self, action) -> dict:
        raise NotImplementedError

    setup_label = "Set-up: the fleets deploy"  # the replay's first frame

    def describe(self, action_json: Mapping, state=None) -> str:
        """A short English label of a stored step (the replay); ``state``: the state after it.
        Raises ``illegal`` for JSON that is not a step."""
        return str(dict(action_json))

    def check_owner(self, state, action, seat: int) -> None:
        """Raise ``illegal`` unless ``action`` is for ``seat``'s own ship or side. The default
        refuses every action: a book says whose actions are whose (or, with ``anyone_acts``,
        that any seat may take any action)."""
        if not self.anyone_acts:
            raise self.illegal(self.turn_rule, f"the rule book '{self.name}' does not say whose actions are "
                               "whose (PlayRules.check_owner)")

    def apply(self, state, action, dice) -> Step:
        raise NotImplementedError

    def doctrine_action(self, state, side: int) -> Any:
        """The computer doctrine's action for ``side``; never one the engine refuses."""
        raise NotImplementedError

    def events(self, state) -> Sequence:
        """Every event of the battle so far (the log of the play page)."""
        return ()

    def visible_events(self, events: Sequence, side: int | None) -> list:
        """The events ``side`` may read (None: all of them). The default reads the fog-of-war
        tags the engine set where it made each event (``tactical.rules.kit.Event``: ``public``,
        else its ``sides``); an event without tags is hidden from every side, unless the book
        says it has no fog of war (``no_fog``)."""
        if side is None or self.no_fog:
            return list(events)
        return [e for e in events if getattr(e, "public", False) is True or side in (getattr(e, "sides", None) or ())]

    def hides_step(self, events: Sequence, side: int) -> bool:
        """Whether the other side's step is shown to ``side`` only as "a hidden action"."""
        return not self.visible_events(events, side)

    def event_row(self, event, side: int | None) -> dict:
        return {"kind": event.kind, "text": event.text, "private": not getattr(event, "public", True)}

    # --- the end -------------------------------------------------------------------------

    def result(self, state) -> dict:
        """The outcome as the JSON handed to the battle's result."""
        raise NotImplementedError

    def summary(self, result: Mapping, names: Mapping[int, str]) -> str:
        """One sentence for the battle log when it is over."""
        return "The battle is over."

    # --- turns and clocks -----------------------------------------------------------------

    def late_done(self, state) -> bool:
        """After the doctrine played one action for a side past its deadline: whether that
        side's late decision is complete (its player decides again from here). False: the
        doctrine plays on until the rules next take a step by themselves."""
        return False

    def clock_restarts(self, state) -> bool:
        """Whether a side's decision clock starts afresh after the steps just taken."""
        return True

    def turn_label(self, state) -> str:
        """What the acting side is deciding, for "acting out of turn: … is X's"."""
        return "the turn"

    def your_turn_label(self, state) -> str:
        """For the email "Battle 3 at (1, 2): … is yours"."""
        return "the decision"

    # --- pages and the API ----------------------------------------------------------------

    def state_json(self, state, viewer: Viewer) -> dict:
        """The engine-specific part of the API's state answer, fog of war applied."""
        return {}

    def legal_json(self, state, side: int) -> dict[str, list[dict]]:
        """``side``'s legal actions as JSON, keyed by what they are for (a ship id)."""
        return {}

    def page_context(self, state, viewer: Viewer) -> dict:
        """The template context of the ruleset's play page (its board, orders, ship table)."""
        return {}

    def form_action(self, kind: str, form: Mapping[str, list[str]]) -> Any:
        """The action JSON built from a page form of the ruleset's own ``kind`` (None: not one
        of its kinds); raises ``illegal`` for a form that says nothing usable."""
        return None

    def replay_context(self, state, action_json: Mapping | None, viewer: Viewer) -> dict:
        """The replay frame's board (``svg``), ship rows (``ships``) and ``note`` for one state."""
        return {}

    # --- deployment by hand (``hand_deployment``) ------------------------------------------

    def deploy_order(self, setup: Mapping) -> list[int]:
        return [int(setup["attacker"]), int(setup["defender"])]

    def deployed(self, setup: Mapping) -> dict[int, Any]:
        """Seats that have deployed: their placements (a list) or ``AUTOMATIC``."""
        return {int(k): v for k, v in (setup.get("placements") or {}).items()}

    def next_to_deploy(self, setup: Mapping) -> int | None:
        done = self.deployed(setup)
        return next((seat for seat in self.deploy_order(setup) if seat not in done), None)

    def placements(self, setup: Mapping, seat: int, raw) -> list:
        """A side's placements as sent (checked against the table); raises ``illegal``."""
        raise self.illegal(self.deploy_rule or self.turn_rule, "this rule book deploys automatically")

    def placements_from_form(self, form: Mapping[str, list[str]]) -> list:
        raise self.illegal(self.deploy_rule or self.turn_rule, "this rule book deploys automatically")

    def deployment_page(self, setup: Mapping, viewer: Viewer) -> dict:
        return {}

    def deployment_json(self, setup: Mapping, viewer: Viewer) -> dict:
        return {}


def form_value(form: Mapping[str, list[str]], key: str, default: str = "") -> str:
    values = form.get(key) or []
    return values[-1] if values else default


__all__ = ["AUTOMATIC", "PlayRules", "Step", "Viewer", "form_value"]
