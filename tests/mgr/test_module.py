"""The module class itself, on a fake manager: configuration, health, state, serving, commands."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest
from scale import statestore
from scale.module import Module, StandbyModule

from ceph_scale.core.signals.reshard.derive import ReshardState
from cluster.helpers import free_port, wait_for
from tests.mgr.fake_mgr import COMMANDS, load_fixture_data


def make(**options) -> Module:
    mod = Module("scale", None, None)
    load_fixture_data(mod)
    mod.options.update({"server_addr": "127.0.0.1", "server_port": free_port(), "rgw_source": "off", **options})
    return mod


def test_can_run():
    assert Module.can_run() == (True, "")


def test_every_option_is_declared_keyword_style():
    names = {o["name"] for o in Module.MODULE_OPTIONS}
    assert {"fill_target_ratio", "fill_forecast_warn_days", "rgw_endpoint", "server_port", "interval"} <= names
    assert StandbyModule.MODULE_OPTIONS is Module.MODULE_OPTIONS
    port = next(o for o in Module.MODULE_OPTIONS if o["name"] == "server_port")
    assert port["default"] == 9284 and port["min"] == 1 and port["type"] == "int"


def test_bad_threshold_is_rejected_whole_and_raises_scale_bad_config():
    mod = make()
    mod.options["fill_target_ratio"] = 0.75
    mod.config_notify()
    assert mod.thresholds.fill_target_ratio == 0.75 and "SCALE_BAD_CONFIG" not in (mod.health or {})
    # target above critical: valid alone, refused with the others; nothing half-applied
    mod.options.update({"fill_target_ratio": 0.95, "rgw_top_buckets": 50})
    mod.config_notify()
    assert mod.thresholds.fill_target_ratio == 0.75 and mod.thresholds.rgw_top_buckets == 10
    check = mod.health["SCALE_BAD_CONFIG"]
    assert "fill_warn_ratio <= fill_target_ratio <= fill_critical_ratio" in check["detail"][0]
    # a value past the option's range (set with --force) is refused the same way
    mod.options["fill_target_ratio"] = 2
    mod.config_notify()
    assert mod.thresholds.fill_target_ratio == 0.75 and "outside" in mod.health["SCALE_BAD_CONFIG"]["detail"][0]
    mod.options["fill_target_ratio"] = 0.85
    mod.config_notify()
    assert mod.thresholds.fill_target_ratio == 0.85 and mod.thresholds.rgw_top_buckets == 50
    assert "SCALE_BAD_CONFIG" not in mod.health


def test_bad_module_option_keeps_the_previous_settings():
    mod = make()
    mod.config_notify()
    mod.options["rgw_source"] = "telepathy"
    mod.config_notify()
    assert mod.settings.rgw_source == "off" and "rgw_source" in mod.health["SCALE_BAD_CONFIG"]["detail"][0]


def test_a_bad_module_option_also_holds_back_a_good_threshold():
    mod = make()
    mod.config_notify()
    mod.options.update({"rgw_source": "telepathy", "fill_target_ratio": 0.75})
    mod.config_notify()
    assert mod.thresholds.fill_target_ratio == 0.8 and mod.settings.rgw_source == "off"
    assert "all previous options stay in force" in mod.health["SCALE_BAD_CONFIG"]["detail"][0]
    mod.options["rgw_source"] = "off"
    mod.config_notify()
    assert mod.thresholds.fill_target_ratio == 0.75 and "SCALE_BAD_CONFIG" not in mod.health


def test_rgw_keys_from_the_store_when_the_options_are_empty():
    mod = make(rgw_endpoint="http://rgw:8080")
    mod.config_notify()
    mod.store.update({"rgw_access_key": "AK", "rgw_secret_key": "SK"})
    s = mod._rgw_settings()
    assert (s.rgw_access_key, s.rgw_secret_key) == ("AK", "SK")
    mod.options.update({"rgw_access_key": "AK2", "rgw_secret_key": "SK2"})
    mod.config_notify()
    assert mod._rgw_settings().rgw_secret_key == "SK2"  # the options win


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.fixture
def serving():
    mod = make(interval=1)
    stored = statestore.encode(
        {"version": 1, "reshard": {"events": 5, "seen_at": 50.0, "buckets": {"b": ["m", "i", 3]}}}
    )
    mod.store.update(stored)
    thread = threading.Thread(target=mod.serve, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{mod.options['server_port']}"
    wait_for(lambda: get_or_none(url + "/metrics")[0] == 200, 20, 0.1, what="/metrics")
    yield mod, url
    mod.shutdown()
    thread.join(15)
    assert not thread.is_alive()


def test_serves_metrics_restores_state_and_reports(serving):
    mod, url = serving
    status, text = get(url + "/metrics")
    assert 'ceph_scale_build_info{cluster="' in text and 'producer="mgr"' in text
    assert (
        "ceph_scale_rgw_reshard_events_total" in text
        and "} 5.0" in text.split("ceph_scale_rgw_reshard_events_total{")[1]
    )
    assert 'source="buckets"' not in text  # rgw_source off: not run, not reported
    assert mod.uri == f"http://127.0.0.1:{mod.options['server_port']}/"
    assert get(url + "/nope")[0] == 404
    # health checks from the fixture data: the scrub backlog needs two PG samples, so none
    # of ours fire on one capture except possibly fill; the call happened
    assert mod.health_calls >= 1
    rc, out, err = COMMANDS["scale status"](mod)
    assert rc == 0 and "1. BlueFS / RocksDB spillover: WARN" in out
    rc, out, err = COMMANDS["scale status"](mod, format="json")
    assert json.loads(out)["signals"]["spillover"]["offenders"][0]["ceph_daemon"] == "osd.0"


def test_status_judges_the_signals_even_with_health_checks_off():
    mod = make(interval=1, enable_health_checks=False, fill_warn_ratio=0.01, fill_target_ratio=0.05)
    mod.config_notify()
    mod._history_since = time.time()
    collector = mod.make_collector()
    mod.collector = collector
    collector.collect_all_once()
    assert "SCALE_FILL_HEADROOM" not in (mod.health or {})  # nothing published...
    rc, out, err = COMMANDS["scale status"](mod, format="json")
    fill = json.loads(out)["signals"]["fill"]
    assert fill["status"] == "WARN", fill  # ...yet the report says what holds
    assert any(line.startswith("cluster ") and "past the 5.0 % target" in line for line in fill["lines"]), fill["lines"]


def test_status_counts_osds_near_the_target_by_the_operators_margin():
    """The status's near-target count is the one SCALE_FILL_HEADROOM judges by: the operator's
    fill_headroom_warn_margin, not its default."""
    near = {}
    for margin in (0.05, 0.99):
        mod = make(interval=1, fill_headroom_warn_margin=margin)
        mod.config_notify()
        mod.collector = mod.make_collector()
        mod.collector.collect_all_once()
        rc, out, err = COMMANDS["scale status"](mod, format="json")
        near[margin] = json.loads(out)["signals"]["fill"]["data"]["osds_near_target"]
    # Within 99 points of the 80 % target: every OSD of the captured cluster; within 5: fewer.
    assert near[0.99] == 3 and near[0.05] < near[0.99], near


def test_plan_command_says_what_to_add_as_text_and_json():
    mod = make(interval=1)
    rc, out, err = COMMANDS["scale plan"](mod)
    assert rc < 0 and err == "mgr/scale: no data collected yet"  # not an empty plan
    mod.config_notify()
    mod.collector = mod.make_collector()
    mod.collector.collect_all_once()
    rc, out, err = COMMANDS["scale plan"](mod)
    assert rc == 0 and out.startswith("Runway to the target date (180 days)"), out
    # osd.0 of the captured cluster spills (its 256 MiB DB holds no whole level beyond L1)
    assert "db_levels" in out and "reached now" in out and "Plan to hold it with 1 OSD(s) lost" in out
    rc, out, err = COMMANDS["scale plan"](mod, format="json")
    doc = json.loads(out)
    assert doc["target_days"] == 180 and doc["plan"]["failure_domain_osds"] == 1
    assert {r["limit"] for r in doc["runways"]} == {
        "fill_cluster", "fill_osd", "db_levels", "load_hdd", "load_rgw", "scrub", "shard"
    }  # fmt: skip
    assert doc["plan"]["db_per_osd"]["osds_short_share"] == 0  # 6.25 % and 25 % of the data devices
    # One collection: no growth fitted, and the plan says so rather than pretend.
    assert [r["seconds"] for r in doc["runways"] if r["limit"] == "fill_cluster"] == [None]
    assert any("no raw growth fitted yet" in n for n in doc["plan"]["notes"])


def test_state_is_saved_when_it_changes(serving):
    mod, url = serving
    # The runways' first point is new history, written once; then the state is not rewritten
    # while nothing but the clock moves, until the runways' next point (a step of 450 s).
    wait_for(lambda: "runway" in json.loads(mod.store[statestore.HEADER_KEY]), 20, 0.1, what="the runways saved")
    header = mod.store[statestore.HEADER_KEY]
    assert json.loads(header)["reshard"]["events"] == 5
    since = mod.collector.snapshot.taken_at
    wait_for(lambda: mod.collector.snapshot.taken_at > since + 2.5, 20, 0.1)  # collections every second
    assert mod.store[statestore.HEADER_KEY] == header
    mod.collector.state.of(ReshardState).events = 6
    mod.collector.poke()
    wait_for(lambda: json.loads(mod.store[statestore.HEADER_KEY])["reshard"]["events"] == 6, 20, 0.1)


def test_derivations_go_on_while_a_state_write_waits_for_the_monitors(serving):
    """set_store waits for the monitors while they are away: the state is written off the
    derivation's thread, so sources failing meanwhile are still shown as failing."""
    mod, url = serving
    away = threading.Event()
    write = mod._writer._set_store
    mod._writer._set_store = lambda key, value: (away.wait(30), write(key, value))
    try:
        mod.collector.state.of(ReshardState).events += 1  # a change worth writing
        events = mod.collector.state.of(ReshardState).events
        mod.collector.poke()
        wait_for(lambda: mod._writer._running, 20, 0.1, what="a write waiting for the monitors")
        since = mod.collector.snapshot.taken_at
        wait_for(lambda: mod.collector.snapshot.taken_at > since + 2.5, 20, 0.1, what="derivations meanwhile")
    finally:
        away.set()
        mod._writer._set_store = write
    wait_for(lambda: json.loads(mod.store[statestore.HEADER_KEY])["reshard"]["events"] == events, 20, 0.1)


def test_port_in_use_raises_a_health_check_and_recovers():
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    port = blocker.getsockname()[1]
    mod = make(interval=1, server_port=port)
    thread = threading.Thread(target=mod.serve, daemon=True)
    thread.start()
    try:
        wait_for(lambda: "SCALE_METRICS_SERVER_DOWN" in (mod.health or {}), 20, 0.1)
        assert str(port) in mod.health["SCALE_METRICS_SERVER_DOWN"]["detail"][0]
        blocker.close()
        wait_for(lambda: "SCALE_METRICS_SERVER_DOWN" not in (mod.health or {}), 15, 0.1)
        assert get(f"http://127.0.0.1:{port}/metrics")[0] == 200
    finally:
        blocker.close()
        mod.shutdown()
        thread.join(15)


def test_standby_answers_503_naming_the_active():
    sb = StandbyModule("scale", None)
    port = free_port()
    sb.options.update({"server_addr": "127.0.0.1"})
    sb.localized["server_port"] = port
    sb.uri = "http://10.0.0.1:9284/"
    thread = threading.Thread(target=sb.serve, daemon=True)
    thread.start()
    try:
        status, text = wait_for(
            lambda: (lambda r: r if r[0] == 503 else None)(get_or_none(f"http://127.0.0.1:{port}/metrics")), 20, 0.1
        )
        assert "mgr.x" in text and "is standby" in text and "http://10.0.0.1:9284/metrics" in text
    finally:
        sb.shutdown()
        thread.join(15)
    assert not thread.is_alive()


def get_or_none(url):
    try:
        return get(url)
    except OSError:
        return (0, "")


def test_can_run_names_the_missing_package(tmp_path):
    """Without prometheus_client the module loads but says why it cannot run."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    code = (
        "import sys; sys.modules['prometheus_client'] = None\n"
        f"sys.path[:0] = [{str(repo)!r}, {str(repo / 'mgr_module')!r}]\n"
        "from tests.mgr import fake_mgr; fake_mgr.install()\n"
        "from scale.module import Module\n"
        "print(Module.can_run())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "False" in out and "apt install python3-prometheus-client" in out


def test_a_signal_that_cannot_be_derived_raises_a_health_check_and_the_rest_is_served(monkeypatch):
    from ceph_scale.core.signals.fill import derive as fill

    def broken(given, state):
        raise ZeroDivisionError("float division by zero")

    mod = make(interval=1)
    mod.config_notify()
    collector = mod.make_collector()
    mod.collector = collector
    monkeypatch.setattr(fill, "derive", broken)
    body = collector.collect_all_once().decode()
    mod._after_derive(collector.families, collector.snapshot)
    check = mod.health["SCALE_SIGNAL_FAILED"]
    assert check["count"] == 1 and check["detail"][0].startswith("fill: ZeroDivisionError: float division by zero at ")
    assert "ceph_scale_signal_success{cluster=" in body and "ceph_scale_bluefs_spilled_bytes" in body
    assert "ceph_scale_cluster_used_ratio" not in body
    rc, out, err = COMMANDS["scale status"](mod, format="json")
    assert "SCALE_SIGNAL_FAILED" in out
    monkeypatch.undo()
    collector.derive_now()
    mod._after_derive(collector.families, collector.snapshot)
    assert "SCALE_SIGNAL_FAILED" not in mod.health


def test_scale_counters_says_what_of_the_managers_data_is_malformed_in_one_line():
    """`ceph scale counters` (the sidecar's perf source on Reef and later): a daemon's counter the
    manager answers with a string is refused in one line naming it, not a traceback."""
    mod = make()
    mod.counters = {"osd.0": {"bluefs.db_used_bytes": "lots"}}
    mod.get_perf_schema = lambda kind, ident: {f"{kind}.{ident}": {"bluefs.db_used_bytes": {"type": 2}}}
    rc, out, err = COMMANDS["scale counters"](mod)
    assert rc < 0 and out == ""
    assert err == "mgr/scale: counters: osd.0 bluefs.db_used_bytes: expected a number, got str", err
    mod.counters = {"osd.0": {"bluefs.db_used_bytes": 7}}
    rc, out, err = COMMANDS["scale counters"](mod)
    assert rc == 0 and json.loads(out) == {"osd.0": {"bluefs.db_used_bytes": 7}}, (out, err)
