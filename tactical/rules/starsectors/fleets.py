"""Random fleets by points (004 III) for the sample set-ups, the benches and the what-if runs;
random terrain (VII.A). ``rng`` is a ``random.Random`` the caller seeds."""

from __future__ import annotations

from typing import Any

from .cards import COMMAND_CREW_COST, DILITHIUM_COST, MINE_COST, ROSTER, TRILITHIUM_COST
from .setup import KINDS


class DiceRng:
    """The few ``random.Random`` methods the set-up draws need, rolled with dice (rule books never
    import ``random``): what-if battles draw their fleets and terrain from their own seed."""

    def __init__(self, dice) -> None:
        self.dice = dice

    def randrange(self, low: int, high: int) -> int:
        if high - low <= 1:
            return low
        return low + self.dice.roll(1, high - low, "set-up draw").faces[0] - 1

    def randint(self, low: int, high: int) -> int:
        return self.randrange(low, high + 1)

    def choice(self, seq):
        return seq[self.randrange(0, len(seq))]

    def random(self) -> float:
        return (self.dice.roll(1, 1000, "set-up draw").faces[0] - 1) / 1000


def _pick(rng, cards):
    """A card drawn with a chance in proportion to its points (a fleet is bought for its
    warships, not a swarm of one-point tenders)."""
    roll = rng.randrange(0, sum(c.points for c in cards))
    for card in cards:
        roll -= card.points
        if roll < 0:
            return card
    return cards[-1]  # pragma: no cover - the roll is below the sum


def random_fleet(rng, points: int, max_ships: int = 16) -> list[dict[str, Any]]:
    """Cards bought at random while one fits (each with a chance in proportion to its points), a
    command crew now and then, the points left on mines, dilithium and trilithium within cargo
    (III: what you don't spend, you lose)."""
    cards = sorted(ROSTER.values(), key=lambda c: c.key)
    left, ships = points, []
    while len(ships) < max_ships:
        fits = [c for c in cards if c.points <= left]
        if not fits:
            break
        card = _pick(rng, fits)
        ship = {"card": card.key, "crew": False, "mines": 0, "dilithium": 0, "trilithium": 0}
        left -= card.points
        if left >= COMMAND_CREW_COST and rng.random() < 0.25:
            ship["crew"] = True
            left -= COMMAND_CREW_COST
        ships.append(ship)
    for ship in ships:
        room = ROSTER[ship["card"]].cargo
        for item, cost in (("trilithium", TRILITHIUM_COST), ("dilithium", DILITHIUM_COST), ("mines", MINE_COST)):
            while room and left >= cost and rng.random() < 0.5:
                ship[item] += 1
                room -= 1
                left -= cost
    return ships


def random_terrain(rng, width: int, height: int, count: int) -> list[dict[str, Any]]:
    """Tiles away from the deployment edges (two columns and rows kept clear), no two touching;
    worm holes in pairs."""
    tiles, used = [], set()
    kinds = [k for k in KINDS if k != "wormhole"]
    for _round in range(count * 4):
        if len(tiles) >= count:
            break
        kind = rng.choice(kinds + ["wormhole"])
        picks = 2 if kind == "wormhole" else 1
        for _ in range(picks):
            for _try in range(30):
                at = (rng.randrange(3, width - 3), rng.randrange(2, height - 2))
                if not any(abs(u[0] - at[0]) <= 3 and abs(u[1] - at[1]) <= 3 for u in used):  # 3 hexes clear
                    used.add(at)
                    tiles.append({"kind": kind, "at": list(at)})
                    break
    return tiles[:count + 1]


def sample_setup(rng, points: int = 25, sides: int = 2, max_ships: int = 16) -> dict[str, Any]:
    width, height = (14, 10) if points <= 40 else (20, 16)
    return {"width": width, "height": height, "points": points,
            "sides": {str(s): {"ships": random_fleet(rng, points, max_ships)} for s in range(1, sides + 1)},
            "terrain": random_terrain(rng, width, height, rng.randint(2, 5))}


__all__ = ["DiceRng", "random_fleet", "random_terrain", "sample_setup"]
