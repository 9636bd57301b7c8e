"""Actions of embedded (online) tactical battles: start, take an action, hand a fleet to the
computer, and the activation-deadline sweep (issue 5, "Playing it online"), for any rule book:
everything engine-specific is asked of the battle's ruleset (``embedded.rules_for``, a
``tactical.rules.play.PlayRules``).

Every function here is one atomic action: it locks the campaign row (the campaign's dice stream
is shared, so two battles of one campaign cannot interleave their rolls), rebuilds the battle by
replaying its steps (tactical/play/embedded.py), validates, resolves with the campaign's dice, stores
the new steps, commits the rolls to the hash-chained dice log (phase ``battle <id>``) and then
advances the battle: automatic steps are taken (Event Horizon draws cards) and computer
(doctrine) sides play until a human side must act or the battle is over. A refused action stores nothing and
rolls nothing. Emails go out only after the transaction commits. Rulings TP1… in docs/rulings.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from campaign.dice import CampaignDice
from campaign.models import Campaign, Empire
from campaign.notifications import absolute
from tactical.models import Battle, BattleLogEntry, BattleStep
from tactical.play import embedded, kinds
from tactical.rules.play import PlayRules

PLAYING = Battle.Status.PLAYING


class PlayError(Exception):
    """A refused request; ``message`` says why."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class NotAllowed(PlayError):
    """The user commands no fleet in this battle (pages and the API answer 404, or 403 to a
    moderator, who may look but not act)."""


class NotYourTurn(PlayError):
    """Not this side's decision now (Event Horizon: its card) (or the battle is not being played): HTTP 409."""


class Refused(PlayError):
    """The rules do not allow the action: ``rule`` names the rule book's section broken (HTTP 400)."""

    def __init__(self, rule: str, message: str):
        self.rule = rule
        super().__init__(message)


# --- who is who ----------------------------------------------------------------------------

def role(battle: Battle, seat: int) -> str:
    """The side's part: "attacker", "defender", or — a third to sixth side (ruling PK6) — "side"."""
    return "attacker" if seat == battle.attacker else "defender" if seat == battle.defender else "side"


def seats_of(user, battle: Battle) -> list[int]:
    """The battle's seats this user commands (normally none or one)."""
    if not getattr(user, "is_authenticated", False):
        return []
    kind = kinds.kind_for(battle)
    if kind is not None:
        return sorted(kind.seats_of(user, battle))
    layer = Campaign.objects.filter(pk=battle.campaign_id).values_list("layer", flat=True).first()
    if layer in kinds.HOST_SEATS:  # sides that are not Empire seats (issue 31: a CAM scenario)
        return sorted(kinds.HOST_SEATS[layer](user, battle))
    return sorted(Empire.objects.filter(campaign_id=battle.campaign_id, user=user, seat__in=battle.seats)
                  .values_list("seat", flat=True))


def side_names(battle: Battle) -> dict[int, str]:
    sides = (battle.setup or {}).get("sides") or {}
    out = {}
    for seat in battle.seats:
        data = sides.get(str(seat)) or sides.get(seat) or {}
        out[seat] = data.get("name") or f"Seat {seat}"
    return out


def _kind_of(battle_id: int):
    battle = Battle.objects.filter(pk=battle_id).only("pk", "ruleset", "setup").first()
    if battle is None:
        raise NotAllowed("no such battle")
    return kinds.kind_for(battle)


def _lock(battle_id: int) -> tuple[Battle, Campaign]:
    campaign_id = Battle.objects.filter(pk=battle_id).values_list("campaign_id", flat=True).first()
    if campaign_id is None:
        raise NotAllowed("no such battle")
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    battle = Battle.objects.select_for_update().get(pk=battle_id)
    battle.campaign = campaign
    return battle, campaign


def _lock_for(battle_id: int, user, status: str, doing: str) -> tuple[Battle, Campaign, list[int]]:
    """Lock the battle for one of ``user``'s sides: NotAllowed without a fleet in it,
    NotYourTurn unless its status is ``status`` (``doing`` says what that status is for)."""
    battle, campaign = _lock(battle_id)
    seats = seats_of(user, battle)
    if not seats:
        raise NotAllowed("you command no fleet in this battle")
    if campaign.paused and campaign.layer in PAUSE_HOLDS:
        raise NotYourTurn("the campaign is paused: the battle waits until the moderator resumes it (ruling CAM60)")
    if battle.status != status:
        raise NotYourTurn(f"the {doing} ({battle.get_status_display().lower()})")
    return battle, campaign, seats


def _dice(battle: Battle, campaign: Campaign) -> CampaignDice:
    # Every roll of the battle is its two sides' (docs/rulings.md C21, FW7).
    return CampaignDice(campaign, phase=battle.dice_phase, turn=battle.turn, concerns=battle.seats)


# --- the step recorder and the advance loop ------------------------------------------------

class _Steps:
    """Collects the steps of one action, to store them in one go."""

    def __init__(self, battle: Battle):
        self.battle = battle
        self.next_seq = (battle.steps.order_by("-seq").values_list("seq", flat=True).first() or 0) + 1
        self.rows: list[BattleStep] = []

    def add(self, side: int | None, action: dict, *, by_doctrine: bool = False, user=None) -> None:
        self.rows.append(BattleStep(battle=self.battle, seq=self.next_seq, side=side, action=action,
                                    by_doctrine=by_doctrine, user=user if getattr(user, "pk", None) else None))
        self.next_seq += 1

    def save(self) -> list[BattleStep]:
        return BattleStep.objects.bulk_create(self.rows)


def doctrine_choice(rules: PlayRules, state, side: int):
    """The doctrine's action for ``side`` (the ruleset's hook never offers one its engine
    refuses, so a computer side never stalls)."""
    return rules.doctrine_action(state, side)


def _advance(battle: Battle, rules: PlayRules, state, dice, steps: _Steps, *, late_sides: Iterable[int] = ()):
    """Take automatic steps and let computer sides play until a human side must act or the
    battle is over. ``late_sides`` (the deadline sweep): the doctrine also plays those sides'
    decisions until the rules next take a step by themselves (Event Horizon: the card in play) or
    the ruleset says a late side's decision is done (``PlayRules.late_done``). With several sides
    to act at once (``PlayRules.acting_sides``: secret orders revealed together) a computer or
    late side among them acts at once, without waiting for the others."""
    doctrine = set(battle.doctrine_sides or [])
    late = set(late_sides)
    while not rules.is_over(state):
        sides = rules.acting_sides(state)
        if not sides:
            late = set()  # the late sides' decisions are done; the next start afresh
            res, step_json = rules.automatic_step(state, dice)
            state = res.state
            steps.add(None, step_json)
            continue
        side = next((s for s in sides if s in doctrine or s in late), None)
        if side is None:
            break
        action = doctrine_choice(rules, state, side)
        state = rules.apply(state, action, dice).state
        steps.add(side, rules.action_json(action), by_doctrine=True)
        if side in late and side not in doctrine and rules.late_done(state):
            late.discard(side)
    return state


def _settle(battle: Battle, campaign: Campaign, rules: PlayRules, state, dice: CampaignDice, steps: _Steps, *,
            user=None, acted_side: int | None = None, asked: Iterable[int] = ()) -> None:
    """Store the steps, commit the dice, restart the activation clock or record the result."""
    saved = steps.save()
    dice.commit()
    if saved and saved[-1].pk is not None:
        # Safe before the commit: a rolled-back step's key can never match a stored one.
        embedded.remember(embedded.cache_key_after(battle, saved[-1], saved[-1].seq), state)
    if rules.is_over(state):
        _finish(battle, campaign, rules, state, user=user)
        return
    # The ruleset says when the clock restarts (Event Horizon, ruling TP4: whenever a side is to
    # choose its next ship to activate; it keeps running through an activation).
    hours = campaign.activation_hours or 0
    if (saved and rules.clock_restarts(state)) or (battle.activation_deadline is None) != (not hours):
        battle.activation_deadline = timezone.now() + timedelta(hours=hours) if hours else None
        battle.save(update_fields=["activation_deadline"])
    _notify(battle, campaign, rules, state, acted_side, asked)


def _notify(battle: Battle, campaign: Campaign, rules: PlayRules, state, acted_side: int | None,
            asked: Iterable[int] = ()) -> None:
    """Email each player whose decision it now is, when it has passed to them from someone else
    (``asked``: sides already asked before the step, waiting still: not emailed again)."""
    skip = {acted_side, *asked, *(battle.doctrine_sides or [])}
    host_mail = DECISION_MAILS.get(campaign.layer)
    for side in rules.acting_sides(state):
        if side in skip:
            continue
        if host_mail is not None:  # a host whose seats are not Empire ones (issue 31: a CAM scenario)
            host_mail(battle, campaign, side, rules.your_turn_label(state))
            continue
        _tell(battle, campaign, side, f"Battle {battle.pk} at ({battle.x}, {battle.y}): "
                                      f"{rules.your_turn_label(state)} is yours. "
                                      f"Play it at {absolute(reverse('battle-play', args=[battle.pk]))}")


def _tell(battle: Battle, campaign: Campaign, seat: int, text: str) -> None:
    """Email ``seat``'s player once the transaction commits."""

    def send():
        from campaign.tasks import notify_battle_decision

        notify_battle_decision.delay(campaign.pk, battle.turn, seat, text)

    transaction.on_commit(send, robust=True)  # a mail or broker failure never undoes the move


# Where a battle's result goes when it ends, by its campaign's layer (``Campaign.layer``): a
# campaign turn's battle goes back to its turn (``lifecycle.record_result``, the default); a layer
# that hosts battles of its own registers its ``record(battle=, result=, how=, user=)`` here
# (tactical/apps.py: the pickup battles' host, tactical/hosts/pickup/actions.py).
RESULT_SINKS: dict = {}
# Layers whose battles wait while the campaign is paused (a player's decision is refused, 409; the
# deadline sweep skips them): CAM's (ruling CAM60), registered by tactical/apps.py.
PAUSE_HOLDS: set[str] = set()
# Layers that email "your decision" themselves: layer key -> mail(battle, campaign, seat, label).
DECISION_MAILS: dict = {}


def _finish(battle: Battle, campaign: Campaign, rules: PlayRules, state, *, user=None) -> None:
    from tactical.hosts.eventhorizon import lifecycle

    result = rules.result(state)
    battle.activation_deadline = None
    battle.save(update_fields=["activation_deadline"])
    text = rules.summary(result, side_names(battle))
    BattleLogEntry.objects.create(battle=battle, kind="tactical_over", text=text, data=result)
    if battle.converted:  # fought on another rule book (issue 31): the result as the layer's own
        from tactical.rules import registry

        converter = registry.find_converter(campaign.layer, battle.ruleset)
        result = converter.result_back(battle.layer_setup, battle.setup, result)
    battle.campaign = campaign
    record = RESULT_SINKS.get(campaign.layer, lifecycle.record_result)
    record(battle=battle, result=result, how="tactical", user=user)


# --- the actions ---------------------------------------------------------------------------

def start_embedded(battle: Battle) -> Battle:
    """Begin a battle in tactical mode (called by tactical/hosts/eventhorizon/lifecycle.py inside its transaction,
    campaign row locked): deploy the fleets, shuffle with the campaign dice, and play on until a
    human side must act. Seats played by the computer (bots, or nobody) start with the doctrine."""
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=battle.campaign_id)
        battle.campaign = campaign
        if battle.steps.exists():
            raise PlayError(f"battle {battle.pk} has already begun")
        computer = set(Empire.objects.filter(campaign=campaign, seat__in=battle.seats)
                       .filter(models_q_bot()).values_list("seat", flat=True))
        battle.doctrine_sides = sorted(set(battle.doctrine_sides or []) | computer)
        battle.status = PLAYING
        battle.mode = Battle.Mode.TACTICAL
        battle.save(update_fields=["doctrine_sides", "status", "mode"])
        dice = _dice(battle, campaign)
        rules = embedded.rules_for(battle)
        state = embedded.initial_state(battle.setup, dice, rules)
        names = side_names(battle)
        if len(battle.seats) > 2:  # a battle of more sides (ruling PK6): every side against every other
            text = "The fleets deploy: " + ", ".join(names[s] for s in battle.seats) + ", each against every other."
        else:
            text = (
                f"The fleets deploy: {names[battle.attacker]} (attacker) against {names[battle.defender]} (defender)"
                + (" (the defender's AEWA: the attacker deploys first)." if battle.aewa else ".")
            )
        BattleLogEntry.objects.create(battle=battle, kind="tactical_start", text=text)
        steps = _Steps(battle)
        state = _advance(battle, rules, state, dice, steps)
        _settle(battle, campaign, rules, state, dice, steps)
    return battle


# --- deployment by hand (Campaign.deployment "hand"; ruling TP8) -------------------------------

DEPLOYING = Battle.Status.DEPLOYING


def _computer_sides(battle: Battle, campaign: Campaign) -> set[int]:
    bots = set(Empire.objects.filter(campaign=campaign, seat__in=battle.seats).filter(models_q_bot())
               .values_list("seat", flat=True))
    return bots | set(battle.doctrine_sides or [])


def begin(battle: Battle) -> Battle:
    """Begin an embedded battle (tactical/hosts/eventhorizon/lifecycle.py, inside its transaction). With deployment
    by hand and a person on either side, the fleets are deployed first (``deploy_fleet``); else
    the battle starts at once with the fleets lined up automatically (``start_embedded``)."""
    campaign = Campaign.objects.select_for_update().get(pk=battle.campaign_id)
    battle.campaign = campaign
    if (campaign.deployment != Campaign.Deployment.HAND or not embedded.rules_for(battle).hand_deployment
            or _computer_sides(battle, campaign) >= set(battle.seats)):
        return start_embedded(battle)
    battle.status = DEPLOYING
    battle.setup = {**battle.setup, "placements": {}}
    battle.save(update_fields=["status", "setup"])
    names = side_names(battle)
    first = embedded.rules_for(battle).deploy_order(battle.setup)
    BattleLogEntry.objects.create(
        battle=battle, kind="deployment",
        text=f"The fleets deploy by hand: {names[first[0]]} first, then {names[first[1]]}"
             + (" (the defender's AEWA: the attacker deploys first)." if battle.aewa else " (defenders first)."))
    _deploy_on(battle, campaign)
    return battle


def _record_deployment(battle: Battle, seat: int, given, *, user=None, late: bool = False) -> None:
    battle.setup = {**battle.setup, "placements": {**(battle.setup.get("placements") or {}), str(seat): given}}
    name = side_names(battle)[seat]
    if late:
        text = f"{name} missed the deployment deadline: its fleet lines up automatically."
    elif given == embedded.AUTOMATIC:
        text = f"{name}'s fleet lines up automatically."
    else:
        text = f"{name} places its {len(given)} ship(s) by hand."
    BattleLogEntry.objects.create(
        battle=battle,
        kind="deployed",
        seat=seat,
        user=user if getattr(user, "pk", None) else None,
        text=text,
        data={"automatic": given == embedded.AUTOMATIC, "late": late},
    )


def _deploy_on(battle: Battle, campaign: Campaign) -> None:
    """Computer sides line up at once; when every side has deployed the battle starts, else the
    next side's deployment clock starts and its player is told."""
    computer = _computer_sides(battle, campaign)
    rules = embedded.rules_for(battle)
    seat = rules.next_to_deploy(battle.setup)
    while seat is not None and seat in computer:
        _record_deployment(battle, seat, embedded.AUTOMATIC)
        seat = rules.next_to_deploy(battle.setup)
    if seat is None:
        battle.activation_deadline = None
        battle.save(update_fields=["setup", "activation_deadline"])
        start_embedded(battle)
        return
    hours = campaign.activation_hours or 0
    battle.activation_deadline = timezone.now() + timedelta(hours=hours) if hours else None
    battle.save(update_fields=["setup", "activation_deadline"])
    _tell(battle, campaign, seat, f"Battle {battle.pk} at ({battle.x}, {battle.y}): deploy your fleet on the table "
                                  f"at /battles/{battle.pk}/play/")


def deploy_fleet(*, battle_id: int, user, placements=None) -> Battle:
    """The deploying side places its ships (``placements``: [{ship, x, y, facing}], every ship,
    inside its zone) or, with None, lets them line up automatically. Refused (nothing stored):
    NotAllowed without a fleet here, NotYourTurn when the battle is not being deployed or the
    other side deploys first, Refused with the rule for a placement the table does not allow."""
    with transaction.atomic():
        battle, campaign, seats = _lock_for(battle_id, user, DEPLOYING, "fleets are not being deployed")
        rules = embedded.rules_for(battle)
        seat = rules.next_to_deploy(battle.setup)
        if seat not in seats:
            raise NotYourTurn(f"{rules.deploy_rule}: {side_names(battle).get(seat, 'the other side')} deploys first")
        if placements is None:
            given = embedded.AUTOMATIC
        else:
            try:
                given = rules.placements(battle.setup, seat, placements)
            except rules.illegal as exc:
                raise Refused(exc.rule, exc.message) from None
        _record_deployment(battle, seat, given, user=user)
        _deploy_on(battle, campaign)
    return battle


def finish_deployment(battle: Battle) -> None:
    """Every side that has not deployed lines up automatically, and the battle starts (the
    battle deadline; the caller holds the campaign row lock)."""
    rules = embedded.rules_for(battle)
    while (seat := rules.next_to_deploy(battle.setup)) is not None:
        _record_deployment(battle, seat, embedded.AUTOMATIC, late=True)
    _deploy_on(battle, battle.campaign)


def models_q_bot():
    from django.db.models import Q

    return Q(is_bot=True) | Q(user__isnull=True)


def take_action(*, battle_id: int, user, action_json):
    """The acting player's action. Refused (nothing stored, no die rolled): NotAllowed for a
    user without a fleet here, NotYourTurn out of turn, Refused with the rule and the reason
    for an illegal action. Returns the state after it (and after the steps that follow)."""
    kind = _kind_of(battle_id)
    if kind is not None:  # its own action (a CAM scenario: scored by the CAM layer)
        kind.take_action(battle_id=battle_id, user=user, action_json=action_json)
        return embedded.current_state(Battle.objects.get(pk=battle_id))
    with transaction.atomic():
        battle, campaign, seats = _lock_for(battle_id, user, PLAYING, "battle is not being played")
        rules = embedded.rules_for(battle)
        try:
            action = rules.parse_action(action_json)
        except rules.illegal as exc:
            raise Refused(exc.rule, exc.message) from None
        state = embedded.current_state(battle)
        names = side_names(battle)
        acting = rules.acting_side(state)
        asked = rules.acting_sides(state)
        mine = [s for s in seats if s in asked]
        if not mine:
            whose = names.get(acting, "nobody's") if acting is not None else "nobody's"
            raise NotYourTurn(f"{rules.turn_rule}: acting out of turn: {rules.turn_label(state)} is {whose}")
        seat = mine[0]
        if seat in (battle.doctrine_sides or []):
            raise NotYourTurn("your fleet is in the computer doctrine's hands: take it back first")
        dice = _dice(battle, campaign)
        try:
            rules.check_owner(state, action, seat)
            state = rules.apply(state, action, dice).state
        except rules.illegal as exc:
            raise Refused(exc.rule, exc.message) from None
        steps = _Steps(battle)
        steps.add(seat, rules.action_json(action), user=user)
        state = _advance(battle, rules, state, dice, steps)
        _settle(battle, campaign, rules, state, dice, steps, user=user, acted_side=seat, asked=asked)
    return state


def hand_to_doctrine(*, battle_id: int, user, on: bool = True) -> Battle:
    """Hand the user's fleet to the computer doctrine (``on``) or take it back. With the decision
    the user's, the doctrine makes it at once."""
    kind = _kind_of(battle_id)
    if kind is not None:
        kind.hand_to_doctrine(battle_id=battle_id, user=user, on=on)
        return Battle.objects.get(pk=battle_id)
    with transaction.atomic():
        battle, campaign, seats = _lock_for(battle_id, user, PLAYING, "battle is not being played")
        current = set(battle.doctrine_sides or [])
        changed = (set(seats) - current) if on else (set(seats) & current)
        if not changed:
            return battle
        battle.doctrine_sides = sorted(current | changed) if on else sorted(current - changed)
        battle.save(update_fields=["doctrine_sides"])
        names = side_names(battle)
        for seat in sorted(changed):
            BattleLogEntry.objects.create(
                battle=battle,
                kind="doctrine",
                seat=seat,
                user=user,
                data={"on": on},
                text=f"{names[seat]} " + ("hands its fleet to the computer doctrine." if on
                                          else "takes its fleet back from the computer."),
            )
        if on:
            rules = embedded.rules_for(battle)
            state = embedded.current_state(battle)
            dice = _dice(battle, campaign)
            steps = _Steps(battle)
            state = _advance(battle, rules, state, dice, steps)
            _settle(battle, campaign, rules, state, dice, steps, user=user, acted_side=seats[0])
    return battle


def play_due_activations(now=None) -> int:
    """The deadline sweep: in every battle being played whose activation deadline has passed,
    the doctrine plays the late side's decisions (Event Horizon: its activations for the card in
    play); then the battle goes on as usual. Returns the number of battles advanced."""
    now = now or timezone.now()
    # A CAM scenario fought online has its own sweep (tactical/hosts/cam/scenarios.py ``play_due``).
    due = list(Battle.objects.filter(status__in=[PLAYING, DEPLOYING], activation_deadline__lte=now)
               .exclude(setup__has_key="cam").values_list("pk", flat=True))
    done = 0
    for pk in due:
        with transaction.atomic():
            battle, campaign = _lock(pk)
            if battle.status not in (PLAYING, DEPLOYING) or battle.activation_deadline is None \
                    or battle.activation_deadline > now:
                continue  # someone acted (or it ended) meanwhile
            if campaign.paused and campaign.layer in PAUSE_HOLDS:
                continue  # no decision deadline passes while the campaign is paused (ruling CAM60)
            rules = embedded.rules_for(battle)
            if battle.status == DEPLOYING:  # the late side's fleet lines up automatically
                _record_deployment(battle, rules.next_to_deploy(battle.setup), embedded.AUTOMATIC, late=True)
                _deploy_on(battle, campaign)
                done += 1
                continue
            state = embedded.current_state(battle)
            late = rules.acting_sides(state)
            for seat in late:
                BattleLogEntry.objects.create(
                    battle=battle, kind="activation_late", seat=seat,
                    text=f"{side_names(battle).get(seat, seat)} missed the activation deadline: "
                         f"{rules.late_text}",
                )
            dice = _dice(battle, campaign)
            steps = _Steps(battle)
            state = _advance(battle, rules, state, dice, steps, late_sides=late)
            _settle(battle, campaign, rules, state, dice, steps, acted_side=late[0] if late else None)
            done += 1
    return done


def finish_with_doctrine(battle: Battle, *, text: str = "") -> None:
    """Ruling C19: at the battle deadline the computer doctrine plays both sides to the end and
    the result goes to the campaign as any embedded battle's would. The caller
    (tactical/battles/actions.py ``settle_due_battle``) holds the campaign row lock; ``battle.campaign``
    is that locked row."""
    campaign = battle.campaign
    battle.doctrine_sides = sorted(set(battle.seats))
    battle.save(update_fields=["doctrine_sides"])
    BattleLogEntry.objects.create(
        battle=battle, kind="doctrine",
        text=text or ("The battle deadline passed: the computer doctrine plays "
                      + ("both fleets" if len(battle.seats) == 2 else "every fleet") + " to the end."))
    rules = embedded.rules_for(battle)
    state = embedded.current_state(battle)
    dice = _dice(battle, campaign)
    steps = _Steps(battle)
    state = _advance(battle, rules, state, dice, steps)
    _settle(battle, campaign, rules, state, dice, steps)


__all__ = ["NotAllowed", "NotYourTurn", "PlayError", "Refused", "doctrine_choice", "finish_with_doctrine",
           "hand_to_doctrine",
           "play_due_activations", "seats_of", "side_names", "start_embedded", "take_action", "begin",
           "deploy_fleet", "finish_deployment"]
