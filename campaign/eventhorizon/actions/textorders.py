"""Orders sent as text (docs/orders.md, "Orders as text"): ONE checker for the web's "paste
orders" page, the API and mail, and the per-seat order secret the text's header names.

    submit_text_orders(text, *, received_at, via, sender_email=None) -> TextOrdersResult
    rotate_order_secret(empire_id=..., user=...) -> str      (the new secret, shown once)
    turn_key(empire, turn_number) -> str                     (the header's key in a turn report)

What the checker guarantees (issue 18, as PlanetsCentral and GalaxyNG do it):
- Nothing is stored unless the header names a seat and its secret (or that seat's turn key) and
  the open turn, and every line is accepted: a set with any refused line is refused whole, and
  the set stored before stays (a rejected set never replaces an accepted one).
- Sets are ordered by the site's receipt time (``received_at``: when the site got the mail or the
  request), never by the sender's ``Date:``: a set received before the stored one is refused.
- Locking as campaign/locks.py: the turn row (level 2), then the seat's orders row; the campaign
  row first (level 1) only when the text also saves designs or a battle preference, which move
  the campaign's state version.
- Every submission that names a seat with its secret leaves an audit entry saying how it came
  (via mail, web or api) and whether it was accepted.
"""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from campaign import battles, layers, locks
from campaign.actions.errors import ActionError, NotFound, OrdersRefused
from campaign.eventhorizon.models import OrderSecret
from campaign.eventhorizon.order_text import (  # noqa: F401 - re-exported
    hash_secret,
    orders_template,
    secret_hash_matches,
    secret_matches,
    secret_row,
    turn_key,
)
from campaign.models import AuditEntry, Campaign, Empire, Membership, Turn, TurnOrders
from campaign.rules.eventhorizon.textorders import (
    TEXT_RULE,
    Header,
    LineResult,
    ParsedText,
    format_header,
    parse_text,
)
from campaign.sanitise import text_problem

from .campaigns import save_design
from .orders import _enqueue_if_all_ready, preview_orders

VIAS = ("mail", "web", "api")
MAX_TEXT_CHARS = 200_000


# --- the order secret -------------------------------------------------------------------------------

@transaction.atomic
def rotate_order_secret(*, empire_id: int, user) -> str:
    """Make (or remake) the order secret of ``user``'s seat and return it: it is shown this once,
    only its hash is kept. The old secret and every turn key made from it stop working."""
    # No row lock on the empire: the OrderSecret row (unique per seat) is what is written.
    empire = Empire.objects.filter(pk=empire_id).first()
    if empire is None or user is None or empire.user_id != user.pk:
        raise NotFound("that is not your seat")
    secret = secrets.token_urlsafe(16)
    OrderSecret.objects.update_or_create(
        empire=empire, defaults={"user": user, "secret_hash": hash_secret(secret), "created_at": timezone.now()})
    AuditEntry.objects.create(campaign_id=empire.campaign_id, user=user, action="order_secret",
                              target=f"seat {empire.seat} ({empire.name})"[:120], note="order secret made anew")
    return secret


def order_secret_made(empire: Empire) -> datetime | None:
    row = secret_row(empire)
    return row.created_at if row else None


# --- the result -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TextOrdersResult:
    campaign: Campaign | None
    membership: Membership | None
    turn_number: int | None
    accepted: bool
    lines: list[LineResult]
    error: str | None = None  # the header, the secret, the turn, the block as a whole
    # Why it was refused, for callers that answer differently (the API: 409 for "turn", "closed"
    # and "earlier"): "" (accepted), "text", "header", "secret", "turn", "closed", "seat",
    # "earlier" or "lines".
    reason: str = ""
    empire: Empire | None = None  # the seat the header named (with a right secret, or a wrong one)
    problems: tuple[str, ...] = ()  # refusals that name no line (e.g. the purchase list as a whole)
    warnings: tuple[str, ...] = ()
    stored_text: str = ""  # the order set stored now (this one if accepted, else the earlier one)
    revision: int | None = None  # the stored set's revision
    bp_left: int | None = None
    deadline: datetime | None = None
    received_at: datetime | None = None
    via: str = ""
    secret_ok: bool = False
    # The line numbers of further #SECTOR header lines: one set per text, the first; the others
    # are ignored and the reply says so.
    ignored_blocks: tuple[int, ...] = ()
    reply: str = field(default="", repr=False)

    def reply_text(self) -> str:
        """The answer to send back (by mail to the seat's registered address, or shown on the
        page): every line accepted or refused with its rule, the stored set in full, BP left,
        the deadline and the link to the web preview."""
        return self.reply


class _Refuse(Exception):  # noqa: N818 - leaves the transaction so that nothing is written
    def __init__(self, **kw):
        super().__init__("refused")
        self.kw = kw


def _when(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%a %d %b %Y, %H:%M:%S UTC") if moment else "none"


def _stored_text(empire: Empire, turn_number: int, row: TurnOrders | None) -> str:
    """The stored set as text, with the standing orders in force written out when it changes
    none: sent back as it is, it changes nothing."""
    return orders_template(empire, turn_number, row=row, position=False, secret=_cached_secret(empire))


def _stored_bp_left(empire: Empire, row: TurnOrders | None) -> int | None:
    try:
        return preview_orders(empire=empire, raw=row.orders if row is not None else {}).spending.bp_left
    except ActionError:
        return empire.bp


def _reply(r: TextOrdersResult, parsed: ParsedText | None) -> str:
    from campaign.notifications import round_label

    out = []
    campaign, empire = r.campaign, r.empire
    if campaign is not None and empire is not None and r.secret_ok:
        what = round_label(r.turn_number) if r.turn_number is not None else "orders"
        out.append(f"Sector Command: orders for {campaign.name}, {what}, seat {empire.seat} ({empire.name})")
    else:
        out.append("Sector Command: orders")
    out.append(f"Received {_when(r.received_at)} by {r.via}.")
    out.append("")
    if r.accepted:
        out.append(f"ACCEPTED: every line was accepted and the set is stored (revision {r.revision}); "
                   "it replaces any set stored before it for this turn.")
    else:
        out.append("REFUSED: nothing was changed.")
        if r.error:
            out.append(r.error)
        if r.secret_ok and r.stored_text:
            if r.revision:
                out.append(f"The set stored before (revision {r.revision}) stays in force: it is below.")
            else:
                out.append("You have no orders stored for this turn: unless you send some, your fleets hold, "
                           "nothing is bought and your standing orders apply.")
    if parsed is not None and parsed.lines:
        out += ["", "Line by line:"]
        for line in r.lines:
            mark = "ok     " if line.ok else "REFUSED"
            out.append(f"  {line.number:>4} {mark} {line.text}")
            if not line.ok:
                out.append(f"       {' ' * 7} {line.message} ({line.rule})")
    if r.ignored_blocks:
        out += ["", "IGNORED: only the first #SECTOR block of a message is read; the #SECTOR line(s) at line(s) "
                + ", ".join(str(n) for n in r.ignored_blocks) + " and what follows were not read. Send one set per "
                "message."]
    if r.problems:
        out += ["", "Also refused:"] + [f"  {p}" for p in r.problems]
    if r.warnings:
        out += ["", "Warnings (the orders are valid):"] + [f"  {w}" for w in r.warnings]
    if r.secret_ok and r.stored_text:
        out += ["", "Your stored orders (reply with them edited to change them; lines quoted with '>' are ignored):",
                "", r.stored_text.rstrip("\n"), ""]
        if r.bp_left is not None:
            out.append(f"BP left after the stored orders: {r.bp_left}")
        out.append(
            f"Deadline: {_when(r.deadline) if r.deadline else 'none set (the turn runs when everyone is ready)'}"
        )
        out.append("Preview on the web: " + settings.SITE_URL.rstrip("/")
                   + reverse("campaign-orders", args=[campaign.pk]))
    return "\n".join(out) + "\n"


def _finish(parsed: ParsedText | None, **kw) -> TextOrdersResult:
    lines = kw.pop("lines", None)
    if lines is None:
        lines = list(parsed.lines) if parsed is not None else []
    if parsed is not None and parsed.header is not None and lines:
        # Never echo the secret (the reply is mail, the page may be shared): the header line masked.
        masked = format_header(Header(parsed.header.campaign, parsed.header.seat, "********", parsed.header.turn))
        lines = [LineResult(ln.number, masked, ln.ok, ln.message, ln.rule) if i == 0 else ln
                 for i, ln in enumerate(lines)]
    result = TextOrdersResult(lines=lines, **kw)
    return TextOrdersResult(**{**result.__dict__, "reply": _reply(result, parsed)})


# --- the checker ------------------------------------------------------------------------------------

REDACTED = "********"  # a secret the mail store masked (campaign/mail/message.py), checked by its hash


def header_secret_hash(text: str) -> str:
    """The hash of the secret the text's header gives ("" if none): what the mail store keeps
    of it, the secret itself masked in the stored message."""
    header = parse_text(text).header if isinstance(text, str) and len(text) <= MAX_TEXT_CHARS else None
    return hash_secret(header.secret) if header is not None and header.secret != REDACTED else ""


def _secret_ok(empire: Empire, header: Header, secret_hash: str, row) -> bool:
    if secret_hash and header.secret == REDACTED:
        return secret_hash_matches(empire, secret_hash, header.turn, row)
    return secret_matches(empire, header.secret, header.turn, row)


def verified_seat(text: str, secret_hash: str = "") -> tuple[int, int] | None:
    """(campaign id, seat) when the text's header names a seat with its right secret (or turn key),
    else None — without storing anything: what mail's rate limit counts a set of orders under
    (a forged From: can never spend a seat's allowance)."""
    if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
        return None
    header = parse_text(text).header
    if header is None:
        return None
    empire = (Empire.objects.select_related("order_secret")
              .filter(campaign__layer__in=layers.having("orders"), campaign_id=header.campaign, seat=header.seat)
              .order_by().first())
    if empire is None or not _secret_ok(empire, header, secret_hash, _cached_secret(empire)):
        return None
    return header.campaign, header.seat


def submit_text_orders(text: str, *, received_at: datetime, via: str,
                       sender_email: str | None = None, secret_hash: str = "") -> TextOrdersResult:
    """Check orders written as text (docs/orders.md) and store them if every line is accepted.
    ``received_at`` is when the site received them (never a mail's ``Date:``); ``via`` is
    ``mail``, ``web`` or ``api``; ``sender_email`` (mail) is noted in the audit entry only as
    whether it is the seat's registered address; ``secret_hash`` (mail) is the header's secret as
    the mail store kept it, the text's secret masked. Never raises for anything the text holds."""
    if via not in VIAS:
        raise ValueError(f"via must be one of {', '.join(VIAS)}, not {via!r}")
    if timezone.is_naive(received_at):
        raise ValueError("received_at must be an aware datetime (the site's receipt time)")
    base = {"received_at": received_at, "via": via}
    if isinstance(text, str) and len(text) <= MAX_TEXT_CHARS:
        base["ignored_blocks"] = _later_blocks(text)
    if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
        return _finish(None, campaign=None, membership=None, turn_number=None, accepted=False,
                       error=f"the orders must be text of at most {MAX_TEXT_CHARS} characters", reason="text", **base)
    problem = text_problem(text)
    if problem:
        return _finish(None, campaign=None, membership=None, turn_number=None, accepted=False,
                       error=f"the text {problem}", reason="text", **base)
    parsed = parse_text(text)
    header = parsed.header
    if header is None:
        return _finish(parsed, campaign=None, membership=None, turn_number=None, accepted=False,
                       error=parsed.error, reason="header", **base)
    # One query for the seat, its campaign, player, secret and membership (a mail a few ms).
    empire = (Empire.objects.select_related("campaign", "user", "order_secret", "membership")
              .filter(campaign__layer__in=layers.having("orders"), campaign_id=header.campaign, seat=header.seat)
              .order_by().first())
    campaign = empire.campaign if empire is not None else None
    secret = _cached_secret(empire) if empire is not None else None
    if empire is None or not _secret_ok(empire, header, secret_hash, secret):
        # One answer whatever was wrong, so a stranger learns nothing about which campaigns exist.
        # The seat named (if any) is returned so that mail can tell its player of the attempt.
        known = empire is not None and empire.user_id is not None
        return _finish(parsed, campaign=campaign if known else None, empire=empire if known else None,
                       membership=_membership(empire) if known else None, turn_number=header.turn, accepted=False,
                       error=f"campaign {header.campaign} has no seat {header.seat} with that order secret: "
                             "check the header line (your secret is on the campaign's order secret page, "
                             f"{reverse('campaign-order-secret', args=[header.campaign])})",
                       reason="secret", **base)
    empire.campaign = campaign
    ctx = {"campaign": campaign, "empire": empire, "membership": _membership(empire), "turn_number": header.turn,
           "secret_ok": True, **base}
    try:
        with transaction.atomic():
            result = _check_and_store(parsed, campaign, empire, header.turn, received_at, via, ctx)
            _audit(result, sender_email)  # with the orders, in one commit
    except _Refuse as refusal:
        result = _refused(parsed, ctx, **refusal.kw)
        _audit(result, sender_email)
    return result


_HEADER_LINE = re.compile(r"^[ \t]*#SECTOR\b", re.IGNORECASE)


def _later_blocks(text: str) -> tuple[int, ...]:
    """The line numbers of the #SECTOR header lines after the first (quoted ones do not count)."""
    return tuple(n for n, line in enumerate(text.splitlines(), 1) if _HEADER_LINE.match(line))[1:]


def _membership(empire: Empire | None) -> Membership | None:
    try:
        return empire.membership if empire is not None else None  # read with the empire
    except Membership.DoesNotExist:
        return None


def _cached_secret(empire: Empire) -> OrderSecret | None:
    try:
        return empire.order_secret  # read with the empire
    except OrderSecret.DoesNotExist:
        return None


def _refused(parsed: ParsedText, ctx: dict, *, error: str | None = None, reason: str = "", lines=None,
             problems=(), turn: Turn | None = None) -> TextOrdersResult:
    """A refusal once the seat is known: the set stored before (if any) is echoed."""
    empire = ctx["empire"]
    number = ctx["campaign"].turn
    row = TurnOrders.objects.filter(empire=empire, turn__campaign=ctx["campaign"], turn__number=number).first()
    turn = turn or Turn.objects.filter(campaign=ctx["campaign"], number=number).first()
    return _finish(parsed, accepted=False, error=error, reason=reason, lines=lines, problems=tuple(problems),
                   stored_text=_stored_text(empire, number, row), revision=row.revision if row else None,
                   bp_left=_stored_bp_left(empire, row), deadline=turn.deadline if turn else None, **ctx)


def _whole_set_refused(bad: int) -> str:
    return (f"{bad} line(s) were refused, so the whole set is refused: a set is stored only when every "
            "line is accepted.")


def _check_and_store(parsed: ParsedText, campaign: Campaign, empire: Empire, number: int, received_at: datetime,
                     via: str, ctx: dict) -> TextOrdersResult:
    if parsed.error:
        raise _Refuse(error=parsed.error, reason="header")
    if number != campaign.turn:
        from campaign.actions.errors import _stale_turn

        raise _Refuse(
            error=f"{_stale_turn(campaign, number, 'store orders for')}: these orders were not stored",
            reason="turn",
        )
    if campaign.status != Campaign.Status.ACTIVE:
        raise _Refuse(
            error=f"the campaign is {campaign.get_status_display().lower()}: it takes no orders",
            reason="closed",
        )
    if empire.eliminated:
        raise _Refuse(error="your empire has been eliminated", reason="seat")
    if empire.is_bot:
        raise _Refuse(
            error="your seat is played by the computer: take it back first (on the orders page)",
            reason="seat",
        )
    if parsed.designs or parsed.battle is not None:
        # Designs and the battle preference move the campaign's state version (campaign/versioning.py),
        # an UPDATE of the campaign row: take that row first, as the locking order says.
        locks.campaign(campaign.pk)
    turn = locks.turn(campaign.pk, number)
    if turn is None or turn.status != Turn.Status.OPEN:
        raise _Refuse(error=f"turn {number} is not taking orders (it is being processed): these orders were not "
                            "stored", reason="closed")
    turn._state.fields_cache["campaign"] = campaign
    row = locks.rows(TurnOrders.objects.filter(turn=turn, empire=empire)).first()
    stored_at = (row.received_at or row.updated_at) if row is not None else None
    if stored_at is not None and stored_at > received_at:
        raise _Refuse(error=f"a set received later ({_when(stored_at)}) is already stored: this one, received "
                            f"{_when(received_at)}, does not replace it (sets count by the time the site received "
                            "them, not by their Date:)", reason="earlier", turn=turn)
    # Lines that did not parse are refused; the rest are still checked (and the transaction rolled
    # back), so that the player gets every problem in one reply.
    marks: dict[int, tuple[str, str]] = {line.number: (line.message, line.rule) for line in parsed.lines if not line.ok}
    for spec, line in zip(parsed.designs, parsed.design_lines, strict=True):
        try:
            save_design(spec=spec, campaign=campaign, empire=empire)
        except ActionError as exc:
            rule, _, message = str(exc).partition(": ")
            marks[line] = (message or rule, rule if message else TEXT_RULE)
    if parsed.designs:
        campaign.refresh_from_db(fields=["state_version"])  # the state the orders are checked against has the designs
    if parsed.battle is not None:
        try:
            battles.handler().set_battle_preference(empire_id=empire.pk, user=empire.user,
                                                    preference="" if parsed.battle == "campaign" else parsed.battle)
        except ValueError as exc:
            marks[parsed.battle_line] = (str(exc), "docs/battles.md")
    problems: list[str] = []
    preview = None
    try:
        preview = preview_orders(empire=empire, raw=parsed.orders)
    except OrdersRefused as exc:
        for p in exc.problems:
            found = parsed.lines_for(p["where"])
            if not found:
                problems.append(p["text"])
            for line in found:
                marks.setdefault(line, (f"{p['where']}: {p['message']}", p["rule"]))
    if marks or problems:
        lines = [LineResult(ln.number, ln.text, False, *marks[ln.number]) if ln.number in marks else ln
                 for ln in parsed.lines]
        raise _Refuse(error=_whole_set_refused(len(marks)) if marks else "the set is refused as a whole: "
                      "nothing was stored", reason="lines", lines=lines, problems=problems, turn=turn)
    if row is None:
        row = TurnOrders.objects.create(turn=turn, empire=empire, orders=parsed.orders, ready=bool(parsed.ready),
                                        received_at=received_at)
    else:
        row.orders, row.revision, row.received_at = parsed.orders, row.revision + 1, received_at
        if parsed.ready is not None:
            row.ready = parsed.ready
        row.save(update_fields=["orders", "revision", "received_at", "ready", "updated_at"])
    if row.ready:
        _enqueue_if_all_ready(turn)  # the last player ready starts the turn, on commit
    return _finish(parsed, accepted=True, stored_text=_stored_text(empire, number, row), revision=row.revision,
                   bp_left=preview.spending.bp_left, warnings=tuple(preview.warnings), deadline=turn.deadline, **ctx)


def _audit(result: TextOrdersResult, sender_email: str | None) -> None:
    """Who sent what, how: for every submission that named its seat's secret (the moderator's
    audit log; players read it when the campaign ends, so no address is written, only whether the
    mail came from the seat's registered one)."""
    if not result.secret_ok or result.campaign is None:
        return
    note = f"via={result.via}; received {_when(result.received_at)}"
    if sender_email is not None:
        registered = (result.empire.user.email or "").strip().lower() if result.empire and result.empire.user else ""
        note += "; sender: " + ("the registered address" if sender_email.strip().lower() == registered
                                else "another address")
    AuditEntry.objects.create(
        campaign=result.campaign, user=result.empire.user if result.empire else None,
        action="text_orders", target=f"seat {result.empire.seat} turn {result.turn_number}"[:120],
        after={"accepted": result.accepted, "revision": result.revision, "via": result.via}, note=note)
