"""The thresholds (core/config.py): each setting's default, and the values refused with the reason."""

from __future__ import annotations

import pytest

from ceph_scale.core.config import SETTINGS, ConfigError, Thresholds


def test_threshold_defaults_match_the_documented_settings():
    th = Thresholds()
    for s in SETTINGS:
        assert getattr(th, s.name) == s.default, s.name
    assert set(th.as_dict()) == {s.name for s in SETTINGS}


@pytest.mark.parametrize(
    "values, message",
    [
        ({"fill_target_ratio": 1.5}, "outside"),
        ({"fill_target_ratio": "abc"}, "expected a number"),
        ({"rgw_top_buckets": 2.5}, "whole number"),
        ({"no_such": 1}, "unknown threshold"),
        ({"fill_warn_ratio": 0.85}, "fill_warn_ratio <= fill_target_ratio"),
        ({"baseline_put_ops_per_hdd": True}, "expected a number"),
        ({"baseline_put_ops_per_hdd": float("nan")}, "NaN"),
    ],
)
def test_bad_thresholds_are_refused_with_the_reason(values, message):
    with pytest.raises(ConfigError, match=message):
        Thresholds.from_mapping(values)


def test_a_minimum_span_longer_than_the_windows_is_refused():
    with pytest.raises(ConfigError, match="forecast_min_span_seconds"):
        Thresholds.from_mapping({"forecast_min_span_seconds": 7200, "fill_forecast_window_seconds": 3600})
