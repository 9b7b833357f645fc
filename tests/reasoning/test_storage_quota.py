"""Issue 21: a storage quota filled blames the storage it names, not the event's code nor the
writers that fail (reasoning/layered/storage_quota.py).

Names and wordings are invented: a filer's qtree, a ZFS dataset, a Kubernetes claim; near misses
where the quota words name no storage, or are a third party's rate limit.
"""

import pytest

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.shared_limits import shared_limits
from reasoning.layered.storage_quota import storage_named, storage_quota
from reasoning.observations import IncidentBrief, Investigation, Observation

_BRIEF = IncidentBrief(
    title="uploads fail",
    service="uploads",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)


def _errors(service, *samples, level="top"):
    key = "warnings" if level == "warn" else "top"
    return Observation(
        span_id=f"e-{service}",
        agent="a",
        server="logs-mcp",
        tool="top_errors",
        arguments={"service": service},
        is_ok=True,
        result={key: [{"sample": s, "signature": s, "count": 7} for s in samples]},
        text="",
    )


def _board(*observations):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    return Board(inv, Facts.read(inv.observations))


@pytest.mark.rule("board.storage-quota")
@pytest.mark.parametrize(
    ("store", "event", "writer", "write", "name"),
    [
        (
            "filer-b",
            "Tue Mar 03 09:12:00 +0000 [filer-b2: vol.qtree.limit.hit:warning]: "
            "Quota exceeded (hard disk limit) on volume proj_vol3, qtree scans (5.00 TB used of 5.00 TB)",
            "archive-web",
            "PHP Warning: file_put_contents(): Write of 4096 bytes failed with errno=122 Disk quota exceeded",
            "scans",
        ),
        (
            "zfs-events",
            "zed: hard quota reached on dataset tank/tenants/orbit (quota=800G)",
            "ingest-7",
            "OSError: [Errno 122] Disk quota exceeded: '/srv/orbit/batch-99.parquet'",
            "tank/tenants/orbit",
        ),
    ],
)
def test_a_storage_quota_reached_blames_the_storage_it_names_and_its_writers_are_victims(
    store, event, writer, write, name
):
    board = _board(_errors(writer, write), _errors(store, event))
    victim = board.get(layers.APPLICATION, writer, f"{writer} fails")
    victim.confidence, victim.status = 0.7, "confirmed"
    storage_quota(board)
    c = board.candidates[f"{layers.PLATFORM}:{name}"]
    assert c.status == "confirmed" and c.confidence >= 0.9
    assert {e.span_id for e in c.evidence} == {f"e-{store}", f"e-{writer}"}
    assert victim.status == "likely" and victim.confidence <= 0.4


@pytest.mark.rule("board.storage-quota")
def test_a_disk_quota_event_is_no_third_partys_rate_limit():
    event = (
        "[nas-3: wafl.quota.tree.exceed:warning]: Quota exceeded (hard disk limit) "
        "on volume media_v1, qtree thumbs"
    )
    board = _board(_errors("nas", event, level="warn"))
    shared_limits(board)
    storage_quota(board)
    assert f"{layers.HTTP}:wafl.quota.tree.exceed" not in board.candidates
    assert board.candidates[f"{layers.PLATFORM}:thumbs"].status == "confirmed"


@pytest.mark.rule("board.storage-quota")
def test_quota_words_that_name_no_storage_blame_nothing():
    board = _board(
        _errors("reports", "fwrite(): write failed: Disk quota exceeded"),
        _errors("mailer", "provider answered 429: quota exceeded for project key"),
    )
    storage_quota(board)
    assert not [c for c in board.candidates.values() if c.layer == layers.PLATFORM]


def test_the_most_specific_storage_is_named():
    assert storage_named("Quota exceeded on volume big_v, qtree small") == "small"
    assert storage_named("disk quota exceeded on share 'team-docs'") == "team-docs"
    assert storage_named("Disk quota exceeded") is None


@pytest.mark.rule("board.storage-quota")
@pytest.mark.timeout(60)
def test_hostile_quota_lines_stay_fast():
    long = "Disk quota exceeded " + "volume " * 50_000 + "qtree " + "a" * 200_000
    board = _board(_errors("x", long), _errors("y", "quota exceeded (" * 40_000))
    storage_quota(board)
    assert storage_named("qtree " * 100_000) == "qtree"
