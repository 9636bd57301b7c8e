"""Every change of campaign state goes through a function in this package.

Each action is atomic; views, API viewsets, tasks and management commands only validate their
input, call one action and render the result. Actions raise ``ActionError`` (or a subclass)
with a message for people; nothing is written when they do.

One module per domain (as Zulip's ``zerver/actions/``): ``errors`` (the refusals), ``campaigns``
(the rule options and seat limits), ``accounts``, ``lobby``, ``turns`` (the open turn, deadlines),
``moderation``, ``notifications`` and ``due`` (every campaign layer's steps past their deadline,
through the layer registry). A layer's own actions are its app's and reached through its record
(``campaign/layers.py``): Event Horizon's creation, import, lobby campaign and start, orders, turn
processing, due-turn sweep, roll-back and orders as text are in ``campaign/eventhorizon/actions/``.
This module re-exports every public name, so ``from campaign import actions; actions.x`` works;
a test that replaces a function must replace it in the module that calls it.
"""

from .accounts import (  # noqa: F401
    activate_account,
    confirm_email_change,
    create_account,
    create_api_token,
    purge_unconfirmed_accounts,
    request_email_change,
    revoke_api_token,
    rotate_api_token,
    sign_up,
)
from .campaigns import (  # noqa: F401
    BOOK_OPTION,
    DEFAULT_OPTIONS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SWITCHABLE_OPTIONS,
    check_battle_book,
)
from .due import enqueue_due_steps  # noqa: F401
from .errors import (  # noqa: F401
    ActionError,
    NotAllowed,
    NotFound,
    OrdersRefused,
    StaleTurn,
    TurnClosed,
)
from .lobby import (  # noqa: F401
    BATTLE_REQUESTS,
    LOBBY_LIMITS,
    SEED_MAX_LENGTH,
    add_moderator,
    invitation_refusal,
    invitation_url,
    invite_by_email,
    join_campaign,
    remove_member,
    set_invite_link,
    set_listing,
    start_campaign,
)
from .moderation import (  # noqa: F401
    AUDIT_SKIPPED_FIELDS,
    MAX_EXTENSION_HOURS,
    admin_edit,
    audit_fields,
    extend_deadline,
    pause_campaign,
    process_now,
    resume_campaign,
    roll_back_step,
    set_campaign_option,
    substitute_player,
)
from .notifications import (  # noqa: F401
    NOTIFICATION_FIELDS,
    enqueue_turn_notifications,
    notify_battle_decision,
    notify_moderators,
    send_deadline_reminders,
    send_turn_notifications,
    send_turn_reminder,
    set_notification_preferences,
    unsubscribe,
)
from .turns import setup_deadline, turn_deadline  # noqa: F401
