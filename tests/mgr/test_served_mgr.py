"""The module serves the same derivation record as the sidecar when its derivation fails."""

from __future__ import annotations

import logging

import pytest
from scale.collector import Collector

import ceph_scale.io.served as module_served
from ceph_scale.core.config import Thresholds
from tests.unit.test_served import value


def test_the_modules_failing_derivation_keeps_the_old_signals_and_says_since_when(monkeypatch):
    collector = Collector(
        {}, lambda name: None, Thresholds, lambda: "c1", lambda: "", lambda f, s: None, logging.getLogger("t")
    )
    first = collector.derive_now()
    succeeded_at = value(first, "ceph_scale_derivation_last_success_timestamp_seconds")
    monkeypatch.setattr(module_served, "derive", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        collector.derive_now()
    assert value(collector.exposition, "ceph_scale_derivation_failures_total") == 1
    assert value(collector.exposition, "ceph_scale_derivation_last_success_timestamp_seconds") == succeeded_at
    assert 'ceph_scale_build_info{cluster="c1",producer="mgr"' in collector.exposition.decode()
