"""The environment variables of AgentOps, read from the source: the reference in docs/operations.md.

    python -m scripts.settings_doc            print the reference (Markdown)
    python -m scripts.settings_doc --write    replace it in docs/operations.md
    python -m scripts.settings_doc --check    exit 1 when docs/operations.md is not up to date

agentops/settings.py is read with `ast`, never imported: every `os.environ.get(NAME, …)`,
`os.environ[NAME]`, `env_bool(NAME, …)` and `env_list(NAME, …)` is a variable, with its type (the
int()/float()/Path() around it), its default, and the comment block it sits under. A comment block
describes the statements right below it, up to a blank line or the next comment; a comment inside a
statement, right above the line that reads a variable, is that variable's own. The launcher's and
the commands' own variables (PROCESS_SOURCES) are found the same way and described by NOTES here,
since their call sites are not where an operator would look; SETTING_NOTES adds what a setting's
comment leaves unsaid. The registry file's reference is diagnosis/registry.py's docstring.
tests/test_operations_doc.py fails when the doc and the sources disagree, or a variable has no
description.
"""

import argparse
import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from scripts import pysource

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = ROOT / "agentops" / "settings.py"
PROCESS_SOURCES = (
    ROOT / "agentops" / "launcher.py",
    ROOT / "agentops" / "embedded.py",
    ROOT / "diagnosis" / "management" / "commands" / "seed_demo.py",
)
DOC = ROOT / "docs" / "operations.md"
BEGIN = "<!-- settings_doc:begin (python -m scripts.settings_doc --write) -->"
END = "<!-- settings_doc:end -->"
REGISTRY_BEGIN = "<!-- registry_doc:begin (python -m scripts.settings_doc --write) -->"
REGISTRY_END = "<!-- registry_doc:end -->"

#: What settings.py's comments leave unsaid, per variable (shown in its row). A variable needs
#: a comment block above it or a note here; tests/test_operations_doc.py checks.
SETTING_NOTES = {
    "DB_CONN_MAX_AGE": "seconds Django keeps a database connection open between requests; 0 "
    "closes it after each (safe behind PgBouncer, and the count stays predictable)",
    "TEST_DATABASE_NAME": "tests only: the test database's name (default: one per process)",
    "SECRET_KEY": "Django's signing key (sessions, CSRF). Set a long random one in production; "
    "unset, a development key is used and `check --deploy` complains",
    "DEBUG": "Django's debug mode: never in production (`./run` sets it for a laptop)",
    "REQUIRE_SECRET_KEY": "refuse to start without SECRET_KEY (unless DEBUG)",
    "ALLOWED_HOSTS": "Host header values Django answers; behind a proxy, the names clients use "
    "plus the names scrapers and health checks use (compose: web-1, web-2)",
    "CSRF_TRUSTED_ORIGINS": "origins (with scheme and port) allowed to POST forms, e.g. "
    "`https://agentops.example.com`",
    "SITE_URL": "the origin people reach the site at, e.g. `https://agentops.example.com` "
    "(scheme and host, no path): the Markdown export and the incident page's copied summaries "
    "link to it; unset, links use the origin of the request that made them; anything but an "
    "http(s) origin stops start-up with an error",
    "OAUTH_TOKEN_KEYS": "Fernet keys that encrypt stored OAuth grants (diagnosis.oauth_grants), "
    "comma-separated: the first encrypts, every one decrypts, so a new key goes first and "
    "`manage.py rotate_oauth_keys` re-encrypts under it before the old one is dropped. Unset: one "
    "key derived from SECRET_KEY (development; changing SECRET_KEY then loses the stored grants)",
    "DATABASE_URL": "PostgreSQL, the only source of truth: `postgresql://user:pass@host:port/name`, "
    "a socket folder as `?host=/path`; escape special characters in the password (`%40` for "
    "`@`). Under `./run` and `./test`, unset starts an embedded PostgreSQL",
    "REDIS_URL": "Redis: Celery broker and the channel layer (wake-ups). Under `./run` and "
    "`./test`, unset starts an embedded Redis",
    "CELERY_BROKER_URL": "the broker, when it is not REDIS_URL",
    "DIAGNOSIS_LEASE_SECONDS": "a running diagnosis's lease; a worker that dies loses it after "
    "this long and the reaper re-queues the task",
    "DIAGNOSIS_MAX_ATTEMPTS": "attempts of one task (lease losses count) before it fails",
    "DIAGNOSIS_DEADLINE_SECONDS": "a diagnosis's deadline from its start; past it the task ends "
    "timed_out",
    "DIAGNOSIS_QUEUED_REDISPATCH_SECONDS": "a queued task untouched this long, or a webhook "
    "delivery unsent this long past its due time and not in flight, is sent to the broker again "
    "by the reaper (the row is the outbox)",
    "DIAGNOSIS_REAPER_INTERVAL_SECONDS": "how often beat runs the reaper (expired leases, stale "
    "queued tasks, expired approvals, unsent webhook deliveries)",
    "SSE_HEARTBEAT_SECONDS": "a comment line on every open stream this often; keep it at most "
    "half the shortest idle timeout between browser and app (proxies, load balancers)",
    "SSE_RETRY_MS": "the `retry:` the stream advises browsers to wait before reconnecting",
    "SSE_MAX_STREAMS_PER_USER": "open streams per user across every web process (counted in "
    "Redis; per process while Redis is away); more get 429 + Retry-After",
    "SSE_STREAM_SLOT_TTL_SECONDS": "a stream stops counting against its user's limit this long "
    "after its web process last renewed it (every heartbeat), so a crashed Daphne's streams "
    "free their slots; at least twice the heartbeat",
    "SSE_MAX_LIFETIME_SECONDS": "a stream is ended after this long (the browser reconnects with "
    "its Last-Event-ID), so no connection lives for ever",
    "SSE_MAX_UNFLUSHED_BYTES": "a client that lets this much pile up unread is cut off; it "
    "resumes from its cursor",
    "SSE_MAX_LAG_EVENTS": "a stream this many events behind the task is cut off the same way",
    "SSE_DRAIN_SECONDS": "on SIGTERM, how long Daphne waits for its streams to end with "
    "`server_draining`",
    "SSE_DRAIN_RETRY_JITTER_MS": "random extra delay (0..this) added to `retry:` on drain, so "
    "the streams of a stopping replica do not reconnect all at once",
    "SSE_DB_POOL_SIZE": "database connections of one web process's event reader (shared by all "
    "its streams)",
    "SSE_RETENTION_SECONDS": "progress events of tasks finished longer ago than this are deleted "
    "by beat's hourly compaction (diagnosis.retention); milestones are kept",
    "STATIC_ROOT": "where `collectstatic` copies static files (WhiteNoise serves them)",
    "AGENTOPS_ARTIFACTS_S3_ENDPOINT_URL": "MinIO, Ceph and other S3-compatible services; unset "
    "means AWS",
    "AGENTOPS_ARTIFACTS_S3_REGION": "the bucket's region",
    "AGENTOPS_ARTIFACTS_S3_ADDRESSING_STYLE": "`path` or `virtual` (S3-compatible services often "
    "need `path`)",
    "AGENTOPS_ARTIFACTS_S3_PREFIX": "a folder inside the bucket",
    "SECURE_SSL_REDIRECT": "redirect plain HTTP to HTTPS (only where the app itself sees TLS "
    "requests, i.e. with BEHIND_TLS_PROXY)",
    "SECURE_HSTS_SECONDS": "Strict-Transport-Security max-age; 0 sends none. Also turns on "
    "includeSubDomains and preload",
    "SESSION_COOKIE_SECURE": "session cookie only over HTTPS",
    "CSRF_COOKIE_SECURE": "CSRF cookie only over HTTPS",
    "BEHIND_TLS_PROXY": "trust `X-Forwarded-Proto: https` from the proxy in front (set it only "
    "when that proxy overwrites the header)",
    "LOG_LEVEL": "root log level (also the worker's and beat's --loglevel under `./run`)",
}

#: Descriptions of the variables read outside settings.py (the launcher, ./run, commands).
PROCESS_NOTES = {
    "AGENTOPS_DATA_DIR": "the data folder of the embedded PostgreSQL and Redis, the demo "
    "password file and beat's schedule (the compose image sets /app/var)",
    "AGENTOPS_DEMO_PASSWORD": "password of the demo user made by `prepare` / `seed_demo`; "
    "unset: generated once and kept in `<data dir>/demo-password` (0600)",
    "AGENTOPS_HOST": "address `./run` serves on",
    "AGENTOPS_PORT": "port `./run` serves on",
    "AGENTOPS_STOP_TIMEOUT": "seconds a child of `./run` gets to stop before SIGKILL",
    "AGENTOPS_RESTART_DELAY": "seconds before `./run` restarts a child that exited; doubled "
    "for each quick exit in a row",
    "AGENTOPS_RESTART_MAX_DELAY": "the longest restart delay of `./run`",
    "WORKER_POOL": "the Celery pool of the worker `./run` starts (compose sets it on the "
    "worker's command line)",
    "WORKER_CONCURRENCY": "diagnoses one worker of `./run` runs at once",
    "XDG_RUNTIME_DIR": "where embedded PostgreSQL keeps its lock; unset or missing: "
    "`<data dir>/run` is made and used",
}

_ENV_GET = re.compile(r"^(os\.)?environ\.get$|^env\.get$|^os\.getenv$")


@dataclass
class Variable:
    name: str
    type: str
    default: str
    line: int
    own_comment: str = ""  # a comment inside the statement, right above the call


@dataclass
class Group:
    comment: str
    variables: list[Variable] = field(default_factory=list)


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _render(node: ast.expr | None) -> str:
    """A default as an operator reads it: '15', 'BASE_DIR/var/artifacts', '1048576'."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant):
        return "" if node.value is None else str(node.value)
    if (
        isinstance(node, ast.Call)
        and _dotted(node.func) in {"str", "Path"}
        and node.args
    ):
        return _render(node.args[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return f"{_render(node.left)}/{_render(node.right)}"
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.IfExp):
        test = ast.unparse(node.test)
        return f"{_render(node.body)} if {test} else {_render(node.orelse)}"
    if isinstance(node, ast.JoinedStr):  # f"test_agentops_{os.getpid()}"
        return "".join(
            str(part.value)
            if isinstance(part, ast.Constant)
            else "{" + ast.unparse(part.value) + "}"  # type: ignore[attr-defined]
            for part in node.values
        )
    try:  # constant arithmetic: 1 << 20, 7 * 86400
        value = eval(
            compile(ast.Expression(node), "<default>", "eval"), {"__builtins__": {}}
        )
    except Exception:
        return ast.unparse(node)
    return str(value)


def _read(call: ast.Call) -> tuple[str, ast.expr | None, str] | None:
    """(name, default node, kind) of an environment read, or None."""
    func = _dotted(call.func)
    if not (call.args and isinstance(call.args[0], ast.Constant)):
        return None
    name = call.args[0].value
    if not isinstance(name, str):
        return None
    default = call.args[1] if len(call.args) > 1 else None
    for keyword in call.keywords:
        if keyword.arg == "default":
            default = keyword.value
    if _ENV_GET.match(func):
        return name, default, "str"
    if func == "env_bool":
        return name, default, "bool"
    if func == "env_list":
        return name, default, "list"
    return None


def _variables(statement: ast.stmt) -> list[Variable]:
    """The environment reads in one top-level statement, with type and default."""
    found: list[Variable] = []
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(statement):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    for node in ast.walk(statement):
        if isinstance(node, ast.Subscript) and _dotted(node.value) == "os.environ":
            name = node.slice.value if isinstance(node.slice, ast.Constant) else None
            # A read, not `os.environ[X] = …` (the launcher exporting a value).
            written = isinstance(node.ctx, ast.Store)
            if isinstance(name, str) and not written:
                found.append(Variable(name, "str", "(required)", node.lineno))
            continue
        if not isinstance(node, ast.Call):
            continue
        read = _read(node)
        if read is None:
            continue
        name, default_node, kind = read
        default = _render(default_node)
        outer = parents.get(node)
        # `os.environ.get(X) or FALLBACK`: the fallback is the default.
        if isinstance(outer, ast.BoolOp) and isinstance(outer.op, ast.Or):
            default = _render(outer.values[-1])
            outer = parents.get(outer)
        if isinstance(outer, ast.Call) and _dotted(outer.func) in {
            "int",
            "float",
            "Path",
        }:
            kind = {"int": "int", "float": "float", "Path": "path"}[_dotted(outer.func)]
        if kind == "bool" and default in {"True", "False"}:
            default = "on" if default == "True" else "off"
        if kind == "bool" and default.startswith("not "):
            default = f"on unless {default[4:]}"
        found.append(Variable(name, kind, default, node.lineno))
    return found


def _comment_above(lines: list[str], line: int) -> str:
    """The comment block that ends on the line right above `line` (1-based), joined."""
    block: list[str] = []
    index = line - 2
    while index >= 0 and lines[index].strip().startswith("#"):
        block.insert(0, lines[index].strip().lstrip("#").strip())
        index -= 1
    return " ".join(part for part in block if part)


def settings_groups(source: str) -> list[Group]:
    """The settings module's variables, grouped under the comment each sits under."""
    lines = source.splitlines()
    tree = pysource.parse(source)
    groups: list[Group] = []
    current: Group | None = None
    previous_end = 0
    for statement in tree.body:
        start = statement.lineno
        comment = _comment_above(lines, start)
        gap = any(not lines[i].strip() for i in range(previous_end, start - 1))
        if comment or gap or current is None:
            current = Group(comment)
            groups.append(current)
        previous_end = statement.end_lineno or start
        for variable in _variables(statement):
            if variable.line != start:
                variable.own_comment = _comment_above(lines, variable.line)
            current.variables.append(variable)
    return [group for group in groups if group.variables]


def process_variables(sources: tuple[Path, ...] = PROCESS_SOURCES) -> list[Variable]:
    """Variables read outside settings.py, first read of each name."""
    seen: dict[str, Variable] = {}
    for path in sources:
        tree = pysource.parse(path.read_text(encoding="utf-8"))
        for statement in tree.body:
            for variable in _variables(statement):
                known = seen.get(variable.name)
                # A .get() with its default says more than an os.environ[...] read.
                if known is None or known.default == "(required)":
                    seen[variable.name] = variable
    return sorted(seen.values(), key=lambda v: v.name)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _code(text: str) -> str:
    return f"`{text}`" if text else "(empty)"


def _table(rows: list[tuple[Variable, str]]) -> list[str]:
    out = ["| Variable | Type | Default | Notes |", "|---|---|---|---|"]
    for variable, note in rows:
        out.append(
            f"| `{variable.name}` | {variable.type} | {_code(variable.default)} | {_cell(note)} |"
        )
    return out


def reference(settings_source: str | None = None) -> str:
    """The Markdown between the markers in docs/operations.md: the settings' variables grouped
    under their comments as in the file, then the launcher's."""
    source = settings_source if settings_source is not None else SETTINGS.read_text()
    out = [
        "Read by `agentops/settings.py` (web, worker, beat and the commands alike), in the "
        "file's order, each group under the comment it has there. Booleans take `1`, `true`, "
        "`yes` or `on` (any case) for on and anything else for off; lists are comma-separated; "
        "`BASE_DIR` is the app's folder (`/app` in the image).",
        "",
    ]
    seen: set[str] = set()
    # (comment, rows): groups without a comment in a row share one table.
    sections: list[tuple[str, list[tuple[Variable, str]]]] = []
    for group in settings_groups(source):
        rows = []
        for variable in group.variables:
            if variable.name in seen:  # read twice: the first read documents it
                continue
            seen.add(variable.name)
            rows.append(
                (variable, SETTING_NOTES.get(variable.name) or variable.own_comment)
            )
        if not rows:
            continue
        if not group.comment and sections and not sections[-1][0]:
            sections[-1][1].extend(rows)
        else:
            sections.append((group.comment, rows))
    for comment, rows in sections:
        if comment:
            out += [comment, ""]
        out += [*_table(rows), ""]
    out += [
        "Read by the launcher (`./run`, `python -m agentops.launcher`) and the demo commands, "
        "not by the settings:",
        "",
    ]
    rows = [
        (variable, PROCESS_NOTES.get(variable.name, ""))
        for variable in process_variables()
        if variable.name not in seen
    ]
    out += _table(rows)
    return "\n".join(out) + "\n"


def undescribed(settings_source: str | None = None) -> list[str]:
    """Variables with neither a comment above them nor a note."""
    source = settings_source if settings_source is not None else SETTINGS.read_text()
    missing = [
        v.name
        for group in settings_groups(source)
        for v in group.variables
        if not (group.comment or v.own_comment or v.name in SETTING_NOTES)
    ]
    settings_names = {v.name for g in settings_groups(source) for v in g.variables}
    missing += [
        v.name
        for v in process_variables()
        if v.name not in settings_names and v.name not in PROCESS_NOTES
    ]
    return missing


def registry_reference() -> str:
    """diagnosis/registry.py's docstring after its first paragraph: the registry file's format."""
    path = ROOT / "diagnosis" / "registry.py"
    docstring = (
        ast.get_docstring(pysource.parse(path.read_text(encoding="utf-8"))) or ""
    )
    _, _, body = docstring.partition("\n\n")
    # The docstring's reST literal block (`File format::`) becomes a fenced TOML block.
    text = re.sub(
        r"::\n\n((?:    .*\n|\n)+)",
        lambda m: (
            ":\n\n```toml\n"
            + "\n".join(line[4:] for line in m.group(1).rstrip("\n").splitlines())
            + "\n```\n\n"
        ),
        body.strip() + "\n",
    )
    return text


def embed(doc: str, begin: str, end: str, section: str) -> str:
    before, rest = doc.split(begin, 1)
    _, after = rest.split(end, 1)
    return f"{before}{begin}\n{section}{end}{after}"


def updated_doc(doc: str) -> str:
    """docs/operations.md with both generated sections replaced."""
    doc = embed(doc, BEGIN, END, reference())
    return embed(doc, REGISTRY_BEGIN, REGISTRY_END, registry_reference())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.settings_doc")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="update docs/operations.md")
    mode.add_argument(
        "--check", action="store_true", help="exit 1 if it is out of date"
    )
    args = parser.parse_args(argv)
    if not (args.write or args.check):
        sys.stdout.write(reference())
        return 0
    doc = DOC.read_text(encoding="utf-8")
    updated = updated_doc(doc)
    if args.check:
        if updated != doc:
            sys.stderr.write(
                "docs/operations.md is out of date: python -m scripts.settings_doc --write\n"
            )
            return 1
        return 0
    DOC.write_text(updated, encoding="utf-8")
    missing = undescribed()
    if missing:
        sys.stderr.write(
            f"no comment above and no note in scripts/settings_doc.py: {', '.join(missing)}\n"
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
