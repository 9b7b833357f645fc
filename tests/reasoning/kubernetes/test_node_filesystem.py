"""A node whose kernel gives up on its disk or filesystem (issue 21 items 1 and 4): ext4 and XFS
errors, an aborted journal, a read-only remount, block I/O errors blame the node at platform while
it stays Ready, and the pods there that cannot write or start are its victims
(reasoning/layered/kubernetes/kernel.py's `filesystem_faults`). Names and wordings are invented."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes import kernel

from .test_infrastructure import diagnosed
from .test_node_kernel_lockup import _cluster
from .test_node_tables_and_dns_policies import kernel_search


@pytest.mark.rule("k8s.node-filesystem-failed", "k8s.node-victims")
@pytest.mark.parametrize(
    "message",
    [
        "kernel: EXT4-fs error (device xvda1): ext4_find_entry:1455: inode #2: comm kubelet",
        "kernel: EXT4-fs (sda2): Remounting filesystem read-only",
        "kernel: JBD2: Detected aborted journal",
        "kernel: XFS (dm-3): metadata I/O error in xfs_trans_read_buf_map",
        "kernel: blk_update_request: I/O error, dev vdb, sector 88211",
        "kernel: Buffer I/O error on dev nvme1n1p1, logical block 4410",
        "kernel: BTRFS: error (device sdb1) in btrfs_commit_transaction: forced readonly",
    ],
)
def test_a_failing_node_filesystem_blames_the_node_and_its_pods_are_victims(message):
    found = diagnosed(
        *_cluster(), kernel_search(message, {"host": "wk-new-1"}), service="feeder"
    )

    node = found["node/wk-new-1"]
    assert (node.stage, node.reason, node.layer) == (
        "infrastructure",
        kernel.FILESYSTEM_REASON,
        layers.PLATFORM,
    )
    assert any(message.split("kernel: ")[1][:20] in fact for _, fact in node.evidence)
    assert found["deployment/feeder"].victim_of == "node/wk-new-1"
    assert "node/wk-old-2" not in found


@pytest.mark.rule("k8s.node-filesystem-failed")
@pytest.mark.parametrize(
    "message,labels",
    [
        (
            "kernel: EXT4-fs (sda2): Remounting filesystem read-only",
            {"host": "other-9"},
        ),
        (
            "kernel: EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode",
            {"host": "wk-new-1"},
        ),
        ("feeder: cannot write report: Read-only file system", {"host": "wk-new-1"}),
        ("kernel: XFS (sdc): Mounting V5 Filesystem", {"host": "wk-new-1"}),
    ],
)
def test_no_filesystem_failure_of_a_listed_node_is_no_filesystem_fault(message, labels):
    found = diagnosed(*_cluster(), kernel_search(message, labels), service="feeder")

    assert not any(f.reason == kernel.FILESYSTEM_REASON for f in found.values())


@pytest.mark.timeout(60)
def test_a_hostile_filesystem_line_is_read_in_bounded_time():
    line = "kernel: XFS (" + "x" * 200_000 + " I/O error, dev " + "(" * 20_000

    found = diagnosed(
        *_cluster(), kernel_search(line, {"host": "wk-new-1"}), service="feeder"
    )

    assert "deployment/feeder" in found


def test_the_kernel_search_fits_the_logs_servers_query_length():
    assert len(kernel.SEARCH) <= kernel.QUERY_CHARS
