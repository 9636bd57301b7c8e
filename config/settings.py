"""Settings for Sector Command, all from the environment with working defaults.

With nothing set, the site runs on a SQLite file with tasks run in-process (the embedded
default). Production sets DATABASE_URL (PostgreSQL), CELERY_BROKER_URL and REDIS_URL (Redis),
SECRET_KEY and DEBUG=0. See the configuration table in README.md.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {value!r}")


def envint(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None


def envlist(name: str, default: str) -> list[str]:
    return [part.strip() for part in os.environ.get(name, default).split(",") if part.strip()]


DEBUG = envbool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. With DEBUG off the site refuses to start without one: "
            "set SECRET_KEY to a long random string."
        )
    SECRET_KEY = "insecure-development-key-only-used-while-DEBUG-is-on"

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if not DEBUG else "*")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
# bench/http.py's baseline view (/bench/bare): routed only when this is on, never by default.
BENCH_VIEWS = envbool("BENCH_VIEWS", False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "campaign",
    "campaign.eventhorizon",  # registers first: the lobby offers its layer first (issue 26)
    "campaign.cam",
    "campaign.press",
    "campaign.mail",
    "campaign.groups",
    "tactical",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Content-Security-Policy on HTML pages, with a per-request nonce (CONTENT_SECURITY_POLICY below).
    "campaign.middleware.ContentSecurityPolicyMiddleware",
    # A JSON 404 for /api/ addresses without a route; a page for a POST-only address reloaded.
    "campaign.middleware.FriendlyErrorsMiddleware",
    # Without a broker: process due turns on the next request (campaign/middleware.py).
    "campaign.middleware.ProcessDueTurnsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "campaign.middleware.csp_nonce",
                "campaign.layers.menu",
                "campaign.press.unread.menu",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=envint("DB_CONN_MAX_AGE", 0),
        # A kept connection is checked before a request reuses it, so a restarted database costs
        # one failed ping, not one failed request.
        conn_health_checks=envbool("DB_CONN_HEALTH_CHECKS", True),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves requests on several threads: a write transaction takes the
    # write lock when it begins (IMMEDIATE), so two never deadlock upgrading a read lock, and a
    # writer waits up to 20 s for another instead of failing with "database is locked"; WAL lets
    # pages read while a turn is written.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "transaction_mode": "IMMEDIATE", "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    })
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The design library's unique (campaign, empire, name) treats NULLs as equal on PostgreSQL;
# SQLite cannot, and there the save_design action's own check is what keeps names unique.
SILENCED_SYSTEM_CHECKS = ["models.W047"]

def redis_url(name: str) -> str:
    """A Redis URL from the environment. When the test suite runs in several processes
    (pytest-xdist sets PYTEST_XDIST_WORKER to gw0, gw1, …), process N uses database number + 2N:
    the suite flushes its cache before every test, and a real Celery worker one process starts
    must not take the other's tasks. The Celery workers a test starts inherit the variable."""
    url = os.environ.get(name, "")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not url or not worker.startswith("gw") or not worker[2:].isdigit() or worker == "gw0":
        return url
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if not parts.scheme.startswith("redis"):
        return url
    number = parts.path.strip("/") or "0"
    if not number.isdigit():
        raise ImproperlyConfigured(f"{name} must name a Redis database by number, not {parts.path!r}")
    return urlunsplit(parts._replace(path=f"/{int(number) + 2 * int(worker[2:])}"))


REDIS_URL = redis_url("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {"BACKEND": "config.cache.SharedClientRedisCache", "LOCATION": REDIS_URL}
    }
    # Sessions are read from Redis and written through to the database (one query less on every
    # logged-in request). Not with the local-memory cache: each process would keep its own copy,
    # and a log-out in one would leave the session alive in the others.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Celery: with no broker every task runs in-process, at once (the embedded default).
CELERY_BROKER_URL = redis_url("CELERY_BROKER_URL")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "") or None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# With late acks, a task whose worker died is delivered again (every task is idempotent).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
# One beat process runs this sweep; the turn task itself is idempotent.
CELERY_BEAT_SCHEDULE = {
    "process-due-turns": {"task": "campaign.tasks.process_due", "schedule": envint("PROCESS_DUE_SECONDS", 60)},
    # Deadline reminders 24 h and 1 h ahead (campaign/notifications.py); each is sent once.
    "deadline-reminders": {
        "task": "campaign.tasks.send_deadline_reminders", "schedule": envint("REMINDER_SWEEP_SECONDS", 300),
    },
    # Embedded battles: the computer doctrine plays sides past their activation deadline (tactical/play/actions.py).
    "battle-activation-deadlines": {
        "task": "tactical.tasks.play_due_activations", "schedule": envint("ACTIVATION_SWEEP_SECONDS", 60),
    },
    # Sign-ups never confirmed within UNCONFIRMED_ACCOUNT_DAYS are deleted (campaign/actions/accounts.py).
    "purge-unconfirmed-accounts": {"task": "campaign.tasks.purge_unconfirmed_accounts", "schedule": 86_400},
    # Battles past their battle deadline are settled without the players (tactical/battles/actions.py).
    "battle-deadlines": {
        "task": "tactical.tasks.settle_due_battles", "schedule": envint("BATTLE_SWEEP_SECONDS", 60),
    },
}
# A sign-up whose address is not confirmed within this many days is deleted (0: kept for ever).
UNCONFIRMED_ACCOUNT_DAYS = envint("UNCONFIRMED_ACCOUNT_DAYS", 7)
# What-if runs fight their battles in this many worker processes (0: one per core, at most 4).
WHATIF_PROCESSES = envint("WHATIF_PROCESSES", 0)
# With a broker, a what-if run's battles are fought by Celery chunk tasks of this many battles,
# spread over every worker (tactical/whatif/chunks.py; 0: the runner fights them in local processes).
WHATIF_CHUNK_SIZE = envint("WHATIF_CHUNK_SIZE", 50)
# Without a broker, a what-if run plays in a thread of the web server process, so its page shows
# its progress (off: it plays inside the request that starts it).
WHATIF_IN_BACKGROUND = envbool("WHATIF_IN_BACKGROUND", True)
# Without a broker, a request processes due turns at most this often (0: never; campaign/middleware.py).
PROCESS_DUE_ON_REQUEST_SECONDS = envint("PROCESS_DUE_ON_REQUEST_SECONDS", 30)

EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = envint("EMAIL_PORT", 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Sector Command <noreply@localhost>")
# The domain of the site's own incoming addresses: press replies go to
# press+<conversation>.<seat>.<signature>@MAIL_DOMAIN (docs/press.md). Default: DEFAULT_FROM_EMAIL's domain.
MAIL_DOMAIN = (os.environ.get("MAIL_DOMAIN", "").strip()
               or DEFAULT_FROM_EMAIL.rstrip(">").rpartition("@")[2].strip() or "localhost").lower()
if os.environ.get("EMAIL_FILE_PATH"):
    # For django.core.mail.backends.filebased.EmailBackend (one file per connection).
    EMAIL_FILE_PATH = os.environ["EMAIL_FILE_PATH"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Refuses nothing: a changed or reset password revokes the account's API token.
    {"NAME": "campaign.accounts.RevokeApiTokenOnPasswordChange"},
]
# Django's model backend with the failed-log-in throttle (campaign/accounts.py).
AUTHENTICATION_BACKENDS = ["campaign.accounts.ThrottledModelBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []

REST_FRAMEWORK = {
    # Token first: DRF answers an unauthenticated request with the first class's challenge, so an
    # invalid token is 401 with "WWW-Authenticate: Token" (campaign/api/authentication.py).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "campaign.api.authentication.LeanTokenAuthentication",  # DRF's, in one query
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Sector Command API",
    "DESCRIPTION": "Campaigns, maps, orders, reports and dice logs. Every object answers 404 to "
    "non-participants; lists hold only what the caller may see.",
    "VERSION": "1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The default hook (it rebuilds the components), then every operation on an object declares its
    # 404, and every operation the refusals that come before its view: 400 (the input filter), 401
    # (a refused token), 403 (no credentials), 415 (a body in a type it does not read)
    # (campaign/api/schema.py).
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "campaign.api.schema.declare_not_found",
                             "campaign.api.schema.declare_refusals"],
    "ENUM_NAME_OVERRIDES": {
        "CamScenarioModeEnum": "campaign.cam.models.CamScenario.Mode",
        "BattleModeEnum": "tactical.models.Battle.Mode",
        "BattleStatusEnum": "tactical.models.Battle.Status",
        "CampaignStatusEnum": "campaign.models.Campaign.Status",
        "MemberRoleEnum": "campaign.models.Membership.Role",
        "PickupBattleStatusEnum": "tactical.models.PickupBattle.Status",
        "WhatIfRunStatusEnum": "tactical.models.WhatIfRun.Status",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"expected_refusals": {"()": "config.logfilters.ExpectedRefusals"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # A 403 (PermissionDenied) is logged as one WARNING line with its reason, no traceback.
        "django.request": {"filters": ["expected_refusals"]},
        # With tasks run in-process (no broker): no "Task … succeeded" lines in the middle of a
        # command's output (a worker's own log shows them), and no warning that the broker URL,
        # never used, names no host.
        **({} if CELERY_BROKER_URL else {
            "celery.app.trace": {"level": "WARNING"},
            "kombu.connection": {"level": "ERROR"},
        }),
    },
}

# --- Security (README "Configuration" and "Production") ------------------------------------------
# With DEBUG off the defaults are a production site's behind a TLS-terminating proxy: plain HTTP is
# redirected to HTTPS and browsers are told to use HTTPS for a year (HSTS is only ever sent on
# HTTPS answers). Including subdomains and asking for preload concern more than this site and are
# hard to undo, so they are off until set; the README's production settings set them.
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)


def _proxy_ssl_header(value: str) -> tuple[str, str] | None:
    """``X-Forwarded-Proto=https`` -> ``("HTTP_X_FORWARDED_PROTO", "https")``. Only for a proxy
    that always sets (or strips) that header: otherwise a client could claim HTTPS itself."""
    if not value:
        return None
    header, sep, expected = (part.strip() for part in value.partition("="))
    if not sep or not header or not expected or not all(c.isalnum() or c in "-_" for c in header):
        raise ImproperlyConfigured(
            f"SECURE_PROXY_SSL_HEADER must look like X-Forwarded-Proto=https, not {value!r}")
    name = header.upper().replace("-", "_")
    return (name if name.startswith("HTTP_") else f"HTTP_{name}", expected)


SECURE_PROXY_SSL_HEADER = _proxy_ssl_header(os.environ.get("SECURE_PROXY_SSL_HEADER", "").strip())

# Content-Security-Policy of every HTML page (campaign/middleware.py); "{nonce}" is replaced by a
# fresh value per request, which the templates' own <style> and <script> elements carry. Style
# attributes stay allowed (style-src-attr): they cannot run script, and the pages use them.
# "off" sends none.
DEFAULT_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'nonce-{nonce}'; style-src 'self' 'nonce-{nonce}'; "
    "style-src-attr 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
CONTENT_SECURITY_POLICY = os.environ.get("CONTENT_SECURITY_POLICY", "").strip() or DEFAULT_CONTENT_SECURITY_POLICY
if CONTENT_SECURITY_POLICY.lower() == "off":
    CONTENT_SECURITY_POLICY = ""
CONTENT_SECURITY_POLICY_REPORT_ONLY = envbool("CONTENT_SECURITY_POLICY_REPORT_ONLY", False)

if not DEBUG:
    SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = envbool("SECURE_COOKIES", True)
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }

# --- Hostile input and what-if limits (issue 14, items 4-6) ----------------------------------
# One input-sanitising layer (campaign/sanitise.py): every query string, form post and JSON body
# is refused with a 400 naming the problem if it holds a NUL or lone surrogate, JSON nested more
# than 64 levels, NaN/Infinity or a number outside the database's integer range.
# After authentication and messages (its refusal page shows the header), before anything that
# does work (the due-turn processing).
_DUE = "campaign.middleware.ProcessDueTurnsMiddleware"
MIDDLEWARE.insert(MIDDLEWARE.index(_DUE) if _DUE in MIDDLEWARE else len(MIDDLEWARE),
                  "campaign.sanitise.InputSanityMiddleware")
REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"] = [
    "campaign.sanitise.JSONParser", "campaign.sanitise.FormParser", "campaign.sanitise.MultiPartParser",
]
# API tokens (campaign/apitokens.py): one unused for this many days stops working (0: never).
API_TOKEN_IDLE_DAYS = envint("API_TOKEN_IDLE_DAYS", 90)
# What-if runs per user (tactical/whatif/runs.py; 0: no limit): runs queued or running at once, and
# battles (the sum of K) started in any 24 hours.
WHATIF_RUNS_AT_ONCE = envint("WHATIF_RUNS_AT_ONCE", 2)
WHATIF_BATTLES_PER_DAY = envint("WHATIF_BATTLES_PER_DAY", 5000)
# Press (campaign/press, docs/press.md): at most PRESS_RATE_LIMIT messages by one person in one
# campaign in PRESS_RATE_WINDOW seconds, by web, API and mail together (0: no limit).
PRESS_RATE_LIMIT = envint("PRESS_RATE_LIMIT", 60)
PRESS_RATE_WINDOW = envint("PRESS_RATE_WINDOW", 3600)
# Invitation emails (a campaign lobby's, a pickup battle's; campaign/accounts.py, counted like the
# sign-up and password-reset emails in each clock hour; 0: no limit): at most this many sent by one
# account, and at most this many to one address whoever sends them.
INVITATION_EMAILS_PER_SENDER = envint("INVITATION_EMAILS_PER_SENDER", 20)
INVITATION_EMAILS_PER_ADDRESS = envint("INVITATION_EMAILS_PER_ADDRESS", 5)
# Pickup battles one account may create in a clock hour (tactical/hosts/pickup; 0: no limit).
PICKUP_CREATE_LIMIT = envint("PICKUP_CREATE_LIMIT", 20)

# --- Mail in (issue 18; campaign/mail, docs/mail.md) -------------------------------------------
# Set once mail reaches the site (docs/mail.md): emails then carry reply addresses and say how to
# answer by mail (turn reports and reminders: Reply-To the orders address; CAM results: CONFIRM/DISPUTE).
MAIL_IN_ENABLED = envbool("MAIL_IN_ENABLED", False)
# Where players send orders.
MAIL_ORDERS_ADDRESS = os.environ.get("MAIL_ORDERS_ADDRESS", "").strip() or f"orders@{MAIL_DOMAIN}"
# Every email the site sends carries "X-Loop: <MAIL_LOOP_TAG>"; incoming mail with an X-Loop is dropped.
MAIL_LOOP_TAG = os.environ.get("MAIL_LOOP_TAG", "").strip() or MAIL_ORDERS_ADDRESS
# At most MAIL_RATE_LIMIT messages in MAIL_RATE_WINDOW seconds are processed per seat / verified sender,
# and as many unverified ones per From: address, counted apart (0: no limit; docs/mail.md).
MAIL_RATE_LIMIT = envint("MAIL_RATE_LIMIT", 30)
MAIL_RATE_WINDOW = envint("MAIL_RATE_WINDOW", 3600)
# Answers to mail the site could not verify (a notice of forged orders, a reply to a From: that is an
# account) go to one address at most MAIL_NOTICE_LIMIT times per MAIL_NOTICE_WINDOW seconds (0: no cap).
MAIL_NOTICE_LIMIT = envint("MAIL_NOTICE_LIMIT", 3)
MAIL_NOTICE_WINDOW = envint("MAIL_NOTICE_WINDOW", 86_400)
# The authserv-id of the site's own MTA in Authentication-Results headers (RFC 8601): a dmarc=pass (or an
# aligned dkim/spf pass) from it verifies the From: address. Empty: no such header is trusted.
MAIL_AUTHSERV_ID = os.environ.get("MAIL_AUTHSERV_ID", "").strip().lower()
# Stored raw mail (secrets already redacted) is emptied this many days after receipt (0: kept).
MAIL_RAW_RETENTION_DAYS = envint("MAIL_RAW_RETENTION_DAYS", 30)
# A stored message whose processing hit a database error is tried again by the due-work sweeps with
# back-off (MAIL_RETRY_SECONDS doubled per attempt, at most an hour), MAIL_RETRY_LIMIT times at most.
MAIL_RETRY_SECONDS = envint("MAIL_RETRY_SECONDS", 60)
MAIL_RETRY_LIMIT = envint("MAIL_RETRY_LIMIT", 12)
# ingestmail (the pipe): take received_at from the topmost Received: header, added by the site's own MTA
# (never later than now, never more than MAIL_RECEIVED_MAX_AGE seconds before it). Off: the store's clock.
MAIL_TRUST_RECEIVED_HEADER = envbool("MAIL_TRUST_RECEIVED_HEADER", False)
MAIL_RECEIVED_MAX_AGE = envint("MAIL_RECEIVED_MAX_AGE", 172_800)
# The domain of the Message-IDs of the site's emails; and the envelope sender (where bounces go) when
# EMAIL_BACKEND is SMTP (empty: DEFAULT_FROM_EMAIL's address).
MAIL_MESSAGE_ID_DOMAIN = os.environ.get("MAIL_MESSAGE_ID_DOMAIN", "").strip() or MAIL_DOMAIN
MAIL_RETURN_PATH = os.environ.get("MAIL_RETURN_PATH", "").strip()
if MAIL_RETURN_PATH and EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend":
    EMAIL_BACKEND = "campaign.mail.smtp.EmailBackend"  # Django's, with MAIL_RETURN_PATH as the envelope sender
# A raw message larger than this is refused at the door (bytes).
MAIL_MAX_BYTES = envint("MAIL_MAX_BYTES", 1_000_000)
# A sender who is no account's address gets one short fixed refusal per this many seconds (0: never).
MAIL_UNKNOWN_REFUSAL_SECONDS = envint("MAIL_UNKNOWN_REFUSAL_SECONDS", 86_400)
# The IMAP mailbox Celery beat polls (unset host: no polling).
MAIL_IMAP_HOST = os.environ.get("MAIL_IMAP_HOST", "").strip()
MAIL_IMAP_PORT = envint("MAIL_IMAP_PORT", 0)  # 0: 993 with SSL, 143 without
MAIL_IMAP_USER = os.environ.get("MAIL_IMAP_USER", "")
MAIL_IMAP_PASSWORD = os.environ.get("MAIL_IMAP_PASSWORD", "")
MAIL_IMAP_FOLDER = os.environ.get("MAIL_IMAP_FOLDER", "") or "INBOX"
# TLS always: MAIL_IMAP_SSL=1 implicit TLS (port 993), 0 STARTTLS (port 143); the certificate is verified
# against the system's CAs or MAIL_IMAP_CAFILE. MAIL_IMAP_PLAIN_LOOPBACK=1 allows a login without TLS to a
# server on a loopback address (and only there).
MAIL_IMAP_SSL = envbool("MAIL_IMAP_SSL", True)
MAIL_IMAP_CAFILE = os.environ.get("MAIL_IMAP_CAFILE", "").strip()
MAIL_IMAP_PLAIN_LOOPBACK = envbool("MAIL_IMAP_PLAIN_LOOPBACK", False)
MAIL_IMAP_DELETE = envbool("MAIL_IMAP_DELETE", False)  # delete (expunge) stored messages instead of flagging them \Seen
MAIL_IMAP_POLL_SECONDS = envint("MAIL_IMAP_POLL_SECONDS", 60)
CELERY_BEAT_SCHEDULE["mail-process-pending"] = {
    # Messages stored but not processed (a worker died, a task was lost) are processed again.
    "task": "campaign.mail.tasks.process_pending", "schedule": envint("MAIL_PENDING_SWEEP_SECONDS", 300),
}
# issue 32 (campaign/groups/, docs/groups.md): away dates, webhook events and retries, each minute.
CELERY_BEAT_SCHEDULE["groups-sweep"] = {"task": "campaign.groups.tasks.sweep", "schedule": 60}
# Webhooks to loopback, private or link-local addresses are refused unless this is on (tests, a
# site whose chat server is on its own network).
GROUPS_WEBHOOK_ALLOW_PRIVATE = os.environ.get("GROUPS_WEBHOOK_ALLOW_PRIVATE", "") == "1"
CELERY_BEAT_SCHEDULE["mail-purge-raw"] = {"task": "campaign.mail.tasks.purge_raw", "schedule": 86_400}
if MAIL_IMAP_HOST:
    CELERY_BEAT_SCHEDULE["mail-imap-poll"] = {
        "task": "campaign.mail.tasks.poll_imap",
        "schedule": MAIL_IMAP_POLL_SECONDS,
    }
