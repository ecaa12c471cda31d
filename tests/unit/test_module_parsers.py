"""The module's own reads of the manager's data (mgr_module/scale/module_parsers.py): a missing or
mistyped field fails the source in one line naming it, never a zero.

The module package is imported as the manager would, without a manager: mgr_module/scale as a
package of its own (bench.canned_mgr.mgr_package does the same); its InputError is the core's
(`m.inputs.InputError`), which the installer copies beside it.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_parser_oracles import FIXTURES, RELEASES

SCALE_DIR = Path(__file__).resolve().parents[2] / "mgr_module" / "scale"


def module_package(scale_dir: Path = SCALE_DIR) -> types.SimpleNamespace:
    """mgr_module/scale's sources and its core's inputs, imported without Ceph's mgr_module."""
    name = "_test_scale" + re.sub(r"\W", "_", str(scale_dir))
    if name not in sys.modules:
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(scale_dir)]
        sys.modules[name] = pkg
    return types.SimpleNamespace(
        sources=importlib.import_module(f"{name}.sources"),
        inputs=importlib.import_module("ceph_scale.core.inputs"),
    )


m = module_package()


def load(release: str, name: str) -> Any:
    return json.loads((FIXTURES / release / name).read_text())


def manager_osd_data(release: str) -> tuple[Any, Any, Any]:
    """(osd_stats, osd_map_crush, osd_map) as the manager hands them. osd_stats is the PG map's,
    as captured by `ceph pg dump -f json` (pg_map.osd_stats, the same PGMap::dump_osd_stats the
    manager's get("osd_stats") writes); the CRUSH devices carry `osd df`'s classes."""
    stats = {"osd_stats": load(release, "pg_dump.json")["pg_map"]["osd_stats"]}
    nodes = load(release, "osd_df.json")["nodes"]
    crush = {"devices": [{"id": n["id"], "name": n["name"], "class": n["device_class"]} for n in nodes]}
    return stats, crush, load(release, "osd_dump.json")


@pytest.mark.parametrize("release", RELEASES)
def test_the_captured_osd_stats_give_every_osds_sizes(release):
    stats, crush, dump = manager_osd_data(release)
    df = m.sources.osd_df_from_stats(stats, crush, dump)
    captured = {s["osd"]: (s["kb"], s["kb_used"], s["kb_avail"]) for s in stats["osd_stats"]}
    assert {n["id"]: (n["kb"], n["kb_used"], n["kb_avail"]) for n in df["nodes"]} == captured
    assert all(kb_used > 0 for _, kb_used, _ in captured.values())  # a real OSD's, never a default


@pytest.mark.parametrize("field", ["kb", "kb_used", "kb_avail", "osd"])
def test_an_osd_stats_entry_without_a_size_fails_naming_it(field):
    stats, crush, dump = manager_osd_data("pacific")
    del stats["osd_stats"][1][field]
    with pytest.raises(m.inputs.InputError, match=rf"^osd_stats\.osd_stats\[1\]\.{field}: missing$"):
        m.sources.osd_df_from_stats(stats, crush, dump)


def test_a_mistyped_size_fails_naming_it():
    stats, crush, dump = manager_osd_data("reef")
    stats["osd_stats"][0]["kb_used"] = "lots"
    with pytest.raises(m.inputs.InputError, match=r"^osd_stats\.osd_stats\[0\]\.kb_used: expected an integer"):
        m.sources.osd_df_from_stats(stats, crush, dump)


@pytest.mark.parametrize("crush", [[], None, "x", {"devices": {}}, {"buckets": []}, {"devices": [{"class": "hdd"}]}])
def test_a_crush_map_without_its_devices_fails_naming_it(crush):
    stats, _, dump = manager_osd_data("tentacle")
    with pytest.raises(m.inputs.InputError, match=r"^osd_map_crush"):
        m.sources.osd_df_from_stats(stats, crush, dump)


def test_a_device_without_a_class_is_shown_without_one():
    """CrushWrapper::dump writes "class" only for a device that has one; `osd df` shows "" then."""
    stats, crush, dump = manager_osd_data("pacific")
    del crush["devices"][2]["class"]
    df = m.sources.osd_df_from_stats(stats, crush, dump)
    assert [n["device_class"] for n in df["nodes"]] == ["hdd", "hdd", ""]


def test_an_osd_that_never_reported_has_the_zeros_osd_df_gives_it():
    stats, crush, dump = manager_osd_data("pacific")
    stats["osd_stats"] = [s for s in stats["osd_stats"] if s["osd"] != 2]
    node = m.sources.osd_df_from_stats(stats, crush, dump)["nodes"][2]
    assert (node["id"], node["kb"], node["kb_used"]) == (2, 0, 0)


# --- perf counters -------------------------------------------------------------------------


class Manager:
    """The manager's perf counter calls over plain data, as Pacific's mgr_module.py answers them."""

    def __init__(self, schema: dict[str, Any], latest: dict[str, Any], avg: dict[str, Any]) -> None:
        self.schema, self.latest, self.avg = schema, latest, avg

    def list_servers(self) -> Any:
        return [
            {"hostname": "h", "services": [{"type": d.split(".")[0], "id": d.split(".", 1)[1]} for d in self.schema]}
        ]

    def get_perf_schema(self, kind: str, ident: str) -> Any:
        daemon = f"{kind}.{ident}"
        return {daemon: self.schema[daemon]}

    def get_latest(self, kind: str, ident: str, path: str) -> Any:
        return self.latest[f"{kind}.{ident}"][path]

    def get_latest_avg(self, kind: str, ident: str, path: str) -> Any:
        return self.avg[f"{kind}.{ident}"][path]

    def get_all_perf_counters(self, prio_limit: int = 0, services: tuple = ()) -> Any:
        """mgr_module.py's walker: each counter's schema entry, with "value" (and "count")."""
        out: dict[str, Any] = {}
        for daemon, schema in self.schema.items():
            for path, info in schema.items():
                entry = dict(info)
                if path in self.avg.get(daemon, {}):
                    entry["value"], entry["count"] = self.avg[daemon][path]
                else:
                    entry["value"] = self.latest[daemon][path]
                out.setdefault(daemon, {})[path] = entry
        return out


def rgw_manager() -> Manager:
    return Manager(
        {"rgw.4257": {"rgw.put": {"type": 10}, "rgw.put_initial_lat": {"type": 5}}},
        {"rgw.4257": {"rgw.put": 300}},
        {"rgw.4257": {"rgw.put_initial_lat": (2_500_000_000, 300)}},
    )


def test_an_averaged_time_counter_is_read_in_seconds_both_ways():
    mgr = rgw_manager()
    want = {"rgw.4257": {"rgw.put": 300, "rgw.put_initial_lat.sum": 2.5, "rgw.put_initial_lat.count": 300}}
    assert m.sources.fetch_counters(mgr) == want
    assert m.sources.fetch_counters_fallback(mgr) == want


@pytest.mark.parametrize("release", RELEASES)
def test_an_osds_op_latencies_are_read_as_its_perf_dump_tells_them(release):
    """osd.op_r_latency and osd.op_w_latency as the manager hands them (nanoseconds summed, ops
    counted), from the OSD's own `perf dump` of each release: the perf part's latency is their
    sum in seconds over their count, both ways of reading the manager."""
    from ceph_scale.core.parse_perf import perf_part

    osd = json.loads((FIXTURES / release / "osd_perf_dump_osd0.json").read_text())["osd"]
    time_avg = {"type": 5}  # PERFCOUNTER_TIME | PERFCOUNTER_LONGRUNAVG
    paths = ("op_r", "op_w", "op_r_latency", "op_w_latency")
    mgr = Manager(
        {"osd.0": {f"osd.{p}": ({"type": 10} if "latency" not in p else time_avg) for p in paths}},
        {"osd.0": {"osd.op_r": osd["op_r"], "osd.op_w": osd["op_w"]}},
        {"osd.0": {f"osd.{p}": (round(osd[p]["sum"] * 1e9), osd[p]["avgcount"]) for p in paths[2:]}},
    )
    for fetched in (m.sources.fetch_counters(mgr), m.sources.fetch_counters_fallback(mgr)):
        ops = perf_part(fetched, 0.0).osd_ops[0]
        assert (ops.read_latency_count, ops.write_latency_count) == (
            osd["op_r_latency"]["avgcount"],
            osd["op_w_latency"]["avgcount"],
        )
        assert ops.read_latency_sum == pytest.approx(osd["op_r_latency"]["sum"])
        assert ops.write_latency_sum == pytest.approx(osd["op_w_latency"]["sum"])


@pytest.mark.parametrize(
    ("counter", "field"),
    [("rgw.put_initial_lat", "count"), ("rgw.put_initial_lat", "value"), ("rgw.put", "value")],
)
def test_a_walked_counter_without_a_field_fails_naming_it(counter, field):
    """An averaged counter without its count or its sum, a plain one without its value."""
    mgr = rgw_manager()
    walked = mgr.get_all_perf_counters()
    del walked["rgw.4257"][counter][field]
    mgr.get_all_perf_counters = lambda **_: walked  # type: ignore[method-assign]
    with pytest.raises(m.inputs.InputError, match=rf"^rgw\.4257 {re.escape(counter)}\.{field}: missing$"):
        m.sources.fetch_counters_fallback(mgr)


def test_an_averaged_counter_whose_schema_has_no_type_fails_naming_it():
    """Without its type the sum could not be told from nanoseconds: 1e9 times too long a latency."""
    mgr = rgw_manager()
    del mgr.schema["rgw.4257"]["rgw.put_initial_lat"]["type"]
    with pytest.raises(m.inputs.InputError, match=r"^rgw\.4257 rgw\.put_initial_lat\.type: missing$"):
        m.sources.fetch_counters(mgr)


@pytest.mark.parametrize("value", [None, "abc", [1], float("nan"), True])
def test_a_mistyped_counter_value_fails_naming_it(value):
    mgr = rgw_manager()
    mgr.latest["rgw.4257"]["rgw.put"] = value
    with pytest.raises(m.inputs.InputError, match=r"^rgw\.4257 rgw\.put: expected a"):
        m.sources.fetch_counters(mgr)


def test_a_server_without_services_fails_naming_it():
    mgr = rgw_manager()
    mgr.list_servers = lambda: [{"hostname": "h"}]  # type: ignore[method-assign]
    with pytest.raises(m.inputs.InputError, match=r"^list_servers\[0\]\.services: missing$"):
        m.sources.fetch_counters(mgr)
