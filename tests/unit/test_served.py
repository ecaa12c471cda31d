"""A derivation that keeps failing is seen: the previous signals are served with a record of
when a derivation last succeeded and how many failed, rendered at every attempt."""

from __future__ import annotations

import pytest

import ceph_scale.io.served as core_served
from ceph_scale.core.config import Thresholds
from exporter.sidecar.collector import Collector


def value(body: bytes, name: str) -> float:
    for line in body.decode().splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in the exposition")


def test_a_failing_derivation_keeps_the_old_signals_and_says_since_when(monkeypatch):
    collector = Collector([], Thresholds(), cluster_label="c1")
    first = collector.derive_now()
    assert value(first, "ceph_scale_derivation_failures_total") == 0
    succeeded_at = value(first, "ceph_scale_derivation_last_success_timestamp_seconds")
    assert 'ceph_scale_build_info{cluster="c1"' in first.decode()

    def broken(*args, **kwargs):
        raise ValueError("a bug in a signal")

    monkeypatch.setattr(core_served, "derive", broken)
    for attempt in (1, 2):
        with pytest.raises(ValueError):
            collector.derive_now()
        served = collector.exposition
        assert value(served, "ceph_scale_derivation_failures_total") == attempt
        assert value(served, "ceph_scale_derivation_last_success_timestamp_seconds") == succeeded_at
        assert 'ceph_scale_build_info{cluster="c1"' in served.decode()  # the old signals, still served
        assert served.decode().count("# TYPE ceph_scale_derivation_failures_total counter") == 1


def test_a_derivation_that_never_succeeded_serves_nothing(monkeypatch):
    collector = Collector([], Thresholds())
    monkeypatch.setattr(core_served, "derive", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        collector.derive_now()
    assert collector.exposition == b""  # not ready: /metrics answers 503 until one succeeds
