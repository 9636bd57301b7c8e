"""Mail in (issue 18): every raw message is stored first (``models.InboundMessage``, keyed by
Message-ID), then processed by a task that routes it — orders (``#SECTOR`` header), press replies,
and replies to the addresses other apps register (``routing``) — and answers the sender's
registered address. The ways in: ``manage.py ingestmail`` (an MTA pipe), the IMAP poller
(``imap.py``, Celery beat) and the loopback LMTP/SMTP listener (``listener.py``). docs/mail.md.
"""
