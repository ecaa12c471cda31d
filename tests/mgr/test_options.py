"""Module options: one per core threshold (same name, type, default, range) plus the module's own."""

from __future__ import annotations

import pytest
from scale import options
from scale.ceph_scale_core.config import SETTINGS, ConfigError, Thresholds


def test_every_threshold_is_an_option_with_its_range():
    specs = {s.name: s for s in options.all_specs()}
    for setting in SETTINGS:
        spec = specs[setting.name]
        assert spec.type == {int: "int", float: "float", str: "str"}[setting.kind]
        assert spec.default == (None if setting.cluster_value else setting.default)  # unset: the cluster's value
        assert (spec.min, spec.max) == (setting.minimum, setting.maximum)
        assert spec.desc == setting.doc


def test_option_kwargs_are_keyword_style():
    kw = options.MODULE_SPECS[0].as_kwargs()
    assert kw["name"] == "server_addr" and kw["type"] == "str" and "desc" in kw
    spec = next(s for s in options.MODULE_SPECS if s.name == "rgw_source")
    assert spec.as_kwargs()["enum_allowed"] == list(options.RGW_SOURCES)


def test_the_port_is_not_a_stock_modules():
    assert options.DEFAULT_PORT == 9284


def test_read_thresholds_defaults_and_values():
    assert options.read_thresholds(lambda name: None) == Thresholds()
    th = options.read_thresholds({"fill_target_ratio": 0.75, "rgw_top_buckets": "50"}.get)
    assert th.fill_target_ratio == 0.75 and th.rgw_top_buckets == 50


@pytest.mark.parametrize(
    "values, message",
    [
        ({"fill_target_ratio": 2}, "outside"),
        ({"fill_target_ratio": 0.95}, "fill_warn_ratio <= fill_target_ratio <= fill_critical_ratio"),
        ({"rgw_top_buckets": 2.5}, "whole number"),
        ({"baseline_put_ops_per_hdd": "fast"}, "expected a number"),
    ],
)
def test_read_thresholds_rejects_as_a_whole(values, message):
    with pytest.raises(ConfigError, match=message):
        options.read_thresholds(values.get)


def test_module_settings():
    s = options.read_module_settings({"server_port": "9999", "rgw_verify_tls": "false", "rgw_log_pools": "a, b"}.get)
    assert s.server_port == 9999 and s.rgw_verify_tls is False and s.log_pools() == ["a", "b"]
    with pytest.raises(ConfigError, match="server_port"):
        options.read_module_settings({"server_port": 70000}.get)
    with pytest.raises(ConfigError, match="rgw_source: expected one of"):
        options.read_module_settings({"rgw_source": "magic"}.get)


def test_settings_repr_hides_the_secret():
    s = options.ModuleSettings(rgw_access_key="AK", rgw_secret_key="s3cr3t")
    assert "s3cr3t" not in repr(s) and "rgw_secret_key=***" in repr(s)


def test_the_settings_follow_ceph_within_one_pg_poll():
    assert options.ModuleSettings().settings_interval <= options.ModuleSettings().pgs_interval
