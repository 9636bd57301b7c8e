"""Reading one raw RFC 5322 message: the standard library's parser with ``policy=default``.

Nothing here touches the database: what the message is (its Message-ID, sender, recipients),
whether a machine sent it (auto-replies, bounces, loops, bulk mail), and its text.
"""

from __future__ import annotations

import base64
import hashlib
import quopri
import re
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import default
from email.utils import getaddresses, parseaddr, parsedate_to_datetime

from django.conf import settings


class Unparsable(ValueError):
    """Input that is not an RFC 5322 message (empty, no header fields, too large)."""


_HEADER_LINE = re.compile(rb"^[!-9;-~]+:")  # a field name (printable, no colon), then a colon


def parse(raw: bytes, *, headers_only: bool = False) -> EmailMessage:
    """The message (``headers_only``: its header, the body left unparsed — all the store needs)."""
    if not raw or not raw.strip():
        raise Unparsable("the input is empty: expected one RFC 5322 message (header fields, a blank line, the body)")
    if len(raw) > settings.MAIL_MAX_BYTES:
        raise Unparsable(f"the message is {len(raw)} bytes, over MAIL_MAX_BYTES ({settings.MAIL_MAX_BYTES})")
    first = raw.lstrip(b"\r\n").split(b"\n", 1)[0]
    if first.startswith(b"From "):  # an mbox "From " line (procmail, fetchmail --mda): skip it
        raw = raw.lstrip(b"\r\n").split(b"\n", 1)[1] if b"\n" in raw else b""
        first = raw.split(b"\n", 1)[0]
    if not _HEADER_LINE.match(first):
        raise Unparsable(
            'the input does not start with a header field ("Name: value"): it is not an RFC 5322 message'
        )
    msg = BytesParser(policy=default).parsebytes(raw, headersonly=headers_only)
    if not msg.keys():
        raise Unparsable("the input has no header fields: it is not an RFC 5322 message")
    return msg


def _raw(msg: EmailMessage, name: str) -> list[str]:
    """A header's values as sent, unfolded, without the policy's parsing (which builds a header
    object on every access: the screening reads a dozen headers, and most need no decoding)."""
    name = name.lower()
    return [" ".join(str(value).split()) for key, value in msg.raw_items() if key.lower() == name]


def _header(msg: EmailMessage, name: str) -> str:
    values = _raw(msg, name)
    return values[0] if values else ""


def message_id(msg: EmailMessage, raw: bytes) -> str:
    """The Message-ID as sent; without one (or with one too long to keep), one made from the bytes,
    so the same bytes delivered twice are still one message."""
    value = " ".join(_header(msg, "Message-ID").split())
    if value and len(value) <= 255:
        return value
    return f"<{hashlib.sha256(raw).hexdigest()}@sha256.invalid>"


def sender(msg: EmailMessage) -> str:
    """The From: address in lower case, "" if there is none or it is not an address (an encoded
    display name does not matter: only the address is read)."""
    addr = parseaddr(_header(msg, "From"))[1].strip().lower()
    return addr if "@" in addr and len(addr) <= 254 else ""


def subject(msg: EmailMessage) -> str:
    try:
        value = str(msg.get("Subject") or "")  # decoded (RFC 2047)
    except Exception:  # a header the parser cannot make sense of: keep it as it came
        value = _header(msg, "Subject")
    return " ".join(value.split())[:255]


def recipients(msg: EmailMessage, envelope: list[str] | None = None) -> list[str]:
    """Every address the message was for, lower case: the envelope's (when known), then
    Delivered-To, X-Original-To, To and Cc."""
    found: list[str] = [a.strip().lower() for a in (envelope or [])]
    fields = []
    for name in ("Delivered-To", "X-Original-To", "To", "Cc"):
        fields += _raw(msg, name)
    found += [addr.strip().lower() for _, addr in getaddresses(fields) if "@" in addr]
    return list(dict.fromkeys(a for a in found if a))


def received_time(msg: EmailMessage):
    """The date of the topmost ``Received:`` field (the one the last MTA — the site's own — put on
    top: ``…; Sat, 28 Nov 2026 13:10:10 +0000``), an aware datetime; None without a readable one."""
    values = _raw(msg, "Received")
    if not values or ";" not in values[0]:
        return None
    try:
        moment = parsedate_to_datetime(values[0].rpartition(";")[2].strip())
    except (TypeError, ValueError, IndexError):
        return None
    return moment if moment is not None and moment.tzinfo is not None else None


_COMMENT = re.compile(r"\([^()]*\)")


def _domain(address: str) -> str:
    return address.rpartition("@")[2].strip().strip(".").lower()


def authenticated_from(msg: EmailMessage, authserv_id: str) -> bool:
    """Whether the site's own MTA (``authserv_id``) says the From: address is authentic, in an
    ``Authentication-Results`` field (RFC 8601): ``dmarc=pass``, or a ``dkim=pass`` whose
    ``header.d`` is the From: domain, or an ``spf=pass`` whose ``smtp.mailfrom`` domain is.
    Only the topmost such field is read (the MTA removes fields with its own authserv-id from
    incoming mail, RFC 8601 section 5, and puts its own on top); any other authserv-id is ignored."""
    if not authserv_id:
        return False
    domain = _domain(sender(msg))
    if not domain:
        return False
    for value in _raw(msg, "Authentication-Results"):
        parts = [p.strip() for p in _COMMENT.sub(" ", value).split(";")]
        words = parts[0].split()
        if not words or words[0].lower() != authserv_id.lower():
            continue
        for result in parts[1:]:
            tokens = [t.strip('"') for t in result.lower().split()]
            if not tokens or "=" not in tokens[0]:
                continue
            method, _, outcome = tokens[0].partition("=")
            props = dict(t.split("=", 1) for t in tokens[1:] if "=" in t)
            if outcome != "pass":
                continue
            if method == "dmarc" and _domain(props.get("header.from", domain)) == domain:
                return True
            if method == "dkim" and _domain(props.get("header.d", "")) == domain:
                return True
            if method == "spf" and _domain(props.get("smtp.mailfrom", "")) == domain:
                return True
        return False  # the topmost field of the site's MTA decides
    return False


_MACHINE_SENDERS = ("mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon")


def automatic(msg: EmailMessage) -> str | None:
    """Why a machine sent this message (so it gets no answer and changes nothing), or None.

    RFC 3834 Auto-Submitted (anything but "no"); an X-Loop header (our own on every mail we send,
    or any other system's: a message that went round once is not a player's); Precedence bulk,
    junk, list or auto_reply; the common vacation headers and Exchange's X-Auto-Response-Suppress;
    a bounce (a mailer-daemon or postmaster sender, an empty Return-Path, a delivery report; the
    empty envelope sender is the store's, ``actions``)."""
    auto = _header(msg, "Auto-Submitted").lower()
    if auto and auto.split(";")[0].strip() != "no":
        return f"Auto-Submitted: {auto}"
    if _raw(msg, "X-Loop"):
        return f"X-Loop: {_header(msg, 'X-Loop')}"
    precedence = _header(msg, "Precedence").lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    # Exchange/Outlook out-of-office and other automatic replies carry only this (MS-OXCMAIL).
    for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress"):
        if _raw(msg, name):
            return f"{name} header"
    from_ = sender(msg)
    local = from_.split("@")[0]
    if local in _MACHINE_SENDERS or local.startswith("mailer-daemon"):
        return f"sent by {from_}"
    if _raw(msg, "Return-Path") and _header(msg, "Return-Path").strip("<> ") == "":
        return "an empty Return-Path (a bounce)"
    if msg.is_multipart() and msg.get_content_type() == "multipart/report":
        return "a delivery or disposition report"
    return None


def unflow(text: str, delsp: bool = False) -> str:
    """RFC 3676 ``format=flowed`` text as the lines its writer meant: a line ending in a space
    (other than the signature separator ``-- ``) goes on in the next line of the same quote depth
    (with ``DelSp=yes`` that space is deleted); quote depth is the leading ``>``s; a line's leading
    space is stuffing. Quoted lines come out as ``> …`` (``>`` per depth)."""
    out: list[str] = []
    held, held_depth = None, 0
    for line in text.replace("\r\n", "\n").split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        flowed = content.endswith(" ") and content != "-- "
        if flowed and delsp:
            content = content[:-1]
        if held is not None and depth != held_depth:  # a depth change ends a paragraph
            out.append(">" * held_depth + (" " if held_depth else "") + held)
            held = None
        held = content if held is None else held + content
        held_depth = depth
        if not flowed:
            out.append(">" * depth + (" " if depth else "") + held)
            held = None
    if held is not None:
        out.append(">" * held_depth + (" " if held_depth else "") + held)
    return "\n".join(out)


def _text(part) -> str:
    """A text part's content, flowed text (RFC 3676, Thunderbird's default) unfolded."""
    text = _content(part)
    if part.get_content_type() == "text/plain" and str(part.get_param("format", "")).lower() == "flowed":
        text = unflow(text, delsp=str(part.get_param("delsp", "")).lower() == "yes")
    return text


def _content(part) -> str:
    try:
        text = part.get_content()
    except (LookupError, UnicodeError, AssertionError):  # an unknown or lying charset
        payload = part.get_payload(decode=True) or b""
        text = payload.decode("utf-8", errors="replace")
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return text


def body_text(msg: EmailMessage) -> tuple[str | None, str]:
    """The message's text and where it came from: ("…", "plain") for a text/plain body,
    ("…", "attachment") for a ``.txt`` attachment when there is no text body, (None, "html") for
    an HTML-only message, (None, "none") when there is no text at all."""
    if not msg.is_multipart():  # the common case, without get_body's walk
        kind = msg.get_content_type()
        if kind == "text/plain" and msg.get_content_disposition() != "attachment":
            text = _text(msg)
            return (text, "plain") if text.strip() else (None, "none")
    body = msg.get_body(preferencelist=("plain",))
    if body is not None:
        text = _text(body)
        if text.strip():
            return text, "plain"
    for part in msg.walk():
        if part.is_multipart():
            continue
        name = (part.get_filename() or "").lower()
        if name.endswith(".txt") or (part.get_content_type() == "text/plain" and part is not body):
            text = _text(part)
            if text.strip():
                return text, "attachment"
    if msg.get_body(preferencelist=("html",)) is not None:
        return None, "html"
    return None, "none"


# --- redaction: no order secret is stored ----------------------------------------------------------

MASK = "********"  # what the checker's answers show in place of a secret, too
_SECRET = re.compile(r"(#SECTOR[ \t]+\S+[ \t]+\S+[ \t]+)(\S+)", re.IGNORECASE)


_SECRET_BYTES = re.compile(rb"(#SECTOR[ \t]+\S+[ \t]+\S+[ \t]+)(\S+)", re.IGNORECASE)
_PLAIN_CTE = ("7bit", "8bit", "binary", "")


def redact_text(text: str) -> str:
    """Every ``#SECTOR`` header's secret (quoted ones too: a quoted turn report holds a turn key)
    replaced by the mask."""
    return _SECRET.sub(lambda m: m[1] + MASK, text)


def _secrets_in(msg: EmailMessage) -> bool:
    for part in msg.walk():
        if not part.is_multipart() and part.get_content_maintype() == "text":
            if any(m[2] != MASK for m in _SECRET.finditer(_content(part))):
                return True
    return False


def _rewrite_part(part) -> None:
    """A text part's content with its secrets masked, in its own transfer encoding and charset."""
    text = redact_text(_content(part))
    charset = part.get_content_charset() or "us-ascii"
    try:
        data = text.encode(charset)
    except (LookupError, UnicodeError):
        charset, data = "utf-8", text.encode("utf-8")
        part.set_param("charset", charset)
    cte = str(part.get("Content-Transfer-Encoding", "7bit")).strip().lower()
    if cte == "base64":
        payload = base64.encodebytes(data).decode("ascii")
    elif cte == "quoted-printable":
        payload = quopri.encodestring(data).decode("ascii")
    else:
        payload = data.decode("ascii", "surrogateescape")
    part.set_payload(payload)


def redact(raw: bytes, msg: EmailMessage | None = None) -> bytes:
    """The message with every order secret masked, as it is stored (docs/mail.md "Retention"):
    each text part that holds a ``#SECTOR`` header with a secret is written again, masked, in its
    own transfer encoding and charset; a message without one is kept byte for byte. ``msg``: the
    message already parsed from ``raw`` (its parts are rewritten in place)."""
    lower = raw.lower()
    if b"#sector" not in lower and b"base64" not in lower and b"quoted-printable" not in lower:
        return raw  # nothing to look for (an encoded part is looked at decoded)
    msg = msg if msg is not None else parse(raw)
    if not msg.is_multipart() and str(msg.get("Content-Transfer-Encoding", "7bit")).strip().lower() in _PLAIN_CTE:
        # The common case, one text part sent as it is: masked in the bytes, nothing rewritten.
        head = headers_of(raw)
        body = _SECRET_BYTES.sub(lambda m: m[1] + MASK.encode(), raw[len(head):])
        if not _SECRET.search(body.decode("utf-8", "replace").replace(MASK, "")):
            return head + body
    if not _secrets_in(msg):
        return raw
    for part in msg.walk():
        if not part.is_multipart() and part.get_content_maintype() == "text":
            if any(m[2] != MASK for m in _SECRET.finditer(_content(part))):
                _rewrite_part(part)
    return msg.as_bytes()


def headers_of(raw: bytes) -> bytes:
    """The header block of a raw message, without its body (what is kept of a dropped message)."""
    for end in (b"\r\n\r\n", b"\n\n"):
        at = raw.find(end)
        if at >= 0:
            return raw[:at + len(end)]
    return raw
