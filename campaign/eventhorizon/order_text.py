"""Reading helpers for orders as text (docs/orders.md, "Orders as text"): the order secret's hash,
the per-turn key a template carries instead of the secret, and the orders template a turn report
email and the paste page hold. Nothing here writes; the checker and the secret's rotation are
actions (campaign/eventhorizon/actions/textorders.py).
"""
from __future__ import annotations

import hashlib
import hmac

from django.utils.crypto import salted_hmac

from campaign.eventhorizon.models import OrderSecret
from campaign.models import Empire, TurnOrders

from ..rules.eventhorizon.textorders import Header, format_orders

TURN_KEY_SALT = "campaign.textorders.turn-key"
SECRET_PREFIX = "sha256$"
DEFAULT_STANDING = {"invasion": [], "loss_order": "cheapest", "initiative": "first"}
FETCH = object()  # "look the seat's secret up" (the default); callers that have read it pass it on


def hash_secret(secret: str) -> str:
    """The stored form of an order secret. The secret is 128 random bits, so a fast hash is as
    safe as a slow password hash here, and lets the site check a thousand mails a second."""
    return SECRET_PREFIX + hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def secret_row(empire: Empire, row=FETCH) -> OrderSecret | None:
    """The seat's order secret, if its player made one (``row``: already read, e.g. by a
    ``select_related("order_secret")``; None if there is none)."""
    if row is FETCH:
        row = OrderSecret.objects.filter(empire=empire).order_by().first()
    # Bound to the player it was made for: a seat handed to someone else needs a new secret.
    return row if row is not None and empire.user_id is not None and row.user_id == empire.user_id else None


def turn_key(empire: Empire, turn_number: int, row=FETCH) -> str:
    """The key a template carries in place of the secret: valid for this seat, its player and
    this turn only, and no longer once the secret is rotated (docs/orders.md says why the site
    does not keep the secret itself)."""
    row = secret_row(empire, row)
    message = f"{empire.campaign_id}:{empire.seat}:{turn_number}:{empire.user_id}:{row.secret_hash if row else ''}"
    return f"T{turn_number}-" + salted_hmac(TURN_KEY_SALT, message, algorithm="sha256").hexdigest()[:24]


def secret_matches(empire: Empire, given: str, turn_number: int, row=FETCH) -> bool:
    """Constant-time: the seat's secret, or its turn key for ``turn_number``."""
    if empire.user_id is None:
        return False  # a computer seat nobody plays (one the computer took over still has its player)
    row = secret_row(empire, row)
    given_bytes = given.encode("utf-8", "surrogatepass")
    by_key = hmac.compare_digest(turn_key(empire, turn_number, row).encode(), given_bytes)
    by_secret = row is not None and hmac.compare_digest(row.secret_hash.encode(), hash_secret(given).encode())
    return by_key or by_secret


def secret_hash_matches(empire: Empire, given_hash: str, turn_number: int, row=FETCH) -> bool:
    """``secret_matches`` for a secret the mail store kept only as its hash (``hash_secret``)."""
    if empire.user_id is None or not given_hash:
        return False
    row = secret_row(empire, row)
    by_key = hmac.compare_digest(hash_secret(turn_key(empire, turn_number, row)).encode(), given_hash.encode())
    by_secret = row is not None and hmac.compare_digest(row.secret_hash.encode(), given_hash.encode())
    return by_key or by_secret


def header_for(empire: Empire, turn_number: int, secret=FETCH) -> Header:
    return Header(campaign=empire.campaign_id, seat=empire.seat, secret=turn_key(empire, turn_number, secret),
                  turn=turn_number)


def _standing(empire: Empire) -> dict:
    """The standing orders in force, written out in full (docs/orders.md, ``standing``)."""
    from ..rules.eventhorizon.orders import OrderError, Orders, orders_to_json, parse_standing

    try:
        return orders_to_json(Orders(standing=parse_standing(empire.standing_orders or DEFAULT_STANDING)))["standing"]
    except OrderError:
        return dict(DEFAULT_STANDING)


def _position_comments(empire: Empire) -> list[str]:
    """Comment lines with what the orders name: BP, fleets, dockyards (the player's own only)."""
    from ..rules.eventhorizon import economy as eh
    from ..rules.eventhorizon.orders import fleet_speed
    from . import adapters

    state, _ = adapters.state_for_orders(empire.campaign)  # cached while the state is unchanged
    lines = [f"BP banked: {state.empire(empire.seat).bp}"]
    for fleet in state.fleets:
        if fleet.owner == empire.seat:
            lines.append(f"Fleet {fleet.id} at {fleet.coord[0]},{fleet.coord[1]}: {len(fleet.ships)} ship(s) "
                         f"{', '.join(str(s) for s in fleet.ships)}; moves {fleet_speed(state, fleet.ships)}")
    for s in state.structures:
        if s.owner == empire.seat and s.resource is eh.Resource.DOCKYARD:
            lines.append(f"Dockyard {s.id} at {s.coord[0]},{s.coord[1]}")
    return lines


def orders_template(empire: Empire, turn_number: int, *, row: TurnOrders | None = None,
                    position: bool = True, secret=FETCH) -> str:
    """The order block for ``turn_number`` filled in for this seat: the header with its turn key,
    the stored orders (``row``) or none, and the standing orders in force written out — send it
    back as it is and it is a valid turn (fleets hold, standing orders kept)."""
    orders = dict(row.orders) if row is not None and isinstance(row.orders, dict) else {}
    orders.setdefault("standing", _standing(empire))
    comments = ["One order a line; lines starting with # are notes."]
    if position:
        comments += _position_comments(empire)
    try:
        return format_orders(orders, header=header_for(empire, turn_number, secret), comments=comments,
                             ready=bool(row.ready) if row is not None else None)
    except ValueError:
        return format_orders({"standing": _standing(empire)}, header=header_for(empire, turn_number, secret),
                             comments=comments)
