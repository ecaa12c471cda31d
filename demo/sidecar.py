"""The sidecar exporter as a real process against a test cluster, for the demo and the tests."""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from pathlib import Path

import yaml

from .monitoring import REPO, Process, free_port, wait_until

FAST_SOURCES = {
    "osd_map": {"interval": 3, "timeout": 3},
    "capacity": {"interval": 3, "timeout": 3},
    "perf": {"interval": 2, "timeout": 2},
    "pgs": {"interval": 3, "timeout": 3},
    "settings": {"interval": 10, "timeout": 10},
    "health": {"interval": 3, "timeout": 3},
    "buckets": {"interval": 3, "timeout": 3},
    "reshard": {"interval": 3, "timeout": 3},
}


def parse_exposition(text: str) -> dict[str, dict[tuple, float]]:
    """{family sample name: {sorted label pairs: value}} of a text exposition."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, dict[tuple, float]] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out.setdefault(s.name, {})[tuple(sorted(s.labels.items()))] = s.value
    return out


class Sidecar:
    def __init__(
        self,
        cluster,
        workdir: Path,
        *,
        thresholds: dict | None = None,
        sources: dict | None = None,
        cluster_label: str = "test",
        extra_args: list[str] = (),
        ceph_user: str | None = None,
        rgw_credentials: tuple[str, str] | None = None,
    ) -> None:
        self.cluster = cluster
        self.dir = Path(workdir) / f"sidecar-{free_port()}"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/metrics"
        access, secret = rgw_credentials or cluster.admin_keys
        creds = self.dir / "rgw-admin.json"
        creds.write_text(json.dumps({"access_key": access, "secret_key": secret}))
        os.chmod(creds, 0o600)
        self.state_file = self.dir / "state.json"
        config = {
            "cluster_label": cluster_label,
            "state_file": str(self.state_file),
            "thresholds": thresholds or {},
            "sources": {**FAST_SOURCES, **(sources or {})},
            "rgw": {"endpoint": cluster.rgw_endpoint, "credentials_file": str(creds)},
        }
        self.config_path = self.dir / "config.yml"
        self.config_path.write_text(yaml.safe_dump(config))
        self.argv = [
            sys.executable,
            "-m",
            "exporter",
            f"--web.listen-address=127.0.0.1:{self.port}",
            f"--config.file={self.config_path}",
            f"--ceph-conf={cluster.conf_path}",
            "--radosgw-admin",
            f"radosgw-admin --conf {cluster.conf_path}",
            *extra_args,
        ]
        if ceph_user:
            self.argv.append(f"--ceph-user={ceph_user}")
        self.process: Process | None = None

    def start(self, wait: bool = True) -> Sidecar:
        """Start (or start again, with the same config and state file)."""
        env_path = os.environ.get("PYTHONPATH", "")
        os.environ["PYTHONPATH"] = f"{REPO}:{env_path}" if env_path else str(REPO)
        self.process = Process(self.argv, self.dir / "exporter.log", REPO)
        if wait:
            wait_until(lambda: self.text(), 60, what="the exporter's first exposition")
        return self

    def text(self) -> str:
        with urllib.request.urlopen(self.url, timeout=5) as r:
            return r.read().decode()

    def metrics(self) -> dict[str, dict[tuple, float]]:
        return parse_exposition(self.text())

    def value(self, name: str, **labels: str) -> float | None:
        """The one sample of `name` whose labels include `labels`, or None."""
        found = [v for k, v in self.metrics().get(name, {}).items() if set(labels.items()) <= set(k)]
        if len(found) > 1:
            raise AssertionError(f"{name}{labels}: {len(found)} samples match")
        return found[0] if found else None

    def log(self) -> str:
        return (self.dir / "exporter.log").read_text(errors="replace")

    def stop(self) -> None:
        if self.process:
            self.process.stop()
            self.process = None
