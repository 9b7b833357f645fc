"""agentops.stack: a child started by LocalStack goes when the process that started it dies
without closing the stack (killed by its pid), so a killed `evaluate` leaves no worker behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

BASE_DIR = Path(__file__).resolve().parent.parent

PARENT = """
import sys, time
from pathlib import Path
from agentops.stack import LocalStack
stack = LocalStack(Path(sys.argv[1]))
proc = stack._spawn("sleeper", [sys.executable, "-c", "import time; time.sleep(120)"])
print(proc.pid, flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal")
@pytest.mark.parametrize(
    "how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"]
)
def test_child_dies_with_the_process_that_started_it(tmp_path, how):
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(tmp_path)],
        cwd=BASE_DIR,
        env={**os.environ, "PYTHONPATH": str(BASE_DIR)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        child = psutil.Process(int(parent.stdout.readline()))
        assert child.is_running()
        os.kill(parent.pid, how)
        parent.wait(timeout=10)
        child.wait(timeout=10)  # psutil.TimeoutExpired if the child outlived its parent
    finally:
        parent.kill()
        parent.wait()
