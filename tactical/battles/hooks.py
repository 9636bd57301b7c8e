"""The battle app's side of ``campaign/battles.py``: what the platform may ask of battles.
``tactical/apps.py`` registers ``TacticalBattles()`` when Django starts."""

from __future__ import annotations

from django.db.models import Q

from tactical.battles import actions, forms
from tactical.hosts.eventhorizon import lifecycle
from tactical.models import Battle


class TacticalBattles:
    """Implements ``campaign.battles.BattleHandler`` with the battle lifecycle and actions."""

    game_chooser = staticmethod(lifecycle.game_chooser)
    battle_json = staticmethod(lifecycle.battle_json)
    battle_from_json = staticmethod(lifecycle.battle_from_json)
    open_battles = staticmethod(lifecycle.open_battles)
    results_for = staticmethod(lifecycle.results_for)
    auto_settled_for = staticmethod(lifecycle.auto_settled_for)
    seat_name = staticmethod(forms.seat_name)

    @staticmethod
    def book_choices(layer: str) -> list[tuple[str, str]]:
        from tactical.rules import registry

        return [(name, registry.book_title(name)) for name in registry.books_for(layer)]

    @staticmethod
    def battles_begun(campaign) -> bool:
        return Battle.objects.filter(campaign=campaign).exists()

    @staticmethod
    def finish_turn_if_ready(campaign):
        return lifecycle.finish_turn_if_ready(campaign)

    @staticmethod
    def discard_battles(campaign, from_turn: int) -> list[int]:
        battles = list(Battle.objects.filter(campaign=campaign, turn__gte=from_turn).values_list("pk", flat=True))
        Battle.objects.filter(pk__in=battles).delete()  # their steps and logs go with them
        return battles

    @staticmethod
    def hidden_dice(campaign, seat: int) -> frozenset[int]:
        from tactical.play import embedded

        running = (Battle.objects.filter(campaign=campaign, status=Battle.Status.PLAYING)
                   .filter(Q(attacker=seat) | Q(defender=seat)).order_by("pk"))
        return frozenset(seq for battle in running for seq in embedded.hidden_dice(battle, seat))

    @staticmethod
    def set_battle_preference(*, empire_id: int, user, preference: str) -> None:
        actions.set_battle_preference(empire_id=empire_id, user=user, preference=preference)

    @staticmethod
    def sweep_due(now=None) -> tuple[int, int]:
        from tactical.hosts.cam import scenarios as cam
        from tactical.play import actions as play

        return actions.settle_due_battles(now), play.play_due_activations(now) + cam.play_due(now)

    @staticmethod
    def waiting_battles(user, campaign, turn_number: int) -> list:
        return list(actions.visible_battles(user).filter(campaign=campaign, turn=turn_number).order_by("index"))

    @staticmethod
    def unresolved_battles(seats: dict[int, int], moderated: list[int]) -> dict[int, list]:
        q = Q(pk__in=[])
        for campaign_id, seat in seats.items():
            q |= Q(campaign_id=campaign_id) & (Q(attacker=seat) | Q(defender=seat))
        for campaign_id in moderated:
            q |= Q(campaign_id=campaign_id, status=Battle.Status.DISPUTED)
        by_campaign: dict[int, list] = {}
        for battle in Battle.objects.filter(q).exclude(status=Battle.Status.RESOLVED).order_by("turn", "index"):
            by_campaign.setdefault(battle.campaign_id, []).append(battle)
        return by_campaign
