"""Before any source has succeeded: the series carry the `cluster` label from the first
exposition, so alerts on the exporter's own series join by it, and no signal claims a success
it had no data for."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.exposition import render
from ceph_scale.core.registry import SIGNALS, SOURCE_BY_NAME, SOURCE_NAMES
from ceph_scale.core.snapshot import Snapshot
from exporter.sidecar.collector import Collector, schedule_for
from exporter.sidecar.sources.base import Deadline, Source, SourceContext
from tests.unit.test_unreachable_monitor import exporter_with_no_monitor

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "pacific"
FSID = "11111111-2222-3333-4444-555555555555"
SAMPLE = re.compile(r"^(ceph_scale_\w+)(\{[^}]*\})? (\S+)$")


def samples(body: str) -> list[tuple[str, str, float]]:
    """(name, labels, value) of every sample line."""
    found = [SAMPLE.match(line) for line in body.splitlines() if line and not line.startswith("#")]
    assert all(found), body
    return [(m[1], m[2] or "", float(m[3])) for m in found if m]


def unreachable(name: str) -> Source:
    """A collector of `name` whose monitor never answers."""

    def collect(self, deadline: Deadline):
        raise ConnectionRefusedError("error connecting to the cluster")

    cls = type(f"Unreachable_{name}", (Source,), {"name": name, "collect": collect})
    return cls(SourceContext(ceph=None))  # type: ignore[arg-type]


def failing_from_the_start(**labels) -> str:
    sources = [unreachable(name) for name in SOURCE_NAMES]
    collector = Collector([(s, schedule_for(s, {"timeout": 1})) for s in sources], Thresholds(), **labels)
    return collector.collect_all_once().decode()


def test_every_source_failing_from_the_start_still_labels_the_cluster_and_claims_no_signal():
    found = samples(failing_from_the_start(fsid=FSID))
    assert {n for n, _, _ in found} >= {"ceph_scale_source_success", "ceph_scale_build_info"}
    unlabelled = [(n, labels) for n, labels, _ in found if f'cluster="{FSID}"' not in labels]
    assert not unlabelled
    assert {v for n, _, v in found if n == "ceph_scale_source_success"} == {0.0}
    assert not [labels for n, labels, v in found if n == "ceph_scale_signal_success" and v == 1]
    # Its failures counter is still there: 0 derivations of it raised.
    assert len([n for n, _, _ in found if n == "ceph_scale_signal_failures_total"]) == len(SIGNALS)


def test_the_operators_cluster_label_wins_from_the_first_exposition():
    found = samples(failing_from_the_start(fsid=FSID, cluster_label="prod-eu-1"))
    assert all('cluster="prod-eu-1"' in labels for _, labels, _ in found)


def test_a_signal_reads_success_once_a_source_it_reads_has_data():
    with open(FIXTURES / "health_detail.json", encoding="utf-8") as f:
        health = SOURCE_BY_NAME["health"].parse(lambda name: json.load(f), 100.0)
    th = Thresholds()
    body = render(derive(Snapshot(taken_at=100.0, fsid=FSID, health=health), DerivationState(th), th)).decode()
    success = {labels: v for n, labels, v in samples(body) if n == "ceph_scale_signal_success"}
    assert success == {f'{{cluster="{FSID}",signal="health"}}': 1.0}


def test_every_signal_declares_registered_sources():
    for signal in SIGNALS:
        assert signal.inputs and set(signal.inputs) <= set(SOURCE_NAMES), signal.name


def test_the_first_exposition_of_the_real_exporter_carries_the_cluster_while_the_monitor_is_unreachable(tmp_path):
    with exporter_with_no_monitor(tmp_path, FSID) as port:
        body, deadline = "", time.monotonic() + 20
        while "ceph_scale_source_success" not in body and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
                    body = r.read().decode()
            except OSError:
                pass
            time.sleep(0.2)
    found = samples(body)
    assert found and all(f'cluster="{FSID}"' in labels for _, labels, _ in found)
    assert {v for n, _, v in found if n == "ceph_scale_source_success"} == {0.0}
    assert not [labels for n, labels, v in found if n == "ceph_scale_signal_success" and v == 1]
