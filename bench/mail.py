"""Mail-in benchmark (issue 18): 1,000 order mails for one campaign, stored and processed.

An 8-seat campaign at turn 1 (the set-up round closed with the computer's purchases); each mail
is one player's whole order set for turn 1 as text (the computer player's orders written out by
``format_orders``, under the seat's ``#SECTOR`` header and order secret), sent again and again as
revisions — 125 mails per seat. Each mail goes through the same door as ``manage.py ingestmail``
(``campaign.mail.actions.ingest``: parse, store) and is processed in-process, as on the embedded
default (screening, the text order checker, the reply to the registered address). The per-sender
rate limit is off for the run (MAIL_RATE_LIMIT=0: 125 mails from one sender in a minute would be
over it). Three runs; the median is the figure. Runs in a throwaway test database.

    .venv/bin/python bench/mail.py
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python bench/mail.py
"""

import os
import statistics
import sys
import time
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

MAILS = 1000
SEATS = 8
RUNS = 3
GOAL = 50.0  # mails per second


def build():
    from django.contrib.auth import get_user_model

    from campaign.eventhorizon import actions as eh_actions
    from campaign.eventhorizon import adapters
    from campaign.eventhorizon.actions.textorders import rotate_order_secret
    from campaign.rules.eventhorizon.bots import bot_orders
    from campaign.rules.eventhorizon.orders import orders_to_json
    from campaign.rules.eventhorizon.textorders import Header, format_orders
    from tests.eventhorizon.setup_round import finish_setup

    users = [get_user_model().objects.create_user(f"mailer{i}", f"mailer{i}@example.com", "x")
             for i in range(1, SEATS + 1)]
    campaign = eh_actions.create_campaign(name="Mail bench", grid="hex", width=40, height=40, players=SEATS,
                                       seed="mail-bench", moderator=users[0])
    for user, empire in zip(users, campaign.empires.order_by("seat"), strict=True):
        empire.user = user
        empire.save(update_fields=["user"])
    campaign = finish_setup(campaign)
    state = adapters.load_state(campaign)
    names = adapters.design_names_by_seat(campaign)
    bodies = []
    for user, empire in zip(users, campaign.empires.order_by("seat"), strict=True):
        secret = rotate_order_secret(empire_id=empire.pk, user=user)
        orders = orders_to_json(bot_orders(state, empire.seat, names[empire.seat]))
        text = format_orders(orders, header=Header(campaign=campaign.pk, seat=empire.seat, secret=secret,
                                                   turn=campaign.turn))
        bodies.append((user.email, text))
    return campaign, bodies


def mail(n: int, run: int, sender: str, text: str) -> bytes:
    return (f"From: <{sender}>\r\nTo: {settings.MAIL_ORDERS_ADDRESS}\r\nSubject: orders\r\n"
            f"Message-ID: <bench-{run}-{n}@example.com>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
            "Here are my orders.\r\n\r\n" + text.replace("\n", "\r\n")).encode()


def main() -> None:
    setup_test_environment()  # the locmem email backend: replies are built and "sent", not delivered
    settings.MAIL_RATE_LIMIT = 0
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from config.celery import app

    app.conf.task_always_eager = True
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        from django.core import mail as outbox

        from campaign.mail import actions
        from campaign.mail.models import InboundMessage

        campaign, bodies = build()
        rates, cpu_rates = [], []
        for run in range(RUNS):
            raws = [mail(n, run, *bodies[n % len(bodies)]) for n in range(MAILS)]
            outbox.outbox = []
            started, cpu = time.perf_counter(), time.process_time()
            for raw in raws:
                actions.ingest(raw, via="stdin")  # stored, then processed on commit (in-process)
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
            done = InboundMessage.objects.filter(message_id__startswith=f"<bench-{run}-", status="done",
                                                 outcome__startswith="accepted").count()
            assert done == MAILS, f"only {done} of {MAILS} mails were accepted"
            assert len(outbox.outbox) == MAILS
            rates.append(MAILS / elapsed)
            cpu_rates.append(MAILS / cpu)
            print(f"run {run + 1}: {MAILS} mails in {elapsed:.2f} s = {MAILS / elapsed:.1f} mails/s "
                  f"({cpu:.2f} s of CPU: {MAILS / cpu:.1f} mails per CPU second)")
        median = statistics.median(rates)
        # The same order texts given straight to the text order checker (no mail): what the mail
        # pipeline itself adds is the difference.
        from django.utils import timezone

        from campaign.eventhorizon.actions.textorders import submit_text_orders

        checker = []
        for _ in range(RUNS):
            cpu = time.process_time()
            for n in range(MAILS):
                sender, text = bodies[n % len(bodies)]
                assert submit_text_orders(text, received_at=timezone.now(), via="mail", sender_email=sender).accepted
            checker.append(MAILS / (time.process_time() - cpu))
        alone, cpu_median = statistics.median(checker), statistics.median(cpu_rates)
        print(f"CPU: median {cpu_median:.1f} mails per CPU second; the checker alone (submit_text_orders, same "
              f"texts) {alone:.1f} sets per CPU second, so the mail pipeline (parse, store, screen, route, reply) "
              f"adds {1000 / cpu_median - 1000 / alone:.1f} ms of CPU a mail")
        db = connection.vendor
        load = os.getloadavg()[0]
        print(f"median of {RUNS}: {median:.1f} mails/s on {db} ({SEATS} seats, {MAILS} mails a run; "
              f"goal >= {GOAL:.0f}: {'met' if median >= GOAL else 'NOT met'}; load average {load:.1f} on "
              f"{os.cpu_count()} cores)")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
