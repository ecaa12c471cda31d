"""The sidecar exporter as a real process against a test cluster, for the demo and the tests."""

from __future__ import annotations

import json
import os
import shutil
import sys
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import yaml

from cluster.commands import DOCUMENTED_CEPH_USER, SECURITY_DOC

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


# Plunges on the test cluster (3 OSDs on files, one RGW, 2 shared cores; its counters refresh every
# 5 s): a 15 s window, a 2 min baseline, and a 25 % drop, since neighbours alone move a 15 s
# window of its small closed-loop load by 10-20 % (tests/integration/test_plunge_cluster.py).
MINUTES_PLUNGES = {"plunge_window_seconds": 15, "plunge_baseline_seconds": 120, "plunge_drop_ratio": 0.25}


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
        extra_args: Sequence[str] = (),
        ceph_user: str | None = None,
        rgw_credentials: tuple[str, str] | None = None,
        client: str = "release",
        config: dict | None = None,
    ) -> None:
        """client: "release" runs the exporter with the cluster's release's own Python and
        python3-rados (inside its root); "host" with the host's (Pacific's) against any release.
        It runs as an operator runs it: as the read-only cephx user docs/security.md documents,
        made by its command, and its read-only RGW user (made by the test cluster at its start,
        by that document's command). ceph_user (with its keyring in extra_args) and
        rgw_credentials are for the tests of other identities."""
        if client not in ("release", "host"):
            raise ValueError(f"client must be 'release' or 'host', not {client!r}")
        self.cluster = cluster
        self.in_root = client == "release" and cluster.release.root is not None
        if self.in_root:  # the root sees the cluster's directory (bind-mounted), not the test's
            workdir = cluster.dir / "log" / "sidecars"  # kept, like the daemons' logs, after a stop
        self.dir = Path(workdir) / f"sidecar-{free_port()}"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/metrics"
        if ceph_user is None:
            # In the cluster's directory: the release's own ceph CLI (in its root) writes it, and
            # a host client reads it.
            keyrings = cluster.dir / "keyrings"
            keyrings.mkdir(mode=0o700, exist_ok=True)
            keyring = keyrings / f"{self.dir.name}.client.{DOCUMENTED_CEPH_USER}.keyring"
            cluster.create_documented_user(SECURITY_DOC, f"client.{DOCUMENTED_CEPH_USER}", keyring)
            ceph_user = DOCUMENTED_CEPH_USER
            extra_args = [*extra_args, "--ceph-keyring", str(keyring)]
        access, secret = rgw_credentials or cluster.exporter_rgw_keys
        creds = self.dir / "rgw-admin.json"
        creds.write_text(json.dumps({"access_key": access, "secret_key": secret}))
        os.chmod(creds, 0o600)
        self.state_file = self.dir / "state.json"
        config = {
            "cluster_label": cluster_label,
            "state_file": str(self.state_file),
            # The demo and the tests watch a cluster for minutes, not hours: forecasts from a
            # minute of history (the default, an hour, would leave their panels empty), plunges
            # judged on windows of seconds. Its cluster holds dozens of small buckets at a
            # per-shard limit of 100, and a test looks its own up by name: the top 50 by shard
            # fill are named (the default 10 names the fullest of a production cluster's).
            "thresholds": {
                "forecast_min_span_seconds": 60,
                "rgw_top_buckets": 50,
                **MINUTES_PLUNGES,
                **(thresholds or {}),
            },
            "sources": {**FAST_SOURCES, **(sources or {})},
            "rgw": {"endpoint": cluster.rgw_endpoint, "credentials_file": str(creds)},
            **(config or {}),
        }
        self.config_path = self.dir / "config.yml"
        self.config_path.write_text(yaml.safe_dump(config))
        python = cluster.release.python if self.in_root else [sys.executable]
        radosgw_admin = " ".join(cluster.release.command(["radosgw-admin", "--conf", str(cluster.conf_path)]))
        self.argv = [
            *python,
            "-m",
            "exporter",
            f"--web.listen-address=127.0.0.1:{self.port}",
            f"--config.file={self.config_path}",
            f"--ceph-conf={cluster.conf_path}",
            "--radosgw-admin",
            radosgw_admin,
            *extra_args,
        ]
        if ceph_user:
            self.argv.append(f"--ceph-user={ceph_user}")
        self.process: Process | None = None

    def start(self, wait: bool = True) -> Sidecar:
        """Start (or start again, with the same config and state file)."""
        self.process = Process(self.argv, self.dir / "exporter.log", REPO, env=self.environment())
        if wait:
            wait_until(lambda: self.text(), 60, what="the exporter's first exposition")
        return self

    def environment(self) -> dict[str, str]:
        """What the exporter runs with (`argv` too, run again): the test process's own PYTHONPATH
        stays as it was, so a later subprocess (an installed wheel, pipx) never imports this copy."""
        src = self._source_dir()
        env_path = os.environ.get("PYTHONPATH", "")
        path = f"{src}:{env_path}" if env_path and not self.in_root else str(src)
        return {**os.environ, "PYTHONPATH": path}

    def _source_dir(self) -> Path:
        """Where the exporter's packages are imported from: the checkout, or a copy inside the
        cluster's directory for a release's own Python (the root does not see the checkout): the
        sidecar (`exporter`) and the core and I/O it runs on (`ceph_scale`)."""
        if not self.in_root:
            return REPO
        src = self.cluster.dir / "sidecar-src"
        for package in ("exporter", "ceph_scale"):
            if not (src / package).exists():
                shutil.copytree(REPO / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
        return src

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
