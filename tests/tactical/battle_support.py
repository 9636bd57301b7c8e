"""Building a campaign turn that hands a battle off (for lifecycle, tabletop and play tests).

``contact_turn(campaign, mode)`` takes a campaign with two human seats (1 and 2), puts seat 1's
first fleet next to seat 2's first fleet, orders it into that hex and processes the turn with
the campaign's battle mode set to ``mode``: the turn stops at its battles step with one Battle
(unless ``mode`` is "auto").
"""

from __future__ import annotations

from campaign import versioning
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import adapters
from campaign.eventhorizon.models import Fleet, Ship
from campaign.models import Campaign, Turn
from campaign.rules.eventhorizon.mapgen import Terrain


def play(campaign, turns):
    """Let the computer play every seat for some turns (ships get built)."""
    campaign.empires.update(is_bot=True)
    for _ in range(turns):
        eh_actions.write_bot_orders(campaign_id=campaign.pk)
        eh_actions.process_turn(campaign_id=campaign.pk)
    campaign.refresh_from_db()


def _free_neighbour(state, target, avoid):
    for c in state.grid.neighbours(target):
        if state.terrain_at(c) in (Terrain.EMPTY,) and c not in avoid and state.world_at(c) is None:
            return c
    raise AssertionError(f"no empty hex next to {target}")


def contact_turn(campaign: Campaign, mode: str = "tabletop", *, ships_per_side: int | None = 1,
                 requests: str = "nobody", reserve: bool = True) -> Turn:
    """Process a turn in which seat 1 invades seat 2's fleet's hex. Returns the turn.

    Each side keeps ``ships_per_side`` ships (default one: a corvette each, the battle these
    tests were written for, as three computer turns left each side before the set-up round)."""
    if not Fleet.objects.filter(campaign=campaign, owner__seat=2).exists() or \
            not Fleet.objects.filter(campaign=campaign, owner__seat=1).exists():
        play(campaign, 3)
    campaign.empires.update(is_bot=False, auto_bot=False)
    Campaign.objects.filter(pk=campaign.pk).update(battle_mode=mode, battle_requests=requests)
    campaign.refresh_from_db()
    defender = Fleet.objects.filter(campaign=campaign, owner__seat=2).order_by("number").first()
    attacker = Fleet.objects.filter(campaign=campaign, owner__seat=1).order_by("number").first()
    # Gather each side's ships into its fleet, up to ships_per_side; with ``reserve`` one more
    # ship of each side waits in a fleet of its own away from the battle (so that losing the
    # battle does not end the campaign: only ships in play count, docs/rulings.md VC3); drop the rest.
    state = adapters.load_state(campaign)
    target = (defender.x, defender.y)
    start = _free_neighbour(state, target, {(attacker.x, attacker.y)})
    far = [c for c in state.grid.cells() if state.terrain_at(c) is Terrain.EMPTY and state.world_at(c) is None
           and min(state.grid.distance(c, target), state.grid.distance(c, start)) >= 3]
    number = max(Fleet.objects.filter(campaign=campaign).values_list("number", flat=True)) + 1
    for fleet, seat in ((attacker, 1), (defender, 2)):
        ships = list(Ship.objects.filter(campaign=campaign, owner__seat=seat).order_by("number"))
        keep = ships[:ships_per_side] if ships_per_side else ships
        Ship.objects.filter(pk__in=[s.pk for s in keep]).update(fleet=fleet)
        spare = ships[len(keep):len(keep) + 1] if reserve else []
        kept = [fleet.pk]
        if spare:
            at = far.pop(0)
            extra = Fleet.objects.create(campaign=campaign, owner=fleet.owner, number=number, x=at[0], y=at[1])
            number += 1
            Ship.objects.filter(pk=spare[0].pk).update(fleet=extra)
            kept.append(extra.pk)
        Ship.objects.filter(campaign=campaign, owner__seat=seat).exclude(pk__in=[s.pk for s in keep + spare]).delete()
        Fleet.objects.filter(campaign=campaign, owner__seat=seat).exclude(pk__in=kept).delete()
    versioning.bump(campaign.pk)  # queryset updates send no signal (campaign/versioning.py)
    Fleet.objects.filter(pk=attacker.pk).update(x=start[0], y=start[1])
    e1 = campaign.empires.get(seat=1)
    e2 = campaign.empires.get(seat=2)
    eh_actions.submit_orders(empire_id=e1.pk, raw={"moves": [{"fleet": attacker.number, "path": [list(target)]}]},
                          ready=False)
    eh_actions.submit_orders(empire_id=e2.pk, raw={"standing": {"invasion": [{"response": "fight"}]}}, ready=False)
    turn = eh_actions.process_turn(campaign_id=campaign.pk)
    campaign.refresh_from_db()
    return Turn.objects.get(campaign=campaign, number=turn.number)
