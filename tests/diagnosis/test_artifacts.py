"""Span results: canonical hashes, bounded previews, inline or an artifact on real storage."""

import importlib.util
import json
import runpy
from pathlib import Path

import pytest
from django.core.files.storage import FileSystemStorage, storages

from diagnosis import artifacts
from diagnosis.artifacts import (
    ArtifactCorrupt,
    ArtifactMissing,
    arguments_hash,
    canonical_json,
    load_result,
    preview,
    sha256_hex,
    store_result,
)

SETTINGS_FILE = Path(__file__).resolve().parents[2] / "agentops" / "settings.py"


@pytest.fixture
def artifacts_dir(settings, tmp_path):
    """The artifacts storage in a temporary folder (STORAGES changed: Django resets `storages`)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "artifacts": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path, "allow_overwrite": True},
        },
    }
    settings.DIAGNOSIS_RESULT_INLINE_BYTES = 1024
    return tmp_path


def test_canonical_json_is_sorted_compact_utf8():
    assert canonical_json({"b": 1, "a": {"d": [1, 2], "c": "é"}}) == (
        '{"a":{"c":"é","d":[1,2]},"b":1}'.encode()
    )


def test_arguments_hash_is_stable_across_key_order():
    first = {
        "service": "payments",
        "window": {"start": "10:00", "end": "10:15"},
        "limit": 100,
    }
    second = {
        "limit": 100,
        "window": {"end": "10:15", "start": "10:00"},
        "service": "payments",
    }

    assert arguments_hash(first) == arguments_hash(second)
    assert arguments_hash(first) == sha256_hex(canonical_json(first))
    assert arguments_hash(first) != arguments_hash({**first, "limit": 101})


def test_canonical_json_refuses_nan():
    with pytest.raises(ValueError, match="JSON compliant"):
        canonical_json({"x": float("nan")})


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain text", "plain text"),
        ({"text": "line one\nline two", "structured": {"a": 1}}, "line one\nline two"),
        (
            {
                "content": [
                    {"type": "text", "text": "hello"},
                    {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
                    {"type": "text", "text": "world"},
                ]
            },
            "hello\n[image image/png]\nworld",
        ),
        ({"text": "", "structured": {"b": 2, "a": "é"}}, '{"a":"é","b":2}'),
        ([1, {"k": None}], '[1,{"k":null}]'),
    ],
)
def test_preview_joins_text_or_writes_compact_json(value, expected):
    assert preview(value, limit=100) == expected


@pytest.mark.parametrize("limit", [10, 40, 100, 2000])
def test_preview_is_bounded_and_says_how_much_was_cut(limit):
    text = "x" * 5000

    shown = preview(text, limit=limit)

    assert len(shown) <= limit
    if limit >= 40:
        kept = shown.split("…")[0]
        assert shown == f"{kept}…[cut {5000 - len(kept)} characters]"


def test_preview_defaults_to_the_setting(settings):
    settings.DIAGNOSIS_RESULT_PREVIEW_CHARS = 50

    assert len(preview("y" * 1000)) == 50


def test_small_result_stays_inline_redacted(artifacts_dir):
    stored = store_result(
        task_id="t1",
        span_id="a1b2c3d4e5f60718",
        value={"text": "login with password=hunter2"},
    )

    assert stored.result == {"text": "login with password=***"}
    assert stored.uri == ""
    assert stored.sha256 == sha256_hex(canonical_json(stored.result))
    assert stored.size == len(canonical_json(stored.result))
    assert stored.preview == "login with password=***"
    assert list(artifacts_dir.iterdir()) == []


def test_large_result_goes_to_storage_and_comes_back_identical(artifacts_dir):
    rows = [
        {"ts": f"2025-01-01T00:00:{i % 60:02d}Z", "line": f"GET /v1/charge {i} é"}
        for i in range(200)
    ]
    value = {
        "structured": {"rows": rows, "api_key": "4b1e0a2c9d8f7e6a"},
        "text": "200 rows",
    }

    stored = store_result(task_id="task-1", span_id="a1b2c3d4e5f60718", value=value)

    assert stored.result is None
    assert stored.uri == "artifacts:spans/task-1/a1b2c3d4e5f60718.json"
    path = artifacts_dir / "spans" / "task-1" / "a1b2c3d4e5f60718.json"
    data = path.read_bytes()
    assert "4b1e0a2c" not in data.decode()  # redacted before it was written
    assert stored.size == len(data) > 1024
    assert stored.sha256 == sha256_hex(data)
    assert stored.preview == "200 rows"
    loaded = load_result(stored.uri, sha256=stored.sha256)
    assert loaded == {
        "structured": {"rows": rows, "api_key": "***"},
        "text": "200 rows",
    }
    assert sha256_hex(canonical_json(loaded)) == stored.sha256


def test_storing_a_span_again_replaces_its_artifact(artifacts_dir):
    big = {"text": "z" * 2000}
    first = store_result(task_id="t", span_id="s1", value=big)
    second = store_result(task_id="t", span_id="s1", value={"text": "w" * 3000})

    assert first.uri == second.uri
    assert load_result(second.uri, sha256=second.sha256) == {"text": "w" * 3000}
    assert [p.name for p in (artifacts_dir / "spans" / "t").iterdir()] == ["s1.json"]


def test_load_result_of_an_absent_artifact_raises_missing(artifacts_dir):
    with pytest.raises(ArtifactMissing) as raised:
        load_result("artifacts:spans/t/never.json")
    assert raised.value.uri == "artifacts:spans/t/never.json"

    with pytest.raises(ArtifactMissing):
        load_result("s3://elsewhere/x.json")


def test_load_result_refuses_bytes_that_do_not_match_the_hash(artifacts_dir):
    stored = store_result(task_id="t", span_id="s2", value={"text": "q" * 2000})
    path = artifacts_dir / "spans" / "t" / "s2.json"
    path.write_bytes(path.read_bytes().replace(b"q", b"Q", 1))

    with pytest.raises(ArtifactCorrupt):
        load_result(stored.uri, sha256=stored.sha256)


def _settings_with(monkeypatch, **env):
    for name in ("AGENTOPS_ARTIFACTS_S3_BUCKET", "AGENTOPS_ARTIFACTS_DIR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS_FILE))


def test_settings_default_to_a_folder_and_keep_djangos_storages(monkeypatch, tmp_path):
    module = _settings_with(monkeypatch, AGENTOPS_ARTIFACTS_DIR=str(tmp_path))

    configured = module["STORAGES"]
    assert (
        configured["artifacts"]["BACKEND"]
        == "django.core.files.storage.FileSystemStorage"
    )
    assert configured["artifacts"]["OPTIONS"]["location"] == tmp_path
    assert configured["staticfiles"]["BACKEND"].endswith("StaticFilesStorage")
    assert configured["default"]["BACKEND"].endswith("FileSystemStorage")


def test_settings_select_s3_when_a_bucket_is_named(monkeypatch):
    # S3 itself cannot run here (no network): this checks the selection and, when the optional
    # `s3` extra is installed, that S3Storage accepts every option (it refuses unknown ones).
    module = _settings_with(
        monkeypatch,
        AGENTOPS_ARTIFACTS_S3_BUCKET="agentops-artifacts",
        AGENTOPS_ARTIFACTS_S3_ENDPOINT_URL="http://127.0.0.1:9000",
        AGENTOPS_ARTIFACTS_S3_ADDRESSING_STYLE="path",
    )

    config = module["STORAGES"]["artifacts"]
    assert config["BACKEND"] == "storages.backends.s3.S3Storage"
    assert config["OPTIONS"]["bucket_name"] == "agentops-artifacts"
    assert config["OPTIONS"]["endpoint_url"] == "http://127.0.0.1:9000"
    if importlib.util.find_spec("storages") is None:
        pytest.skip("django-storages (the s3 extra) is not installed")
    from django.core.files.storage.handler import StorageHandler

    storage = StorageHandler({"artifacts": config})["artifacts"]
    assert (storage.bucket_name, storage.addressing_style) == (
        "agentops-artifacts",
        "path",
    )


def test_the_configured_artifacts_storage_is_a_folder_by_default():
    assert isinstance(storages[artifacts.STORAGE_ALIAS], FileSystemStorage)


def test_store_result_output_is_json_for_the_span_row(artifacts_dir):
    stored = store_result(
        task_id="t",
        span_id="s3",
        value={"text": "ok", "structured": {"n": float("inf")}},
    )

    json.dumps(stored.result, allow_nan=False)
    assert stored.result == {"text": "ok", "structured": {"n": "inf"}}
