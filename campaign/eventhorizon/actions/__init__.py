"""Event Horizon's own actions (issue 26: out of the platform's ``campaign/actions/``), one module
per domain as there: ``rollback`` (``roll_back_turn``, the layer's roll-back that its record gives
the platform) and ``textorders`` (orders as text: ``submit_text_orders``, the order secret, the
turn key; the mail app reaches it through the hook this app registers, ``mail.routing.register_orders``).
Every public name is re-exported here; a test that replaces a function replaces it in the module
that calls it."""

from .rollback import roll_back_turn  # noqa: F401
from .textorders import (  # noqa: F401
    MAX_TEXT_CHARS,
    REDACTED,
    VIAS,
    TextOrdersResult,
    header_secret_hash,
    order_secret_made,
    rotate_order_secret,
    submit_text_orders,
    turn_key,
    verified_seat,
)
