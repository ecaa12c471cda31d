"""Checks both producers' fault tests share: is a source fresh, is an exposition sound."""

from __future__ import annotations

import subprocess
import time


def by_source(metrics: dict, family: str) -> dict[str, float]:
    return {dict(k)["source"]: v for k, v in metrics[family].items()}


def last_success(producer, name: str) -> float:
    return producer.value("ceph_scale_source_last_success_timestamp_seconds", source=name)


def source_age(producer, name: str) -> float:
    """How old `name`'s data is now: the clock minus its last success (the exporter exports the
    timestamp, not the age; a producer's `value(family, **labels)` reads its exposition)."""
    return time.time() - last_success(producer, name)


def assert_fresh(metrics: dict, names, slack: float) -> None:
    """Each named source succeeded lately: its age within its own interval plus some slack.

    metrics: {sample name: {label pairs: value}} of one exposition."""
    ok = by_source(metrics, "ceph_scale_source_success")
    now = time.time()
    age = {k: now - v for k, v in by_source(metrics, "ceph_scale_source_last_success_timestamp_seconds").items()}
    interval = by_source(metrics, "ceph_scale_source_interval_seconds")
    for name in names:
        assert ok[name] == 1, (name, ok)
        assert age[name] <= interval[name] + slack, (name, age[name], interval[name])


def assert_valid_exposition(text: str) -> None:
    """promtool accepts it, and no series appears twice (ceph_exporter #99, #186)."""
    proc = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), capture_output=True)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    series = [line.rsplit(" ", 1)[0] for line in text.splitlines() if line and not line.startswith("#")]
    assert len(series) == len(set(series)), sorted(x for x in set(series) if series.count(x) > 1)[:5]
