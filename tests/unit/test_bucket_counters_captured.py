"""Where RGW's per-bucket op counters can be read, as the captures of real Reef and Tentacle
clusters show it (tests/fixtures/{reef,tentacle}/*_bucket_counters*, cluster/capture_bucket_counters.py:
`rgw_bucket_counters_cache` and `rgw_user_counters_cache` set, 12 PUTs and GETs into bc-one and 5
into bc-two). The plunge evidence's confirmation of a reshard (signals/plunge/own_ops.py) rests on
these facts: the module reads them with the manager's labeled call (mgr_module/scale/bucket_ops.py);
a remote exporter has no route to them, and says its reshards are unconfirmed.
"""

from __future__ import annotations

from tests.unit.test_parser_oracles import load as captured

PER_BUCKET = "rgw_op_per_bucket"


def rgw_sections(doc: dict) -> set[str]:
    return {k for k in doc if k.startswith("rgw")}


def test_reef_18_2_7_has_no_per_bucket_counters_nor_their_option():
    routes = captured("reef", "cli_routes_bucket_counters.json")
    told = routes["options"]["ceph config set client.rgw rgw_bucket_counters_cache true"]
    assert told["rc"] != 0 and "unrecognized config option" in told["stderr_tail"]
    assert rgw_sections(captured("reef", "rgw_counter_dump_bucket_counters.json")) == {"rgw"}
    dump = captured("reef", "rgw_counter_dump_bucket_counters.json")["rgw"][0]
    assert dump["labels"] == {} and dump["counters"]["put"] == 17  # the old names: 12 + 5 PUTs


def test_tentacle_counts_each_buckets_ops_in_the_rgws_counter_dump_only():
    dump = captured("tentacle", "rgw_counter_dump_bucket_counters.json")
    assert rgw_sections(dump) == {"rgw", "rgw_op", PER_BUCKET, "rgw_op_per_user"}
    puts = {e["labels"]["bucket"]: e["counters"]["put_obj_ops"] for e in dump[PER_BUCKET]}
    assert puts == {"bc-one": 12, "bc-two": 5}
    assert rgw_sections(captured("tentacle", "rgw_perf_dump_bucket_counters.json")) == {"rgw", "rgw_op"}


def test_no_route_a_remote_exporter_reads_carries_them():
    """The mgr prometheus module (the perf source's main route) and the manager's unlabeled calls
    (what the `scale` module reads) stop at `rgw_op`; `ceph tell` reaches no RGW."""
    for release in ("reef", "tentacle"):
        text = captured(release, "mgr_prometheus_rgw_lines_bucket_counters.txt")
        assert "ceph_rgw_" in text and "per_bucket" not in text and "bucket=" not in text
        unlabeled = captured(release, "mgr_get_unlabeled_perf_counters_rgw_bucket_counters.json")
        assert unlabeled and all(PER_BUCKET not in path for daemon in unlabeled.values() for path in daemon)
        routes = captured(release, "cli_routes_bucket_counters.json")["routes"]
        tells = [r for r in routes if " tell rgw" in r["command"]]
        assert tells and all(r["rc"] != 0 for r in tells)


def test_the_manager_receives_them_on_tentacle_through_its_labeled_calls():
    """What a manager module could serve (not done: signals/plunge/evidence.py)."""
    counters = captured("tentacle", "mgr_get_perf_counters_rgw_bucket_counters.json")
    labeled = [
        entry["labels"]
        for daemon in counters.values()
        for entry in daemon.get(PER_BUCKET, [])
        if entry["counters"]  # a stale RGW id from before the restart lists empty sections
    ]
    assert {lb.get("bucket") for lb in labeled} == {"bc-one", "bc-two"}
