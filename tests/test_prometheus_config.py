"""deploy/prometheus.yml, the compose stack's scrape config, run by Debian's Prometheus against a
real Daphne's /metrics and a worker exporter on 127.0.0.1 (issue 12 item 5).

Swapped for the test, and nothing else: the targets (web-1/web-2 by name and the workers by
Docker's DNS become the test's ports), the credentials file's path, and a 1 s scrape interval
(and timeout).
Both endpoints refuse a scrape without METRICS_TOKEN, so a target that is up proves the config
sends the bearer token from the file."""

import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from diagnosis.observability import exposition
from tests.diagnosis.test_streaming_support import free_port, start_daphne

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BASE_DIR = Path(__file__).resolve().parent.parent
PROMETHEUS_CONF = BASE_DIR / "deploy" / "prometheus.yml"
TOKEN = "mt_compose_5b0f1e2d9c8a4b7e"


def render_prometheus_conf(
    text: str, *, web: str, worker: str, prometheus: str, token_file: Path
) -> str:
    """The compose config with the test's addresses; fails if a swap finds no target."""

    def swap(old: str, new: str, text: str, *, count: int = 1) -> str:
        assert text.count(old) == count, (
            f"{old!r} found other than {count} times in deploy/prometheus.yml"
        )
        return text.replace(old, new)

    text = swap('["web-1:8000", "web-2:8000"]', f'["{web}"]', text)
    text = re.sub(
        r"dns_sd_configs:\n(?:\s+#.*\n)?\s+- names: \[\"worker\"\]\n(?:\s+\w+: .*\n)+",
        f'static_configs:\n      - targets: ["{worker}"]\n',
        text,
    )
    assert "dns_sd_configs" not in text
    text = swap('["localhost:9090"]', f'["{prometheus}"]', text)
    text = swap("/etc/prometheus/metrics_token", str(token_file), text, count=2)
    text = swap("scrape_interval: 15s", "scrape_interval: 1s", text)
    return swap("scrape_timeout: 10s", "scrape_timeout: 1s", text)


@contextmanager
def _prometheus(directory: Path, config: str, port: int) -> Iterator[str]:
    (directory / "prometheus.yml").write_text(config)
    proc = subprocess.Popen(
        [
            "prometheus",
            f"--config.file={directory / 'prometheus.yml'}",
            f"--storage.tsdb.path={directory / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    ready = threading.Event()
    log: list[str] = []

    def watch() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            log.append(line)
            if "Server is ready to receive web requests" in line:
                ready.set()
        ready.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        ready.wait(60)
        assert any("Server is ready" in line for line in log), "".join(log[-20:])
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(15)
        watcher.join(10)


@pytest.mark.skipif(
    shutil.which("prometheus") is None,
    reason="prometheus not installed (scripts/setup.d/20-prometheus.sh installs Debian's)",
)
def test_compose_prometheus_config_scrapes_web_and_worker_with_the_token(
    settings: Any, tmp_path: Path
) -> None:
    settings.METRICS_TOKEN = TOKEN  # the in-process worker exporter's rule
    settings.METRICS_ALLOWED_IPS = []
    exporter = exposition.start_worker_exporter(address="127.0.0.1", port=0)
    worker = f"127.0.0.1:{exporter.server_address[1]}"
    daphne, web_url = start_daphne(METRICS_TOKEN=TOKEN, METRICS_ALLOWED_IPS="")
    try:
        web = web_url.removeprefix("http://")
        # Without the token, both refuse: up below is the token's doing.
        assert httpx.get(f"{web_url}/metrics").status_code == 401
        assert httpx.get(f"http://{worker}/metrics").status_code == 401
        token_file = tmp_path / "metrics_token"
        token_file.write_text(TOKEN + "\n")  # compose writes the content as given
        port = free_port()
        config = render_prometheus_conf(
            PROMETHEUS_CONF.read_text(),
            web=web,
            worker=worker,
            prometheus=f"127.0.0.1:{port}",
            token_file=token_file,
        )
        with _prometheus(tmp_path, config, port) as prom:
            deadline = time.monotonic() + 60
            while True:
                targets = httpx.get(f"{prom}/api/v1/targets").json()["data"]
                health = {
                    t["labels"]["job"]: (t["health"], t["lastError"])
                    for t in targets["activeTargets"]
                }
                if len(health) == 3 and all(h == "up" for h, _ in health.values()):
                    break
                assert time.monotonic() < deadline, health
                time.sleep(0.5)
            answer = httpx.get(
                f"{prom}/api/v1/query",
                params={"query": 'count by (job) ({job=~"agentops-.*"})'},
            ).json()["data"]["result"]
    finally:
        daphne.stop()
        exporter.shutdown()
        exporter.server_close()
    assert set(health) == {"agentops-web", "agentops-worker", "prometheus"}
    series = {r["metric"]["job"]: int(r["value"][1]) for r in answer}
    # Each job's scrape brought AgentOps' series, not just Prometheus' own `up`.
    assert series["agentops-web"] > 10 and series["agentops-worker"] > 5, series
