"""Django settings, all read from the environment (healthchecks style).

Secrets come only from the environment. Defaults are safe for a laptop: DEBUG off unless
asked for, hosts limited to loopback. With DATABASE_URL / REDIS_URL unset, the launcher
(`agentops.launcher`) starts embedded PostgreSQL and Redis and exports their URLs before
Django is imported; importing settings without them falls back to the machine's local
services on 127.0.0.1.
"""

import os
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, *, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [
        item.strip()
        for item in os.environ.get(name, default).split(",")
        if item.strip()
    ]


def database_from_url(url: str) -> dict[str, object]:
    """Turn postgresql://user:pass@host:port/name?host=/socket/dir into a DATABASES entry."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ValueError(
            f"DATABASE_URL must be a postgresql:// URL, not {parts.scheme!r}"
        )
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    host = unquote(parts.hostname or "") or query.pop("host", "")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")) or "postgres",
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(parts.port or ""),
        "CONN_MAX_AGE": int(os.environ.get("DB_CONN_MAX_AGE", "0")),
        "OPTIONS": query,
        # One test database per test process, so parallel runs on one server do not collide.
        "TEST": {
            "NAME": os.environ.get("TEST_DATABASE_NAME")
            or f"test_agentops_{os.getpid()}"
        },
    }


def site_url_from_env(value: str) -> str:
    """SITE_URL as the origin links are made absolute with ("" when unset).

    Raises:
        ValueError: not an absolute http(s) URL of a host alone (no path, query or
            fragment), so a typo stops start-up instead of writing broken links.
    """
    url = value.strip().rstrip("/")
    if not url:
        return ""
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
        parts = urlsplit("")
    if (
        parts.scheme not in {"http", "https"}
        or not parts.hostname
        or not port_ok
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username is not None
        or any(c.isspace() or c in "<>|()\"'`\\" for c in url)
    ):
        raise ValueError(
            "SITE_URL must be an absolute http(s) URL of the site's origin, such as "
            f"https://agentops.example.com (no path), not {value!r}"
        )
    return url


SECRET_KEY = os.environ.get("SECRET_KEY", "")
DEBUG = env_bool("DEBUG", default=False)
if not SECRET_KEY:
    if not DEBUG and env_bool("REQUIRE_SECRET_KEY", default=False):
        raise RuntimeError("SECRET_KEY must be set in production")
    # A development key, never used when SECRET_KEY is set; `check --deploy` flags it.
    SECRET_KEY = "django-insecure-agentops-development-only"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list(
    "CSRF_TRUSTED_ORIGINS", "http://127.0.0.1:8000,http://localhost:8000"
)
SITE_URL = site_url_from_env(os.environ.get("SITE_URL", ""))

OAUTH_TOKEN_KEYS = env_list("OAUTH_TOKEN_KEYS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "csp",
    "django_htmx",
    "template_partials",
    "diagnosis",
]

MIDDLEWARE = [
    # First, so its latency covers the whole stack (agentops_http_* on /metrics).
    "diagnosis.observability.http.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Before WhiteNoise, which answers static files itself: they carry the policy and the
    # frame denial too.
    "csp.middleware.CSPMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After WhiteNoise: static files keep their caching; every other answer is private.
    "diagnosis.cache_control.PrivateNoStoreMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "agentops.urls"
ASGI_APPLICATION = "agentops.asgi.application"
WSGI_APPLICATION = None

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
            ],
        },
    },
]

DATABASE_URL = os.environ.get(
    "DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/agentops"
)
DATABASES = {"default": database_from_url(DATABASE_URL)}
DATABASE_UNAVAILABLE_RETRY_AFTER = int(
    # Seconds in the Retry-After of the 503 every page and API call answers while PostgreSQL
    # is unreachable (an outage, not a bug; diagnosis.outage)
    os.environ.get("DATABASE_UNAVAILABLE_RETRY_AFTER", "5")
)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            "hosts": [REDIS_URL],
            "capacity": 1000,
            "expiry": 30,
            # Wake-ups are hints; a catch-up read covers any that are dropped.
            "group_expiry": 86400,
        },
    }
}

# Celery: ids only, JSON only, at-least-once delivery (acks_late + reject on worker loss).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A broker outage is ridden out (the celery pin in pyproject.toml says why 5.7.0 cannot):
# reconnect for as long as it lasts, and let a running diagnosis go on meanwhile. Its lease
# lives in PostgreSQL, and its unacknowledged message, redelivered, finds the task finished.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False

# Durable runner (diagnosis.runner): a lease is renewed every LEASE_SECONDS / 3.
DIAGNOSIS_LEASE_SECONDS = int(os.environ.get("DIAGNOSIS_LEASE_SECONDS", "30"))
DIAGNOSIS_MAX_ATTEMPTS = int(os.environ.get("DIAGNOSIS_MAX_ATTEMPTS", "3"))
DIAGNOSIS_DEADLINE_SECONDS = int(os.environ.get("DIAGNOSIS_DEADLINE_SECONDS", "900"))
# The engine's budget (diagnosis.engine.policy): tool calls, seconds of calling (also bounded
# by the task's deadline), and seconds kept back to write the report.
DIAGNOSIS_MAX_TOOL_CALLS = int(os.environ.get("DIAGNOSIS_MAX_TOOL_CALLS", "40"))
DIAGNOSIS_BUDGET_SECONDS = float(os.environ.get("DIAGNOSIS_BUDGET_SECONDS", "120"))
DIAGNOSIS_DEADLINE_RESERVE_SECONDS = float(
    os.environ.get("DIAGNOSIS_DEADLINE_RESERVE_SECONDS", "3")
)
# How long netcheck watches an event stream for an idle cut when the symptoms talk of streams.
DIAGNOSIS_STREAM_WATCH_SECONDS = float(
    os.environ.get("DIAGNOSIS_STREAM_WATCH_SECONDS", "6")
)
# The optional LLM planner (reasoning.llm_planner), used when LLM_BASE_URL and LLM_MODEL
# are set: an OpenAI-compatible chat completions API, its key from the environment only, and
# the planner's budgets (model round-trips, total tokens as the API reports them, seconds per request).
LLM_BASE_URL = os.environ.get("LLM_BASE_URL", "")
LLM_MODEL = os.environ.get("LLM_MODEL", "")
LLM_API_KEY = os.environ.get("LLM_API_KEY", "")
LLM_MAX_STEPS = int(os.environ.get("LLM_MAX_STEPS", "12"))
LLM_MAX_TOKENS = int(os.environ.get("LLM_MAX_TOKENS", "200000"))
LLM_TIMEOUT_SECONDS = float(os.environ.get("LLM_TIMEOUT_SECONDS", "30"))
# OpenTelemetry: with either set, each task's trace is exported over OTLP/HTTP when it ends
# (diagnosis.observability.otel; needs the `otel` extra). The base endpoint gets /v1/traces
# appended, the traces endpoint is used as it is; the exporter reads the other OTEL_EXPORTER_OTLP_*
# variables (headers, timeout, compression, certificates) and OTEL_SERVICE_NAME itself.
OTEL_EXPORTER_OTLP_ENDPOINT = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "")
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = os.environ.get(
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", ""
)
DIAGNOSIS_QUEUED_REDISPATCH_SECONDS = int(
    os.environ.get("DIAGNOSIS_QUEUED_REDISPATCH_SECONDS", "30")
)
DIAGNOSIS_REAPER_INTERVAL_SECONDS = float(
    os.environ.get("DIAGNOSIS_REAPER_INTERVAL_SECONDS", "5")
)
# How long an approval waits for a person (diagnosis.approvals); then the reaper expires it
# and the parked task runs on without the action.
DIAGNOSIS_APPROVAL_TTL_SECONDS = int(
    os.environ.get("DIAGNOSIS_APPROVAL_TTL_SECONDS", "900")
)
# A demo environment's listeners (diagnosis.engine.shared_listeners) are shared by the diagnoses
# of one worker process and kept this long after the last one gives them back, on the same
# ports: long enough for a diagnosis parked on an approval to resume on them, i.e. the approval's
# wait plus a minute for the reaper to expire it and the worker to pick the task up again.
DEMO_LISTENERS_IDLE_SECONDS = float(
    os.environ.get(
        "DEMO_LISTENERS_IDLE_SECONDS", str(DIAGNOSIS_APPROVAL_TTL_SECONDS + 60)
    )
)
# The worker's MCP session pool (diagnosis.engine.server_pool): a session no diagnosis has used
# for this long is closed (a stdio server's child exits).
MCP_POOL_IDLE_SECONDS = float(os.environ.get("MCP_POOL_IDLE_SECONDS", "300"))
# Incident creation per tenant (API and page form): at most INCIDENT_RATE_LIMIT incidents in any
# INCIDENT_RATE_WINDOW_SECONDS (a sliding window counted in PostgreSQL, which must work while
# Redis is down; diagnosis.selectors.incident_create_retry_after). Over it: 429 + Retry-After.
# 0 turns the limit off.
INCIDENT_RATE_LIMIT = int(os.environ.get("INCIDENT_RATE_LIMIT", "120"))
INCIDENT_RATE_WINDOW_SECONDS = int(os.environ.get("INCIDENT_RATE_WINDOW_SECONDS", "60"))
# Alert payloads per tenant (POST /api/alerts/*, diagnosis.intake.receive): at most ALERT_RATE_LIMIT in
# each fixed window of ALERT_RATE_WINDOW_SECONDS, counted in PostgreSQL; over it 429 +
# Retry-After. Incidents they open also count against INCIDENT_RATE_LIMIT. 0 turns it off.
ALERT_RATE_LIMIT = int(os.environ.get("ALERT_RATE_LIMIT", "600"))
ALERT_RATE_WINDOW_SECONDS = int(os.environ.get("ALERT_RATE_WINDOW_SECONDS", "60"))
# /metrics and the worker's exporter (diagnosis.observability.exposition): a scrape needs
# Authorization: Bearer METRICS_TOKEN or a peer address in METRICS_ALLOWED_IPS (addresses or
# CIDRs, comma-separated); with neither set nobody may scrape. METRICS_WORKER_PORT (0: off)
# makes each Celery worker serve its own /metrics on METRICS_WORKER_ADDRESS.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
METRICS_ALLOWED_IPS = env_list("METRICS_ALLOWED_IPS", "")
METRICS_WORKER_PORT = int(os.environ.get("METRICS_WORKER_PORT", "0"))
METRICS_WORKER_ADDRESS = os.environ.get("METRICS_WORKER_ADDRESS", "127.0.0.1")
# Test-only plans (diagnosis.plans: the `timed` plan of sleeps) offered by the API and pages;
# the test suite turns it on. Off, they are reachable only through the service layer.
DIAGNOSIS_TEST_PLANS = env_bool("DIAGNOSIS_TEST_PLANS", default=False)
# The server registry (environments of MCP servers; format in diagnosis/registry.py), checked
# at start by diagnosis.checks. Default: the bundled file.
AGENTOPS_SERVERS = os.environ.get("AGENTOPS_SERVERS") or str(
    BASE_DIR / "diagnosis" / "servers.toml"
)
# The broker must not redeliver an unacknowledged task while its lease can still be alive.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": max(3600, DIAGNOSIS_LEASE_SECONDS * 4),
    # A broker that hangs (paused, or gone without closing TCP) must fail an enqueue within
    # seconds, not hold the request forever (it did): the queued row is the outbox, and the
    # reaper sends it later. Two tries of up to 2 s each (the policy below), then give up.
    "socket_timeout": 2,
    "socket_connect_timeout": 2,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_BEAT_SCHEDULE = {
    "diagnosis-reaper": {
        "task": "diagnosis.tasks.diagnosis_reap",
        "schedule": DIAGNOSIS_REAPER_INTERVAL_SECONDS,
    },
    "diagnosis-events-compact": {
        "task": "diagnosis.retention.events_compact",
        "schedule": 3600.0,
    },
}
# Tasks outside diagnosis/tasks.py that the worker must register.
CELERY_IMPORTS = ["diagnosis.retention"]

# SSE (diagnosis.streaming)
SSE_HEARTBEAT_SECONDS = float(os.environ.get("SSE_HEARTBEAT_SECONDS", "15"))
SSE_RETRY_MS = int(os.environ.get("SSE_RETRY_MS", "2000"))
SSE_MAX_STREAMS_PER_USER = int(os.environ.get("SSE_MAX_STREAMS_PER_USER", "20"))
SSE_STREAM_SLOT_TTL_SECONDS = float(os.environ.get("SSE_STREAM_SLOT_TTL_SECONDS", "60"))
SSE_MAX_LIFETIME_SECONDS = float(os.environ.get("SSE_MAX_LIFETIME_SECONDS", "3600"))
SSE_MAX_UNFLUSHED_BYTES = int(os.environ.get("SSE_MAX_UNFLUSHED_BYTES", str(1 << 20)))
SSE_MAX_LAG_EVENTS = int(os.environ.get("SSE_MAX_LAG_EVENTS", "5000"))
SSE_DRAIN_SECONDS = float(os.environ.get("SSE_DRAIN_SECONDS", "3"))
SSE_DRAIN_RETRY_JITTER_MS = int(os.environ.get("SSE_DRAIN_RETRY_JITTER_MS", "3000"))
SSE_DB_POOL_SIZE = int(os.environ.get("SSE_DB_POOL_SIZE", "4"))
# While wake-ups are unavailable (Redis away: the hub probes it), every stream reads the
# table this often; also how often the hub probes. At most 2 s.
SSE_FALLBACK_POLL_SECONDS = float(os.environ.get("SSE_FALLBACK_POLL_SECONDS", "1"))
SSE_RETENTION_SECONDS = int(os.environ.get("SSE_RETENTION_SECONDS", str(7 * 86400)))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "var" / "staticfiles"))
# WhiteNoise serves static files from Daphne; with finders on, no collectstatic is needed first.
WHITENOISE_USE_FINDERS = True

# Tool-call results (diagnosis.artifacts): a span keeps a redacted preview of at most
# DIAGNOSIS_RESULT_PREVIEW_CHARS characters, and the redacted result itself when its canonical
# JSON is at most DIAGNOSIS_RESULT_INLINE_BYTES; a larger one goes to the "artifacts" storage
# (a folder, or an S3-compatible bucket when AGENTOPS_ARTIFACTS_S3_BUCKET is set: install the
# `s3` extra; credentials come from boto3's own chain, AWS_ACCESS_KEY_ID and friends).
DIAGNOSIS_RESULT_PREVIEW_CHARS = int(
    os.environ.get("DIAGNOSIS_RESULT_PREVIEW_CHARS", "2000")
)
DIAGNOSIS_RESULT_INLINE_BYTES = int(
    os.environ.get("DIAGNOSIS_RESULT_INLINE_BYTES", str(256 * 1024))
)
AGENTOPS_ARTIFACTS_DIR = Path(
    os.environ.get("AGENTOPS_ARTIFACTS_DIR") or BASE_DIR / "var" / "artifacts"
)
AGENTOPS_ARTIFACTS_S3_BUCKET = os.environ.get("AGENTOPS_ARTIFACTS_S3_BUCKET", "")
ARTIFACTS_STORAGE: dict[str, object] = (
    {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": AGENTOPS_ARTIFACTS_S3_BUCKET,
            # MinIO, Ceph and other S3-compatible services; unset means AWS.
            "endpoint_url": os.environ.get("AGENTOPS_ARTIFACTS_S3_ENDPOINT_URL")
            or None,
            "region_name": os.environ.get("AGENTOPS_ARTIFACTS_S3_REGION") or None,
            "addressing_style": os.environ.get("AGENTOPS_ARTIFACTS_S3_ADDRESSING_STYLE")
            or None,
            "location": os.environ.get("AGENTOPS_ARTIFACTS_S3_PREFIX", ""),
            "file_overwrite": True,
        },
    }
    if AGENTOPS_ARTIFACTS_S3_BUCKET
    else {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        # A re-stored span replaces its file instead of getting a new name.
        "OPTIONS": {"location": AGENTOPS_ARTIFACTS_DIR, "allow_overwrite": True},
    }
)
# Django's two defaults, spelled out because setting STORAGES replaces them all.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "artifacts": ARTIFACTS_STORAGE,
}

# Production hardening: on unless DEBUG; `manage.py check --deploy` passes with a real SECRET_KEY.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https")
    if env_bool("BEHIND_TLS_PROXY", default=False)
    else None
)
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp 4.x format): our own static files only; no inline script
# or style (htmx's indicator style is off: the htmx-config meta tag in base.html). Answers built
# outside Django (the SSE app, the ASGI body-limit refusal) take it from diagnosis.http_headers.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "object-src": ["'none'"],
    }
}

LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO").upper()
# json: one JSON object a line (trace_id, task_id, tenant, span_id where known; secrets
# redacted); human: structlog's console lines. Default: human when DEBUG, else json.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "") or ("human" if DEBUG else "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "structured": {
            "()": "diagnosis.observability.logs.formatter",
            "style": LOG_FORMAT,
        }
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "structured"}
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {"django": {"level": LOG_LEVEL, "propagate": True}},
}
