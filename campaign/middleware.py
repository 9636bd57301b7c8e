"""Processing due turns "on the next request" when there is no Celery broker.

With a broker, Celery beat sweeps for due turns (``campaign.tasks.process_due``). Without one
(the embedded default, ``CELERY_TASK_ALWAYS_EAGER``) nothing runs in the background, so this
middleware does beat's job: after a response is sent, at most once every
``PROCESS_DUE_ON_REQUEST_SECONDS`` (default 30; 0 turns it off) per cache, it processes every
due turn (all active players ready, or the deadline passed) and every campaign layer's step past
its deadline (``actions.enqueue_due_steps``, through the layers' records) — after the stored mail
still waiting for processing (``mail.actions.requeue_pending``) — once that response is out (the
visitor does not wait), settles battles past their deadline and lets the doctrine play late
embedded activations. ``manage.py
processdue`` from cron does the same. Each server process asks the shared cache at most once
per interval too, so most requests cost nothing here.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache

from . import actions, battles

log = logging.getLogger(__name__)

CACHE_KEY = "campaign:process-due-on-request"


class ProcessDueTurnsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.next_ask = 0.0  # this process asks the shared cache at most once per interval

    def __call__(self, request):
        response = self.get_response(request)
        if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
            interval = int(getattr(settings, "PROCESS_DUE_ON_REQUEST_SECONDS", 30))
            now = time.monotonic()
            due = interval > 0 and now >= self.next_ask
            if due:
                self.next_ask = now + interval
            # cache.add is atomic: of many requests at once, one wins the sweep for the interval.
            if due and cache.add(CACHE_KEY, 1, timeout=interval):
                # After the response is sent (issue 33): the server closes the response once the
                # visitor has every byte, and Django runs its closers then, before the request's
                # database connection is let go. The visitor never waits for the sweep.
                response._resource_closers.append(sweep)
        return response


def sweep() -> None:
    """Beat's job, in-process: stored mail waiting, due turns, every layer's due steps, battles past their deadline.
    Each part is a few queries whatever the size of the site (issue 33); a failing part is
    logged and does not stop the others."""
    try:  # stored mail not processed yet (after its back-off), before the turns it may be for
        from .mail.actions import requeue_pending

        requeue_pending()
    except Exception:
        log.exception("processing stored mail on a request failed")
    try:  # away dates first (a deadline inside an absence moves before it is acted on), webhooks
        from .groups.tasks import sweep_now

        sweep_now()
    except Exception:
        log.exception("the groups sweep (away dates, webhooks) on a request failed")
    try:  # every campaign layer's due turns and steps, through the layer registry
        actions.enqueue_due_steps()
    except Exception:  # a failing turn must not take the page the player asked for
        log.exception("processing due turns and layer steps on a request failed")
    try:  # battles past their deadlines (and embedded activations), as beat would
        battles.handler().sweep_due()
    except Exception:
        log.exception("settling due battles on a request failed")


# --- Content-Security-Policy ------------------------------------------------------------------

class ContentSecurityPolicyMiddleware:
    """Send ``settings.CONTENT_SECURITY_POLICY`` on every HTML page (Django 5.2 has no CSP of its
    own). ``{nonce}`` in the policy becomes a fresh random value per request, which templates put
    on their own ``<style>`` and ``<script>`` elements as ``nonce="{{ csp_nonce }}"`` (the
    ``csp_nonce`` context processor below): those run, anything else inline — an injected script,
    an ``on…=`` handler, a ``javascript:`` link — does not. Scripts and styles from the site's own
    static files always load. ``CONTENT_SECURITY_POLICY_REPORT_ONLY`` sends it as
    ``Content-Security-Policy-Report-Only`` (the browser reports and blocks nothing). With DEBUG on,
    Django's own error pages (which are inline) are sent without it."""

    def __init__(self, get_response):
        import secrets

        self.get_response = get_response
        self.token = secrets.token_urlsafe

    def __call__(self, request):
        policy = getattr(settings, "CONTENT_SECURITY_POLICY", "")
        request.csp_nonce = self.token(18) if policy else ""
        response = self.get_response(request)
        if not policy or not response.get("Content-Type", "").startswith("text/html"):
            return response
        if settings.DEBUG and response.status_code >= 400:
            return response
        header = (
            "Content-Security-Policy-Report-Only"
            if getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", False)
            else "Content-Security-Policy"
        )
        if header not in response:
            response[header] = policy.replace("{nonce}", request.csp_nonce)
        return response


def csp_nonce(request):
    """Template context: ``csp_nonce``, this request's nonce for inline ``<style>``/``<script>``."""
    return {"csp_nonce": getattr(request, "csp_nonce", "")}


class FriendlyErrorsMiddleware:
    """Two answers Django gives bare (issue 23 item 24):

    - an address under ``/api/`` that no route serves: a JSON 404 like the API's own, not
      Django's HTML page (which, with DEBUG on as in the demo, lists every URL of the site);
      DRF's own answers (a missing object) are left as they are;
    - a page that takes only a form's button (``@require_POST``) opened by a reload or a link:
      a page saying so, with a link to the page the button is on, not an empty 405.

    Listed after CommonMiddleware, which still redirects ``/api/campaigns`` to its slash."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        api = request.path.startswith("/api/")
        drf = getattr(response, "accepted_renderer", None) is not None
        if response.status_code == 404 and api and not drf:
            from django.http import JsonResponse

            return JsonResponse({"detail": "Not found."}, status=404)
        if (response.status_code == 405 and not api and not drf and request.method in ("GET", "HEAD")
                and not response.content):
            return self._post_only(request, response)
        return response

    @staticmethod
    def _post_only(request, bare):
        from django.shortcuts import render
        from django.urls import Resolver404, resolve

        parent = request.path.rstrip("/").rsplit("/", 1)[0] + "/"
        try:
            resolve(parent)
        except Resolver404:
            parent = "/"
        response = render(request, "post_only.html", {"back": parent}, status=405)
        response["Allow"] = bare["Allow"]
        return response
