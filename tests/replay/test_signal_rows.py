"""A signal's row on the timeline: the samples the simulator served, one level per column on the
same axis as the alerts' bars, a blank where no scrape gave a sample (synthetic input: no
replay is run)."""

from __future__ import annotations

from replay import scenario, timeline, traces
from replay.alertmanager import Firing
from replay.run import Result
from replay.simulate import START

HOUR = """span: 1h
step: 1m
timeline: [osds_down, s3_ops]
clusters: [{name: a, nodes: 3, osds_per_node: 2, db_gb: 1, pgs: 64, rgws: 1}]
"""


def one_hour(tmp_path) -> scenario.Scenario:
    path = tmp_path / "hour.yml"
    path.write_text(HOUR)
    return scenario.load(path)


def test_a_signal_row_rises_in_the_columns_of_its_alert_and_leaves_a_gap_where_no_scrape_was(tmp_path):
    sc = one_hour(tmp_path)
    # One sample a minute (a column each): 2 OSDs down from 30 to 36 min, no scrape at 45 min.
    down = [(START + m * 60, 2.0 if 30 <= m < 36 else 0.0) for m in range(61) if m != 45]
    ops = [(START + m * 60, 100.0 if 30 <= m < 36 else 400.0) for m in range(61) if m != 45]
    fired = [Firing("CephScaleOsdsDownLargeDrop", (("severity", "critical"),), START + 30 * 60, START + 36 * 60)]
    r = Result(sc, 0, 0, 0, 0, [], fired, [], traces={("a", "osds_down"): down, ("a", "s3_ops"): ops})
    lines = timeline.markdown(r).splitlines()
    (row,) = [line for line in lines if "signal: a: OSDs down" in line]
    (ops_row,) = [line for line in lines if "signal: a: S3 ops/s" in line]
    (alert,) = [line for line in lines if "alert: CephScaleOsdsDownLargeDrop" in line]
    cells, label = row[: timeline.WIDTH], row[timeline.WIDTH :]
    assert cells == "▁" * 30 + "█" * 6 + "▁" * 9 + " " + "▁" * 14
    assert [i for i, c in enumerate(cells) if c == "█"] == [i for i, c in enumerate(alert) if c == "#"]
    assert label == "  signal: a: OSDs down, 0 to 2 (highest per column)"
    # The ops' row falls where the OSDs' rises; the scenario's order of its signals is kept.
    assert ops_row[: timeline.WIDTH] == "█" * 30 + "▁" * 6 + "█" * 9 + " " + "█" * 14
    assert ops_row.endswith("signal: a: S3 ops/s (put + get), 100 to 400 (lowest per column)")
    assert lines.index(row) < lines.index(ops_row) < lines.index(alert)


def test_a_column_shows_the_dip_or_the_rise_of_its_samples_not_their_mean():
    # Ten samples in each of the 60 columns; one low sample in column 7, one high in column 20.
    span = 600.0
    points = [(START + s, 50.0 if s == 75 else 90.0 if s == 205 else 80.0) for s in range(600)]
    low, lo, hi = timeline.sparkline(points, span, "min")
    high, hi_lo, hi_hi = timeline.sparkline(points, span, "max")
    assert (low.index("▁"), low.count("▁"), lo, hi) == (7, 1, 50.0, 80.0)
    assert (high.index("█"), high.count("█"), hi_lo, hi_hi) == (20, 1, 80.0, 90.0)


def test_a_signal_never_scraped_is_a_blank_row_that_says_so(tmp_path):
    r = Result(one_hour(tmp_path), 0, 0, 0, 0, [], [], [])
    rows = timeline.signal_rows(r)
    assert rows[0] == " " * timeline.WIDTH + "  signal: a: OSDs down, never scraped"


def test_a_trace_reads_its_series_from_a_scrape_and_a_count_with_no_series_is_zero():
    samples = [
        ("ceph_scale_osds", {"state": "down_in"}, 3.0),
        ("ceph_scale_osds", {"state": "down_out"}, 1.0),
        ("ceph_scale_osds", {"state": "up_in"}, 14.0),
        ("ceph_scale_osd_fullest_used_ratio", {"ceph_daemon": "osd.1"}, 0.8),
        ("ceph_scale_osd_fullest_used_ratio", {"ceph_daemon": "osd.2"}, 0.9),
    ]
    assert traces.values(("osds_down", "fullest_osd", "s3_ops"), samples) == {"osds_down": 4.0, "fullest_osd": 0.9}
    assert traces.values(("osds_down", "s3_ops"), samples[2:]) == {"osds_down": 0.0}


def test_a_runway_row_draws_never_at_the_top_and_says_it_in_days():
    # A runway shortening from 60 to 30 days, then "never" (+Inf) for its last ten columns: the
    # finite ones are scaled among themselves, never is the top level, and the label says both.
    span = 600.0
    points = [(START + s, (60 - s / 20) * 86400 if s < 500 else float("inf")) for s in range(0, 600, 10)]
    row, lo, hi = timeline.sparkline(points, span, "min")
    assert row[0] == "█" and row[49] == "▁" and row[50:] == "█" * 10
    tr = traces.TRACES["fill_runway"]
    assert (tr.value_text(lo), tr.value_text(hi)) == ("35.5 days", "never")
    samples = [("ceph_scale_runway_seconds", {"limit": "fill_cluster"}, float("inf")),
               ("ceph_scale_runway_seconds", {"limit": "load_hdd"}, 86400.0)]  # fmt: skip
    assert traces.values(("fill_runway",), samples) == {"fill_runway": float("inf")}
