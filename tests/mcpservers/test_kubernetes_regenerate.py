"""A Kubernetes scenario that keeps its objects (cluster.json) regenerates its kubernetes.json:
served by the fake API on 127.0.0.1, captured with the real kubectl, equal to the committed file.

Nothing is normalised: the objects' times are relative to the file's fixed `now` (tables print
against it) and events follow the wall clock (kubectl computes their ages itself), so every run
prints the same text. The regeneration tests are marked slow (a hundred kubectl runs each).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pytest

from mcpservers.kubernetes.fakeapi import FakeKubeAPI, relative_seconds, resolve_times
from mcpservers.scenarios import ROOT
from mcpservers.scenarios.cluster import (
    ClusterError,
    read_cluster,
    regenerate,
    scenarios_with_objects,
    snapshot_text,
)

if TYPE_CHECKING:
    from pathlib import Path

CONVERTED = scenarios_with_objects(ROOT)


def test_some_bundled_scenarios_keep_their_objects() -> None:
    assert len(CONVERTED) >= 2


@pytest.mark.slow  # about 15 s a scenario (a hundred kubectl runs), more on a loaded machine
@pytest.mark.parametrize("folder", CONVERTED, ids=lambda p: p.name)
def test_regenerated_snapshot_equals_the_committed_one(folder: Path) -> None:
    snapshot, failures = regenerate(folder)
    assert failures == []
    committed = (folder / "kubernetes.json").read_text(encoding="utf-8")
    if snapshot_text(snapshot) != committed:
        old = json.loads(committed)
        differing = [
            k for k in old.keys() | snapshot.keys() if old.get(k) != snapshot.get(k)
        ]
        pytest.fail(
            f"{folder.name}: kubernetes.json differs from its cluster.json at {sorted(differing)}; "
            f"run python -m mcpservers.scenarios regenerate-kube {folder.name}"
        )


def test_relative_seconds_reads_signed_durations() -> None:
    assert relative_seconds("-44m") == -2640
    assert relative_seconds("-2d3h") == -(2 * 86400 + 3 * 3600)
    assert relative_seconds("+95s") == 95
    assert relative_seconds("0s") == 0
    assert relative_seconds("2026-12-01T15:00:00Z") is None
    assert relative_seconds("-44 minutes") is None


def test_resolve_times_rewrites_time_fields_only() -> None:
    now = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    obj = {
        "metadata": {"creationTimestamp": "-1d", "name": "-1d"},
        "status": {
            "containerStatuses": [{"state": {"running": {"startedAt": "-95s"}}}]
        },
        "spec": {"args": ["-5m"]},
        "lastTimestamp": "2029-12-31T00:00:00Z",
    }
    resolved = resolve_times(obj, now)
    assert resolved["metadata"] == {
        "creationTimestamp": "2030-01-01T03:04:05Z",
        "name": "-1d",
    }
    assert resolved["status"]["containerStatuses"][0]["state"]["running"] == {
        "startedAt": "2030-01-02T03:02:30Z"
    }
    assert resolved["spec"]["args"] == ["-5m"]
    assert resolved["lastTimestamp"] == "2029-12-31T00:00:00Z"
    assert obj["metadata"]["creationTimestamp"] == "-1d"


def _write(folder: Path, **data: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cluster.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_read_cluster_names_the_missing_field(tmp_path: Path) -> None:
    folder = _write(tmp_path / "bad", now="2030-01-01T00:00:00Z", namespace="ns")
    with pytest.raises(ClusterError, match="objects: missing"):
        read_cluster(folder)


def test_read_cluster_refuses_a_command_no_tool_asks(tmp_path: Path) -> None:
    folder = _write(
        tmp_path / "bad",
        now="2030-01-01T00:00:00Z",
        namespace="ns",
        objects=[],
        logs={},
        commands=["kubectl delete pods x -n ns"],
    )
    with pytest.raises(ClusterError, match="commands"):
        read_cluster(folder)


def test_tables_print_ages_against_the_files_now(tmp_path: Path) -> None:
    folder = _write(
        tmp_path / "ok",
        now="2030-01-01T12:00:00Z",
        namespace="ns",
        objects=[
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": "tuning",
                    "namespace": "ns",
                    "creationTimestamp": "-3h",
                },
                "data": {"a": "1"},
            }
        ],
        logs={},
        commands=[],
    )
    api = FakeKubeAPI(folder / "cluster.json")
    status, _, body = api.handle("/api/v1/namespaces/ns/configmaps", "as=Table")
    assert status == 200
    assert json.loads(body)["rows"][0]["cells"] == ["tuning", 1, "3h"]
