"""One entry point for checking a player's raw orders, whatever the round (pure Python).

    check_round_orders(state, seat, raw, design_names, radius) -> Preview

In the set-up round (``setup.is_setup``) orders are set-up purchases (``setup.validate_setup_orders``;
standing orders are checked as in any turn); afterwards they are turn orders
(``orders.check_orders``), and the preview carries the warnings of ``warnings.orders_warnings``.
Raises ``OrderError`` (``OrderErrors`` listing every problem) as ``orders.check_orders`` does.

Everything is computed from what the seat may see (``fog.orders_view`` with the campaign's
detection ``radius``; None: fog of war is off): a warning about a fleet the seat cannot see would
let it probe the map by moving its fleets in the editor (issue 23 item 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .fog import orders_view
from .orders import (
    OrderError,
    OrderErrors,
    Orders,
    Preview,
    parse_orders_collecting,
    validate_orders,
)
from .setup import is_setup, validate_setup_orders
from .state import CampaignState
from .warnings import orders_warnings


def check_round_orders(state: CampaignState, seat: int, raw: Any, design_names: Mapping[str, int],
                       radius: int | None) -> Preview:
    return check_viewed_orders(orders_view(state, seat, radius), seat, raw, design_names)


def check_viewed_orders(view: CampaignState, seat: int, raw: Any, design_names: Mapping[str, int]) -> Preview:
    """``check_round_orders`` against the seat's ``orders_view`` made already (a caller that keeps
    the view between requests: campaign/eventhorizon/adapters.py, ``view_for_orders``)."""
    if is_setup(view):
        return _check_setup(view, seat, raw, design_names)
    # Parsed once: the orders checked are the orders warned about (a parse error raises first).
    orders, errors = parse_orders_collecting(raw)
    preview = validate_orders(view, seat, orders, design_names, errors=errors)
    found = orders_warnings(view, seat, orders, preview)
    return replace(preview, warnings=preview.warnings + found) if found else preview


def _check_setup(state: CampaignState, seat: int, raw: Any, design_names: Mapping[str, int]) -> Preview:
    """Every problem of set-up orders: their shape, their standing orders (as in any turn), then
    the set-up purchase (the first item that fails, as for a turn's purchases)."""
    orders, errors = parse_orders_collecting(raw)
    errors = list(errors)
    if orders.standing is not None:
        try:
            validate_orders(state, seat, Orders(standing=orders.standing), design_names)
        except OrderError as exc:
            errors += exc.problems
    preview = None
    try:
        preview = validate_setup_orders(state, seat, orders, design_names)
    except OrderError as exc:
        errors += exc.problems
    if errors:
        raise errors[0] if len(errors) == 1 else OrderErrors(errors)
    return preview
