"""The one masking module: a corpus of real-looking secrets in many shapes is masked with the text
around each kept; look-alikes (keys that only name or count a secret, prose) stay as they are.

Pure: no database, no Django (tests/reasoning/conftest.py turns the database fixture off)."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from reasoning.masking import MASK, is_secret_key, mask_text, redact
from scripts import pysource
from tests.reasoning.corpus import LOOK_ALIKES, SECRETS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("case", SECRETS, ids=lambda c: f"{c.shape}:{c.text[:40]}")
def test_every_secret_shape_is_masked_and_its_surroundings_kept(case):
    masked = mask_text(case.text)

    assert case.secret not in masked
    assert masked == case.masked
    assert mask_text(masked) == masked  # idempotent: a second pass changes nothing


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_a_look_alike_is_left_as_it_is(text):
    assert mask_text(text) == text


def test_the_whole_corpus_as_one_log_text_loses_every_secret():
    text = "\n".join(case.text for case in SECRETS)

    masked = mask_text(text)

    assert [c.secret for c in SECRETS if c.secret in masked] == []
    assert masked == "\n".join(case.masked for case in SECRETS)


def test_secrets_inside_json_values_go_and_grouping_keys_stay():
    # What a span stores for top_errors: the group's key is no secret, its sample may hold one.
    result = {
        "top": [
            {
                "signature": "db auth failed for <ip>:<n>",
                "count": 3,
                "sample": SECRETS[0].text,
                "token_count": 17,
            }
        ],
        "headers": [["Authorization", "Bearer Zx9cV8bN7mQ6"]],
        "env": [{"name": "PGPASSWORD", "value": "Wq2eR3tY4uI5"}],
        "passwordless": True,
    }

    redacted = redact(result)
    dumped = json.dumps(redacted)

    assert redacted["top"][0]["signature"] == "db auth failed for <ip>:<n>"
    assert redacted["top"][0]["token_count"] == 17
    assert redacted["passwordless"] is True
    assert redacted["top"][0]["sample"] == SECRETS[0].masked
    for secret in (SECRETS[0].secret, "Zx9cV8bN7mQ6", "Wq2eR3tY4uI5"):
        assert secret not in dumped


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("PGPASSWORD", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("--db-password", True),
        ("Pwd", True),
        ("X-Amz-Signature", True),
        ("sig", True),
        ("AccountKey", True),
        ("signature", False),
        ("token_count", False),
        ("passwordless", False),
        ("secretRef", False),
        ("secretKeyRef", False),
        ("secret_name", False),
        ("max_token", False),
    ],
)
def test_key_rule(name, secret):
    assert is_secret_key(name) is secret


def test_the_module_imports_nothing_but_the_standard_library():
    # The rest of reasoning/ may use httpx (the LLM planner); the servers import only these two.
    for path in (ROOT / "reasoning" / "__init__.py", ROOT / "reasoning" / "masking.py"):
        tree = pysource.parse(path.read_text(encoding="utf-8"))
        imported = {
            (node.module or "").split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 0
        } | {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        assert imported <= sys.stdlib_module_names | {"__future__"}, path


def test_importing_it_loads_no_third_party_module():
    # Every stdio server imports it at start-up: it must stay light.
    code = (
        "import sys; before = set(sys.modules); import reasoning.masking; "
        "print(sorted(m for m in set(sys.modules) - before "
        "if m.split('.')[0] not in sys.stdlib_module_names))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert json.loads(out.replace("'", '"')) == ["reasoning", "reasoning.masking"]


def test_a_hostile_line_is_masked_in_linear_time():
    hostile = (
        "PGPASSWORD " * 9_000
        + "--password " * 9_000
        + "passwd%3D" * 9_000
        + "mysql -p " * 9_000
    )

    masked = mask_text(hostile)

    assert MASK in masked
