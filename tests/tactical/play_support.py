"""Shared set-up for the embedded-battle tests (tests/tactical/test_play*.py, tests/browser/
test_embedded_battle.py): a small battle between bob (seat 1) and carol (seat 2) of the
``small_campaign`` fixture, and a stand-in for ``tactical.hosts.eventhorizon.lifecycle.record_result`` when the
lead's lifecycle module does not provide it."""

from __future__ import annotations

import importlib

from campaign.rules.eventhorizon.designs import GALIOT, SULTAN, SWORD
from tactical.models import Battle


def ship(ship_id: int, design, name: str = "", damage: dict | None = None, hero: bool = False) -> dict:
    return {"id": ship_id, "name": name or f"Ship {ship_id}", "design_id": 0, "design": design.to_dict(),
            "damage": damage or {}, "hero_crew": hero}


def setup_json(*, attacker: int = 1, defender: int = 2, world=None, terrain: str = "empty", aewa: bool = False,
               attacker_ships=None, defender_ships=None) -> dict:
    return {
        "hex": [3, 4], "terrain": terrain, "world": world, "attacker": attacker, "defender": defender, "aewa": aewa,
        "sides": {
            str(attacker): {"name": "Bob's Realm", "colour": "#cc3333",
                            "ships": attacker_ships if attacker_ships is not None else
                            [ship(11, GALIOT, "Kestrel"), ship(12, SWORD, "Lance")]},
            str(defender): {"name": "Carol's Combine", "colour": "#3366cc",
                            "ships": defender_ships if defender_ships is not None else
                            [ship(21, SULTAN, "Bastion"), ship(22, GALIOT, "Wasp")]},
        },
    }


def make_battle(campaign, *, index: int = 1, setup: dict | None = None, start: bool = True, **kwargs) -> Battle:
    setup = setup or setup_json(**kwargs)
    battle = Battle.objects.create(
        campaign=campaign, turn=campaign.turn, index=index, x=setup["hex"][0], y=setup["hex"][1],
        attacker=setup["attacker"], defender=setup["defender"], aewa=setup["aewa"], mode=Battle.Mode.TACTICAL,
        status=Battle.Status.WAITING, setup=setup)
    if start:
        from tactical.play import actions as play

        play.start_embedded(battle)
        battle.refresh_from_db()
    return battle


class Recorder:
    """Stands in for the lead's ``record_result``: records the call and resolves the battle."""

    def __init__(self):
        self.calls = []

    def __call__(self, *, battle, result, how, user=None):
        from django.utils import timezone

        self.calls.append({"battle": battle.pk, "result": result, "how": how, "user": user})
        battle.result = result
        battle.status = Battle.Status.RESOLVED
        battle.resolved_how = how
        battle.resolved_at = timezone.now()
        battle.save(update_fields=["result", "status", "resolved_how", "resolved_at"])


def patch_record_result(monkeypatch) -> Recorder:
    """Replace ``tactical.hosts.eventhorizon.lifecycle.record_result`` with a Recorder."""
    recorder = Recorder()
    module = importlib.import_module("tactical.hosts.eventhorizon.lifecycle")
    monkeypatch.setattr(module, "record_result", recorder)
    return recorder
