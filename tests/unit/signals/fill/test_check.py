"""SCALE_FILL_HEADROOM on a hand-made fill result (ceph_scale/core/signals/fill/check.py)."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.fill.check import CHECKS, check_fill
from ceph_scale.core.signals.fill.result import ClusterFill, FillResult, OsdFill, PoolFill

DAY = 86400.0


def result(cluster: float = 0.5, pool: float = 0.5, pool_eta: float | None = None, osds=(0.5,)) -> FillResult:
    osd_list = tuple(OsdFill(f"osd.{i}", used) for i, used in enumerate(osds))
    fullest = max(osd_list, key=lambda o: o.used_ratio, default=None)
    return FillResult(ClusterFill(cluster, 1e12, None), (PoolFill("1", "data", pool, pool_eta),), osd_list, fullest)


def test_it_is_the_folders_one_check():
    assert [c.code for c in CHECKS] == ["SCALE_FILL_HEADROOM"] and CHECKS[0].judge is check_fill


def test_quiet_without_a_result_and_far_from_the_target():
    assert check_fill(None, Thresholds(), CheckOptions()) is None
    assert check_fill(result(), Thresholds(), CheckOptions()) is None


def test_worst_first_and_an_error_past_the_critical_fill():
    c = check_fill(result(cluster=0.76, osds=(0.92, 0.77)), Thresholds(), CheckOptions())
    assert c is not None and c["severity"] == "error" and c["count"] == 3
    assert [line.split(" is ")[0] for line in c["detail"]] == ["osd.0", "osd.1", "the cluster"]


def test_the_margin_is_the_option_in_force():
    fill = result(cluster=0.72, osds=())
    assert check_fill(fill, Thresholds(), CheckOptions()) is None  # 8 points below the 80 % target
    c = check_fill(fill, Thresholds(), CheckOptions(fill_headroom_warn_margin=0.10))
    assert c is not None and c["severity"] == "warning" and c["count"] == 1


def test_forecasts_are_trusted_once_the_history_spans_forecast_min_span_seconds():
    fill = result(pool_eta=2 * DAY)
    short = {"forecast_min_span_seconds": 7200}
    assert check_fill(fill, Thresholds.from_mapping(short), CheckOptions(history_seconds=3600)) is None
    long_enough = check_fill(fill, Thresholds.from_mapping(short), CheckOptions(history_seconds=7200))
    assert long_enough is not None and "reaching it in 2.0 days" in long_enough["detail"][0]
