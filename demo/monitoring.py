"""Real Prometheus and Alertmanager from Debian's packages, on free loopback ports.

Used by the demo and by the end-to-end tests; every process is started in
its own directory and stopped by its PID.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _binary(*names: str) -> str:
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise FileNotFoundError(f"none of {names} found: run scripts/bootstrap.sh (Debian prometheus packages)")


def http_json(url: str, timeout: float = 10.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def wait_until(predicate, timeout: float, interval: float = 0.5, what: str = "condition"):
    end = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < end:
        try:
            value = predicate()
            if value:
                return value
        except Exception as e:  # the thing waited for is not up yet
            last_error = e
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:g}s waiting for {what}" + (f": {last_error}" if last_error else ""))


class Process:
    def __init__(self, argv: list[str], log_path: Path, cwd: Path) -> None:
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, cwd=cwd, start_new_session=True)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()


class Alertmanager:
    def __init__(self, workdir: Path, config: dict | Path) -> None:
        self.dir = workdir / "alertmanager"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.cluster_port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cfg_path = self.dir / "alertmanager.yml"
        if isinstance(config, Path):
            shutil.copy(config, cfg_path)
        else:
            cfg_path.write_text(yaml.safe_dump(config))
        self.config_path = cfg_path
        self.process: Process | None = None

    def start(self) -> Alertmanager:
        argv = [
            _binary("prometheus-alertmanager", "alertmanager"),
            f"--config.file={self.config_path}",
            f"--storage.path={self.dir / 'data'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            f"--cluster.listen-address=127.0.0.1:{self.cluster_port}",
            "--log.level=warn",
        ]
        self.process = Process(argv, self.dir / "alertmanager.log", self.dir)
        wait_until(
            lambda: urllib.request.urlopen(f"{self.url}/-/ready", timeout=2).status == 200, 30, what="alertmanager"
        )
        return self

    def alerts(self) -> list[dict]:
        return http_json(f"{self.url}/api/v2/alerts")

    def stop(self) -> None:
        if self.process:
            self.process.stop()


class Prometheus:
    def __init__(
        self,
        workdir: Path,
        targets: dict[str, list[str]],
        rule_files: list[Path] = (),
        alertmanager_url: str | None = None,
        scrape_interval: str = "5s",
        evaluation_interval: str = "5s",
        external_labels: dict[str, str] | None = None,
    ) -> None:
        self.dir = workdir / "prometheus"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        rules_dir = self.dir / "rules"
        rules_dir.mkdir(exist_ok=True)
        copied = []
        for f in rule_files:
            dest = rules_dir / Path(f).name
            shutil.copy(f, dest)
            copied.append(str(dest))
        config: dict = {
            "global": {
                "scrape_interval": scrape_interval,
                "evaluation_interval": evaluation_interval,
                "external_labels": external_labels or {},
            },
            "rule_files": copied,
            "scrape_configs": [
                {"job_name": job, "static_configs": [{"targets": hosts}]} for job, hosts in targets.items()
            ],
        }
        if alertmanager_url:
            am = urllib.parse.urlsplit(alertmanager_url).netloc
            config["alerting"] = {"alertmanagers": [{"static_configs": [{"targets": [am]}]}]}
        self.config_path = self.dir / "prometheus.yml"
        self.config_path.write_text(yaml.safe_dump(config, sort_keys=False))
        self.process: Process | None = None

    def start(self) -> Prometheus:
        argv = [
            _binary("prometheus"),
            f"--config.file={self.config_path}",
            f"--storage.tsdb.path={self.dir / 'data'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            "--storage.tsdb.retention.time=1d",
            "--log.level=warn",
        ]
        self.process = Process(argv, self.dir / "prometheus.log", self.dir)
        wait_until(
            lambda: urllib.request.urlopen(f"{self.url}/-/ready", timeout=2).status == 200, 60, what="prometheus"
        )
        return self

    def query(self, expr: str, at: float | None = None) -> list[dict]:
        params = {"query": expr}
        if at is not None:
            params["time"] = str(at)
        data = http_json(f"{self.url}/api/v1/query?{urllib.parse.urlencode(params)}")
        if data.get("status") != "success":
            raise RuntimeError(f"query {expr!r} failed: {data}")
        return data["data"]["result"]

    def query_range(self, expr: str, start: float, end: float, step: float) -> list[dict]:
        params = {"query": expr, "start": str(start), "end": str(end), "step": str(step)}
        data = http_json(f"{self.url}/api/v1/query_range?{urllib.parse.urlencode(params)}")
        if data.get("status") != "success":
            raise RuntimeError(f"query_range {expr!r} failed: {data}")
        return data["data"]["result"]

    def alerts(self) -> list[dict]:
        return http_json(f"{self.url}/api/v1/alerts")["data"]["alerts"]

    def targets_up(self) -> bool:
        active = http_json(f"{self.url}/api/v1/targets")["data"]["activeTargets"]
        return bool(active) and all(t["health"] == "up" for t in active)

    def stop(self) -> None:
        if self.process:
            self.process.stop()


def scratch_dir(prefix: str = "ceph-scale-") -> Path:
    base = os.environ.get("CEPH_SCALE_TMP")
    return Path(tempfile.mkdtemp(prefix=prefix, dir=base))
