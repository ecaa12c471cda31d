"""Real Prometheus and Alertmanager from Debian's packages, on free loopback ports, and a
local webhook for Alertmanager's notifications.

Used by the demo and by the end-to-end tests; every process is started in
its own directory and stopped by its PID.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import urllib.parse
import urllib.request
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

import yaml

from cluster.testcluster import free_port, wait_for

REPO = Path(__file__).resolve().parent.parent
SHIPPED_ALERTMANAGER_CONFIG = REPO / "rules" / "alertmanager" / "alertmanager.yml"


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
    """The test cluster's wait_for, polling twice as often: the demo waits on local endpoints."""
    return wait_for(predicate, timeout, interval, what)


class Process:
    def __init__(self, argv: list[str], log_path: Path, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            argv, stdout=self.log, stderr=subprocess.STDOUT, cwd=cwd, env=env, start_new_session=True
        )

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
        try:
            wait_until(
                lambda: urllib.request.urlopen(f"{self.url}/-/ready", timeout=2).status == 200, 30, what="alertmanager"
            )
        except BaseException:  # never ready: the caller holds no handle to stop it by
            self.stop()
            raise
        return self

    def alerts(self) -> list[dict]:
        return http_json(f"{self.url}/api/v2/alerts")

    def stop(self) -> None:
        if self.process:
            self.process.stop()


class Webhook:
    """An Alertmanager webhook receiver on a free loopback port (stdlib HTTP server in a thread).

    Records every notification with the path it was posted to, and hands it to
    `on_notification(path, payload)` as it arrives.
    """

    def __init__(self, on_notification: Callable[[str, dict], None] | None = None) -> None:
        self.notifications: list[tuple[str, dict]] = []
        received, lock = self.notifications, threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                try:
                    payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                except ValueError:
                    self.send_response(400)
                    self.end_headers()
                    return
                with lock:
                    received.append((self.path, payload))
                # Answer first: a slow or failing printer must not make Alertmanager retry.
                self.send_response(200)
                self.end_headers()
                if on_notification is not None:
                    try:
                        on_notification(self.path, payload)
                    except Exception:  # a display problem is not a delivery problem
                        pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread: threading.Thread | None = None

    def start(self) -> Webhook:
        self._thread = threading.Thread(target=self.server.serve_forever, name="webhook", daemon=True)
        self._thread.start()
        return self

    def alerts(self, name: str, status: str, path: str | None = None) -> list[dict]:
        """The alerts named `name` with `status` ("firing" | "resolved") posted (to `path`)."""
        return [
            a
            for p, n in list(self.notifications)
            if path is None or p == path
            for a in n.get("alerts", [])
            if a["labels"].get("alertname") == name and a["status"] == status
        ]

    def paths(self, name: str, status: str) -> set[str]:
        """The paths (one per receiver) that received `name` with `status`."""
        return {p for p, _ in list(self.notifications) if self.alerts(name, status, p)}

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def webhook_routing(
    webhook_url: str, source: Path = SHIPPED_ALERTMANAGER_CONFIG, timings: dict[str, str] | None = None
) -> dict:
    """The Alertmanager config in `source` with every receiver sent to `webhook_url` instead.

    Routing, grouping and inhibitions stay as shipped. Each receiver keeps a
    path of its own (its webhook's path, else /<receiver name>), so the
    receiving end can tell who was notified; any other kind of notifier
    (PagerDuty, e-mail, ...) is replaced, so nothing leaves the machine.
    `timings` (e.g. {"group_wait": "1s"}) overrides those settings on the root
    route and on every route that sets them, for tests that cannot wait.
    """
    config = copy.deepcopy(yaml.safe_load(Path(source).read_text()))
    base = webhook_url.rstrip("/")
    for receiver in config.get("receivers", []):
        hooks = receiver.get("webhook_configs") or [{}]
        path = urllib.parse.urlsplit(str(hooks[0].get("url", ""))).path or "/" + receiver["name"]
        send_resolved = hooks[0].get("send_resolved", True)
        for key in [k for k in receiver if k.endswith("_configs")]:
            del receiver[key]
        receiver["webhook_configs"] = [{"url": base + path, "send_resolved": send_resolved}]
    if timings:
        routes = [config.setdefault("route", {})]
        while routes:
            route = routes.pop()
            for key, value in timings.items():
                if route is config["route"] or key in route:
                    route[key] = value
            routes.extend(route.get("routes") or [])
    return config


def receiver_paths(config: dict) -> dict[str, str]:
    """{receiver name: the path of its webhook} of a config made by webhook_routing."""
    return {r["name"]: urllib.parse.urlsplit(r["webhook_configs"][0]["url"]).path for r in config.get("receivers", [])}


class Prometheus:
    def __init__(
        self,
        workdir: Path,
        targets: dict[str, list[str]],
        rule_files: Sequence[Path] = (),
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
