"""Module options: one per core threshold (same name, type, default, range) plus the module's own."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest
from scale import options

from ceph_scale.core.config import SETTINGS, ConfigError, Thresholds


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


# The manager calls that read a module option with its default.
_OPTION_READS = {"get_localized_module_option", "get_module_option", "_get_module_option"}


def _stock_ports(module_py: Path) -> set[int]:
    """The default of every option named *port that a stock module declares (`Option(name=...,
    default=...)`, `{"name": ..., "default": ...}`) or reads with a default, its module-level
    constants resolved (prometheus: `DEFAULT_PORT = 9283`)."""
    with warnings.catch_warnings():  # the stock modules' own invalid escapes are not ours to report
        warnings.simplefilter("ignore")
        tree = ast.parse(module_py.read_text(), str(module_py))
    constants = {
        node.targets[0].id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
    }

    def number(node: ast.expr | None) -> int | None:
        value = constants.get(node.id) if isinstance(node, ast.Name) else getattr(node, "value", None)
        return int(value) if isinstance(value, (int, str)) and str(value).isdigit() else None

    def named_port(node: ast.expr | None) -> bool:
        return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith("port")

    ports: set[int | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            fields = {k.value: v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}
            if named_port(fields.get("name")):
                ports.add(number(fields.get("default")))
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            keywords = {k.arg: k.value for k in node.keywords}
            if name in _OPTION_READS and node.args and named_port(node.args[0]):
                ports.add(number(node.args[1] if len(node.args) > 1 else keywords.get("default")))
            elif name == "Option" and named_port(keywords.get("name")):
                ports.add(number(keywords.get("default")))
    return {port for port in ports if port is not None}


def test_the_port_is_not_a_stock_modules():
    """Two modules cannot both listen on one port of a manager: the default the manager is told
    (the server_port option) is none of the installed stock modules' port defaults."""
    stock = Path("/usr/share/ceph/mgr")
    if not (stock / "prometheus" / "module.py").is_file():
        pytest.fail("ceph-mgr is not installed: scripts/bootstrap.sh installs it")
    taken = {m.parent.name: _stock_ports(m) for m in sorted(stock.glob("*/module.py"))}
    assert taken["prometheus"], "the scan found no port in the prometheus module: it reads them wrong"
    (port,) = [s.default for s in options.MODULE_SPECS if s.name == "server_port"]
    assert port == options.DEFAULT_PORT
    clashes = sorted(name for name, ports in taken.items() if port in ports)
    assert not clashes, f"port {port} is the default of the stock module(s) {clashes}"


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
