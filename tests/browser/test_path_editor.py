"""Issue 23 item 2 at phone width (390×844): the order page's path editor offers exactly the steps
the order check accepts (003 Campaign Movement; 003 Creating a Map: Black Hole, Worm Hole;
campaign/rules/eventhorizon/orders.py ``PathRules``): a black hole is never outlined nor taken, a
cell not next to the path's end is not added, and a worm hole jump costs no move, counted as the
server counts it. Screenshot: tests/artifacts/test_path_editor_*.png."""

from __future__ import annotations

from django.urls import reverse

from campaign.eventhorizon import adapters, visibility
from campaign.eventhorizon.models import Fleet, MapCell
from campaign.rules.eventhorizon.mapgen import Terrain
from campaign.rules.eventhorizon.orders import PathRules, fleet_speed


def _set_terrain(campaign, cell, terrain: Terrain) -> None:
    MapCell.objects.update_or_create(campaign=campaign, x=cell[0], y=cell[1], defaults={"terrain": terrain.value})


def _outlined(page) -> set:
    return {(int(x), int(y)) for x, y in page.evaluate(
        "() => Array.from(document.querySelectorAll('#order-map .cell.reach'))"
        ".map(g => [g.dataset.x, g.dataset.y])")}


def _click(page, c) -> None:
    page.locator(f'#order-map .cell[data-x="{c[0]}"][data-y="{c[1]}"]').dispatch_event("click")


def test_the_path_editor_offers_only_steps_the_check_accepts(new_page, login, shot, small_campaign):
    campaign = small_campaign
    fleet = Fleet.objects.filter(campaign=campaign, owner__seat=1).first()
    start = (fleet.x, fleet.y)
    state = visibility.state_at(campaign)
    grid = state.grid
    worlds = {w.coord for w in state.worlds}
    occupied = worlds | {f.coord for f in state.fleets}
    free = [c for c in grid.neighbours(start) if c not in occupied]
    hole, gate_in = free[0], free[1]
    gate_out = max((c for c in grid.cells() if c not in occupied and grid.distance(c, start) >= 5),
                   key=lambda c: grid.distance(c, start))
    _set_terrain(campaign, hole, Terrain.BLACK_HOLE)
    _set_terrain(campaign, gate_in, Terrain.WORMHOLE)
    _set_terrain(campaign, gate_out, Terrain.WORMHOLE)
    adapters._MAP_CACHE.clear()
    adapters._ORDERS_STATE_CACHE.clear()
    state = visibility.state_at(campaign)
    rules, speed = PathRules.of(state), fleet_speed(state, state.fleet(fleet.number).ships)
    assert speed >= 1

    def legal(here, spent):
        return {
            c
            for c in grid.cells()
            if (cost := rules.step_cost(grid, here, c)) is not None and spent + cost <= speed
        }

    page = new_page(phone=True)
    login(page, "bob", "pw-bob")
    page.goto(reverse("campaign-orders", args=[campaign.pk]))
    marker = page.locator(f'#order-map .fleet.mine[data-fleet="{fleet.number}"]')
    marker.dispatch_event("click")
    page.wait_for_selector("#order-map .cell.reach", state="attached")
    assert _outlined(page) == legal(start, 0)
    assert hole not in _outlined(page)

    _click(page, hole)  # the black hole: not taken
    far = next(c for c in grid.cells() if grid.distance(c, start) >= 3 and c != gate_out)
    _click(page, far)  # not next to the path's end: not taken
    assert page.locator("#plot-steps").inner_text() == f"0 of {speed} moves"

    _click(page, gate_in)  # one move into the worm hole
    assert page.locator("#plot-steps").inner_text() == f"1 of {speed} moves"
    assert gate_out in _outlined(page), "the jump to the other worm hole is a step the check accepts"
    assert _outlined(page) == legal(gate_in, 1)
    _click(page, gate_out)  # the jump costs no move
    assert page.locator("#plot-steps").inner_text() == f"1 of {speed} moves"
    assert _outlined(page) == legal(gate_out, 1)
    shot(page, "plotted")
    page.wait_for_function("() => /\\(1 of \\d+ moves\\)/.test(document.getElementById('preview-lines').textContent)")
    assert f"to ({gate_out[0]}, {gate_out[1]}) (1 of {speed} moves)" in page.locator("#preview-lines").inner_text()
    assert page.locator("#preview-status").inner_text() in ("orders are valid", "valid, with a warning")
