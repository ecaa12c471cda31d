"""The plunge series of a real run, recorded from the exporter and replayed by promtool.

A thread scrapes the exporter every second and keeps the plunge families; `promtool_series`
turns them into promtool `input_series` at a fixed interval (the last value seen at or before each
step, or none for a series that was not exported then). ceph_scale/core/signals/plunge/rules_tests/recorded.yml was made
this way from a run of tests/integration/test_plunge_cluster.py (`write_test`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import yaml

FAMILIES = (
    "ceph_scale_s3_plunge_active",
    "ceph_scale_s3_demand_drop_active",
    "ceph_scale_s3_plunge_drop_ratio",
    "ceph_scale_s3_plunge_demand_ratio",
    "ceph_scale_s3_plunge_cause_score",
    "ceph_scale_s3_plunge_info",
)
RULE_FILES = ["../recording.yml", "../alerts.yml"]


class Recorder:
    def __init__(self, scrape: Callable[[], dict[str, dict[tuple, float]]], every: float = 1.0) -> None:
        self.scrape = scrape
        self.every = every
        self.samples: dict[tuple[str, tuple], list[tuple[float, float]]] = {}
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="plunge-recorder", daemon=True)
        self.failures = 0

    def start(self) -> Recorder:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(10)

    def _run(self) -> None:
        while not self.stopping.is_set():
            t = time.time()
            try:
                metrics = self.scrape()
            except Exception:  # an exporter busy at one scrape: that second is a gap
                self.failures += 1
            else:
                for name in FAMILIES:
                    for labels, value in metrics.get(name, {}).items():
                        self.samples.setdefault((name, labels), []).append((t, value))
            self.stopping.wait(self.every)

    def seen(self, name: str, since: float = 0.0, **labels: str) -> list[tuple[float, float, dict]]:
        """(time, value, labels) of the samples of `name` whose labels include `labels`."""
        out = []
        for (n, key), points in list(self.samples.items()):
            if n == name and set(labels.items()) <= set(key):
                out += [(t, v, dict(key)) for t, v in points if t >= since]
        return sorted(out, key=lambda x: x[0])

    def timeline(self, since: float = 0.0) -> list[str]:
        """One line per second at which what the exporter said changed (for a failing run's log)."""
        by_time: dict[float, dict[str, str]] = {}
        for (name, key), points in self.samples.items():
            short = name.removeprefix("ceph_scale_s3_") + "".join(f"{{{v}}}" for k, v in key if k in ("op", "cause"))
            for t, v in points:
                if t >= since:
                    by_time.setdefault(t, {})[short] = (
                        f"{v:g}" if name != "ceph_scale_s3_plunge_info" else dict(key)["evidence"][:90]
                    )
        lines, last = [], None
        for t in sorted(by_time):
            now = " ".join(f"{k}={v}" for k, v in sorted(by_time[t].items()) if "score" not in k)
            if now != last:
                lines.append(f"{time.strftime('%H:%M:%S', time.localtime(t))} {now}")
                last = now
        return lines

    def promtool_series(self, start: float, end: float, interval: float, cluster: str) -> list[dict]:
        """Resampled every `interval`: the last value seen within the interval before each step; a
        series that stopped gets a staleness marker, as Prometheus writes when a target drops it."""
        steps = int((end - start) // interval) + 1
        series = []
        for (name, key), points in sorted(self.samples.items()):
            labels = {**dict(key), "cluster": cluster}
            values: list[str] = []
            i = 0
            for k in range(steps):
                at = start + k * interval
                while i + 1 < len(points) and points[i + 1][0] <= at:
                    i += 1
                t, v = points[i]
                if t <= at and at - t <= interval:
                    values.append(f"{v:g}")
                else:
                    values.append("stale" if values and values[-1] not in ("_", "stale") else "_")
            if any(v not in ("_", "stale") for v in values):
                selector = ",".join(f'{k}="{escape(v)}"' for k, v in sorted(labels.items()))
                series.append({"series": f"{name}{{{selector}}}", "values": " ".join(values)})
        return series


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_test(path, series: list[dict], interval: float, cases: dict, group_order: list[str]) -> None:
    """A promtool test file with these input series and `cases` (alert_rule_test /
    promql_expr_test lists), run from rules/tests/ (its rule files are relative to it)."""
    test = {"name": "replayed from a real run", "interval": f"{interval:g}s", "input_series": series, **cases}
    doc = {
        "rule_files": RULE_FILES,
        "evaluation_interval": f"{interval:g}s",
        "group_eval_order": group_order,
        "tests": [test],
    }
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=200, allow_unicode=True))
