"""Building a campaign turn that hands a battle off (for lifecycle, tabletop and play tests).

``contact_turn(campaign, mode)`` takes a campaign with two human seats (1 and 2), puts seat 1's
first fleet next to seat 2's first fleet, orders it into that hex and processes the turn with
the campaign's battle mode set to ``mode``: the turn stops at its battles step with one Battle
(unless ``mode`` is "auto").
"""

from __future__ import annotations

from campaign import actions, adapters
from campaign.models import Campaign, Fleet, Ship, Turn
from campaign.rules.eventhorizon.mapgen import Terrain


def play(campaign, turns):
    """Let the computer play every seat for some turns (ships get built)."""
    campaign.empires.update(is_bot=True)
    for _ in range(turns):
        actions.write_bot_orders(campaign_id=campaign.pk)
        actions.process_turn(campaign_id=campaign.pk)
    campaign.refresh_from_db()


def _free_neighbour(state, target, avoid):
    for c in state.grid.neighbours(target):
        if state.terrain_at(c) in (Terrain.EMPTY,) and c not in avoid and state.world_at(c) is None:
            return c
    raise AssertionError(f"no empty hex next to {target}")


def contact_turn(campaign: Campaign, mode: str = "tabletop", *, ships_per_side: int | None = 2,
                 requests: str = "nobody") -> Turn:
    """Process a turn in which seat 1 invades seat 2's fleet's hex. Returns the turn."""
    if not Fleet.objects.filter(campaign=campaign, owner__seat=2).exists() or \
            not Fleet.objects.filter(campaign=campaign, owner__seat=1).exists():
        play(campaign, 3)
    campaign.empires.update(is_bot=False, auto_bot=False)
    Campaign.objects.filter(pk=campaign.pk).update(battle_mode=mode, battle_requests=requests)
    campaign.refresh_from_db()
    defender = Fleet.objects.filter(campaign=campaign, owner__seat=2).order_by("number").first()
    attacker = Fleet.objects.filter(campaign=campaign, owner__seat=1).order_by("number").first()
    # Gather each side's ships into its fleet, up to ships_per_side, and drop the rest.
    for fleet, seat in ((attacker, 1), (defender, 2)):
        ships = list(Ship.objects.filter(campaign=campaign, owner__seat=seat).order_by("number"))
        keep = ships[:ships_per_side] if ships_per_side else ships
        Ship.objects.filter(pk__in=[s.pk for s in keep]).update(fleet=fleet)
        Ship.objects.filter(campaign=campaign, owner__seat=seat).exclude(pk__in=[s.pk for s in keep]).delete()
        Fleet.objects.filter(campaign=campaign, owner__seat=seat).exclude(pk=fleet.pk).delete()
    state = adapters.load_state(campaign)
    target = (defender.x, defender.y)
    start = _free_neighbour(state, target, {(attacker.x, attacker.y)})
    Fleet.objects.filter(pk=attacker.pk).update(x=start[0], y=start[1])
    e1 = campaign.empires.get(seat=1)
    e2 = campaign.empires.get(seat=2)
    actions.submit_orders(empire_id=e1.pk, raw={"moves": [{"fleet": attacker.number, "path": [list(target)]}]},
                          ready=False)
    actions.submit_orders(empire_id=e2.pk, raw={"standing": {"invasion": [{"response": "fight"}]}}, ready=False)
    turn = actions.process_turn(campaign_id=campaign.pk)
    campaign.refresh_from_db()
    return Turn.objects.get(campaign=campaign, number=turn.number)
