"""Event Horizon's own actions (issue 26: out of the platform's ``campaign/actions/``), one module
per domain as there: ``campaigns`` (create, designs, import), ``lobby`` (its lobby campaign and
its start), ``orders`` (preview, submit, ready, take back), ``turns`` (process, finish, computer
orders, the due-turn sweep), ``rollback`` (``roll_back_turn``) and ``textorders`` (orders as text:
``submit_text_orders``, the order secret, the turn key; the mail app reaches it through the hook
this app registers, ``mail.routing.register_orders``). The platform reaches them through the
layer's record (``campaign/eventhorizon/layer.py``), never by import.

Every public name is re-exported here, so ``from campaign.eventhorizon import actions; actions.x``
works; a test that replaces a function replaces it in the module that calls it (the record's
``process_turn`` looks ``actions.process_turn`` up here when it is called)."""

from .campaigns import create_campaign, import_campaign, save_design  # noqa: F401
from .lobby import create_lobby, start_eventhorizon  # noqa: F401
from .orders import mark_ready, preview_orders, submit_orders, take_back_seat  # noqa: F401
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
from .turns import (  # noqa: F401
    due_steps,
    due_turns,
    event_json,
    finish_turn,
    position_summary,
    process_due,
    process_turn,
    write_bot_orders,
)
