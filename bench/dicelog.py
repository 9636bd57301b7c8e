"""Dice log benchmark (ruling DL5): the campaign's dice page while a battle is fought online.

While an embedded battle is being fought, the dice log hides from a reader the purposes of the
dice rolled for the other side's hidden actions (docs/rulings.md DL5); to know which, the site
asks ``tactical.play.embedded.hidden_dice``, which replays the whole battle. This measures what
that costs a player's view of ``/campaigns/{id}/dice/`` as the battle grows.

Builds a CAM campaign in a throwaway database (Django's test database: in-memory SQLite, or
``test_<name>`` beside ``DATABASE_URL`` on PostgreSQL) whose first scenario is fought online on
the Buoyz engine between two big fleets (``--scale`` copies of the CAM test fleets, war talons
that cloak among them), and plays it by the doctrine's choices through ``online.act``, as its
players would, stopping at each checkpoint of ``--steps`` (``unfinished``: the last step before
the battle would end). At each one it prints, for the dice page (page 1, 50 rows) requested
through Django's test client as a player of the battle:

    warm     cpu ms/req over --requests views, the cache as the site leaves it (after the first)
    cold     cpu ms/req with the cache emptied before every view: the first view after a step
    queries  database queries of one view (warm, then cold)
    replay   cpu ms of one replay of the battle for seat 1's hidden dice (``replay_hidden_dice``)
    mod      cpu ms/req of the same page for the moderator, who reads every purpose (no replay)

``--eh K`` measures an Event Horizon campaign instead (12×12 hex, bob and carol in seats 1 and 2)
with K embedded battles of ``--ships`` ships a side fought at once between them, each played to
every checkpoint (steps per battle), and times the dice log's API (``GET
/api/campaigns/{id}/dice/``, its first page) as well as the page.

``cpu ms/req`` is ``time.process_time`` in this process (the test client, Django, the
template and SQLite's own work; PostgreSQL's CPU is not in it on PostgreSQL): unlike wall time it
hardly moves when other work shares the machine. Fixed seed: the same battle every run.

    .venv/bin/python bench/dicelog.py [--steps 0,200,1000,unfinished] [--requests 40] [--scale 12]
    .venv/bin/python bench/dicelog.py --eh 4 [--ships 8] [--steps 0,50,unfinished]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# The script's own folder would come first on sys.path, where bench/http.py shadows the standard
# library's http package; put the project root there instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402

# The CAM test fleets (tests/cam/conftest.py), ``--scale`` times over.
UFP_FLEET = ["constitution"] * 4 + ["firecat"] * 2 + ["kobayashi_maru"] * 2 + ["runabouts"] * 2
KLINGON_FLEET = ["d7", "d7", "war_talon", "war_talon", "firecat"]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--steps",
        default="0,200,1000,unfinished",
        help="checkpoints: steps of each battle, 'unfinished' the last before its end (default 0,200,1000,unfinished)",
    )
    p.add_argument("--requests", type=int, default=40, help="views timed per figure (default 40)")
    p.add_argument("--scale", type=int, default=12,
                   help="copies of each side's CAM test fleet; bigger fights longer (default 12: about 1,440 steps)")
    p.add_argument("--eh", type=int, default=0, metavar="K",
                   help="an Event Horizon campaign with K embedded battles instead of the CAM one (default 0: CAM)")
    p.add_argument("--ships", type=int, default=8, help="ships a side in each Event Horizon battle (default 8)")
    p.add_argument("--seed", default="bench-dicelog", help="the campaign's dice seed (default bench-dicelog)")
    return p.parse_args(argv)


class Fixture:
    """The campaign, its moderator, the player who reads (seat 1), the players by seat, and the
    battles being fought; ``play_to`` plays each battle on to a checkpoint."""

    campaign: object
    moderator: object
    players: dict
    battles: list

    def play_to(self, battle, target: int | None) -> bool:
        raise NotImplementedError


class CamFixture(Fixture):
    def __init__(self, scale: int, seed: str):
        """A CAM campaign whose scenario 1 is fought online, not yet begun."""
        from campaign.cam import actions, online
        from campaign.cam.models import CamShip
        from tactical.models import Battle

        alice, bob, carol = users()
        points = 150 * scale
        campaign = actions.create_cam_campaign(
            user=alice,
            name="bench dice log",
            period=2,
            starting_points=points,
            points_level=points,
            scenarios=2,
            seed=seed,
            players=[
                {"username": "bob", "name": "Bob's Squadron", "faction": "UFP", "fleet": UFP_FLEET * scale},
                {
                    "username": "carol",
                    "name": "Carol's Raiders",
                    "faction": "Klingons",
                    "fleet": KLINGON_FLEET * scale,
                },
            ],
        )
        actions.start(campaign_id=campaign.pk, user=alice)
        actions.generate_scenario(campaign_id=campaign.pk, user=alice, nature="open_battle")
        online.set_mode(campaign_id=campaign.pk, user=alice, number=1, mode="online")
        for seat, user in ((1, bob), (2, carol)):
            ships = CamShip.objects.filter(player__cam=campaign.cam, player__seat=seat).order_by("number")
            actions.select_forces(
                campaign_id=campaign.pk, user=user, ships=list(ships.values_list("number", flat=True))
            )
        actions.roll_table(campaign_id=campaign.pk, user=bob)
        self.campaign, self.moderator, self.players = campaign, alice, {1: bob, 2: carol}
        self.battles = [Battle.objects.get(campaign=campaign)]
        self.summary = (
            f"CAM, scenario 1 fought online on the Buoyz engine: {len(UFP_FLEET) * scale} UFP ships against "
            f"{len(KLINGON_FLEET) * scale} Klingon ({scale}× the CAM test fleets)"
        )
        self.paths = {"page": f"/campaigns/{campaign.pk}/dice/"}  # the log's API serves Event Horizon campaigns only

    def play_to(self, battle, target: int | None) -> bool:
        """The doctrine's choices as the players' decisions until the battle has ``target`` steps
        (None: until the next decision would end it). False if the battle ended first."""
        from campaign.cam import online
        from campaign.cam.models import CamScenario
        from campaign.dice import CampaignDice
        from tactical.hosts.cam import scenarios as tcam
        from tactical.rules import buoyz as bz
        from tactical.rules.buoyz import play as codec

        campaign = self.campaign
        while True:
            battle.refresh_from_db()
            if battle.status != "playing":
                return False
            if target is not None and battle.steps.count() >= target:
                return True
            state = tcam.current_state(battle, CamScenario.objects.get(cam=campaign.cam, number=1))
            seat, action = tcam.deciding(state), tcam.doctrine_choice(state)
            if target is None:
                # The decision played out on dice that are never logged: would it end the battle?
                campaign.refresh_from_db()
                dice = CampaignDice(campaign, phase=battle.dice_phase, turn=battle.turn, concerns=battle.seats)
                if bz.apply(state, action, dice).state.over:
                    return True
            online.act(campaign_id=campaign.pk, user=self.players[seat], number=1, action=codec.to_json(action))


class EventHorizonFixture(Fixture):
    def __init__(self, battles: int, ships: int, seed: str):
        """An Event Horizon campaign with ``battles`` embedded battles between seats 1 and 2."""
        from campaign.eventhorizon import actions as eh_actions
        from campaign.rules.eventhorizon.designs import GALIOT, SULTAN, SWORD
        from tactical.models import Battle
        from tactical.play import actions as play

        alice, bob, carol = users()
        campaign = eh_actions.create_campaign(name="bench dice log", grid="hex", width=12, height=12, players=2,
                                           seed=seed, moderator=alice)
        campaign.empires.filter(seat=1).update(user=bob, name="Bob's Realm")
        campaign.empires.filter(seat=2).update(user=carol, name="Carol's Combine")
        designs = (GALIOT, SWORD, SULTAN)

        def fleet(first: int) -> list[dict]:
            return [{"id": first + i, "name": f"Ship {first + i}", "design_id": 0,
                     "design": designs[i % 3].to_dict(), "damage": {}, "hero_crew": False} for i in range(ships)]

        self.battles = []
        for index in range(1, battles + 1):
            setup = {"hex": [index, 4], "terrain": "empty", "world": None, "attacker": 1, "defender": 2, "aewa": False,
                     "sides": {"1": {"name": "Bob's Realm", "colour": "#cc3333", "ships": fleet(100 * index)},
                               "2": {"name": "Carol's Combine", "colour": "#3366cc", "ships": fleet(100 * index + 50)}}}
            battle = Battle.objects.create(campaign=campaign, turn=campaign.turn, index=index, x=index, y=4,
                                           attacker=1, defender=2, aewa=False, mode=Battle.Mode.TACTICAL,
                                           status=Battle.Status.WAITING, setup=setup)
            play.start_embedded(battle)
            self.battles.append(battle)
        self.campaign, self.moderator, self.players = campaign, alice, {1: bob, 2: carol}
        self.summary = (f"Event Horizon, 12×12 hex, {battles} embedded battles fought at once between seats 1 and 2, "
                        f"{ships} ships a side each")
        self.paths = {"page": f"/campaigns/{campaign.pk}/dice/", "api": f"/api/campaigns/{campaign.pk}/dice/"}

    def play_to(self, battle, target: int | None) -> bool:
        from campaign.dice import CampaignDice
        from tactical.play import actions as play
        from tactical.play import embedded

        while True:
            battle.refresh_from_db()
            if battle.status != "playing":
                return False
            if target is not None and battle.steps.count() >= target:
                return True
            rules = embedded.rules_for(battle)
            state = embedded.current_state(battle)
            seat = rules.acting_side(state)
            action = play.doctrine_choice(rules, state, seat)
            if target is None:
                self.campaign.refresh_from_db()
                dice = CampaignDice(self.campaign, phase=battle.dice_phase, turn=battle.turn, concerns=battle.seats)
                if rules.is_over(rules.apply(state, action, dice).state):
                    return True
            play.take_action(battle_id=battle.pk, user=self.players[seat], action_json=rules.action_json(action))


def users():
    from django.contrib.auth import get_user_model

    User = get_user_model()
    return tuple(User.objects.create_user(n, f"{n}@example.com", "pw") for n in ("alice", "bob", "carol"))


def cpu_per_request(client: Client, path: str, requests: int, *, cold: bool) -> float:
    start = time.process_time()
    for _ in range(requests):
        if cold:
            cache.clear()
        response = client.get(path)
        assert response.status_code == 200, response.status_code
    return (time.process_time() - start) * 1000 / requests


def queries(client: Client, path: str, *, cold: bool) -> int:
    if cold:
        cache.clear()
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


def replay_ms(battles) -> tuple[float, int]:
    """CPU ms of replaying every battle for seat 1's hidden dice, and how many rows they are."""
    from tactical.play import embedded

    start = time.process_time()
    hidden = 0
    for battle in battles:
        battle.refresh_from_db()
        if hasattr(embedded, "replay_hidden_dice"):
            hidden += len(embedded.replay_hidden_dice(battle, sides=(1,))[1])
        else:  # the code before the cache: hidden_dice replays the battle on every call
            hidden += len(embedded.hidden_dice(battle, 1))
    return (time.process_time() - start) * 1000, hidden


def measure(fx: Fixture, path: str, requests: int) -> dict:
    reader, mod = Client(), Client()
    reader.force_login(fx.players[1])
    mod.force_login(fx.moderator)
    reader.get(path)  # warm-up: the templates, the session
    mod.get(path)
    return {
        "warm": cpu_per_request(reader, path, requests, cold=False),
        "cold": cpu_per_request(reader, path, max(requests // 4, 3), cold=True),
        "q_warm": queries(reader, path, cold=False),
        "q_cold": queries(reader, path, cold=True),
        "mod": cpu_per_request(mod, path, requests, cold=False),
    }


def main(argv=None) -> None:
    args = parse_args(argv)
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        from campaign.models import DiceRoll

        start = time.perf_counter()
        fx = EventHorizonFixture(args.eh, args.ships, args.seed) if args.eh else CamFixture(args.scale, args.seed)
        cache.clear()
        print(f"database: {connection.vendor}; cache: {settings.CACHES['default']['BACKEND'].rsplit('.', 1)[-1]}; "
              f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        print(f"campaign: {fx.summary}; built in {time.perf_counter() - start:.1f} s")
        print(f"read as {fx.players[1].username} (seat 1), first page; {args.requests} views per warm figure, "
              f"{max(args.requests // 4, 3)} per cold one")
        print(f"{'what':>5} {'steps':>12} {'dice':>6} {'hidden':>7} {'warm cpu ms/req':>16} {'cold cpu ms/req':>16} "
              f"{'queries w/c':>12} {'replay ms':>10} {'mod cpu ms/req':>15}")
        for checkpoint in args.steps.split(","):
            target = None if checkpoint.strip() == "unfinished" else int(checkpoint)
            live = [b for b in fx.battles if fx.play_to(b, target)]
            if not live:
                print(f"{checkpoint:>12}: every battle ended first")
                break
            replay, hidden = replay_ms(live)
            steps = "/".join(str(b.steps.count()) for b in live) + ("*" if target is None else "")
            dice = sum(DiceRoll.objects.filter(campaign=fx.campaign, phase=b.dice_phase).count() for b in live)
            for what, path in fx.paths.items():
                m = measure(fx, path, args.requests)
                print(f"{what:>5} {steps:>12} {dice:>6} {hidden:>7} {m['warm']:>16.2f} {m['cold']:>16.2f} "
                      f"{m['q_warm']:>5}/{m['q_cold']:<6} {replay:>10.1f} {m['mod']:>15.2f}")
        print("steps: of each battle still fought (* the last step before it would end); dice: rolled in them; "
              "hidden: rows masked to seat 1; replay: one replay of them all for seat 1's hidden dice")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
