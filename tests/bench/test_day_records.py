"""The day-record benchmark (bench/day_records.py): what it measures is the shipped rules', the
expressions it compares them with are those they replaced, and its data is what the 5-minute
groups leave."""

from __future__ import annotations

import re

from bench import day_records


def test_it_measures_the_shipped_day_records_and_what_they_read_before():
    rules = day_records.shipped_rules()
    assert set(rules) == set(day_records.DAY_RECORDS)
    for day, (expr, record_expr) in rules.items():
        record, counter, _ = day_records.DAY_RECORDS[day]
        # The day record reads its 5-minute record over a day, not the counter.
        assert f"{record}[1d]" in expr and not re.search(counter + r"(\{[^}]*\})?\[1d\]", expr), expr
        assert record_expr == f"last_over_time({counter}[5m])"
    assert day_records.before(rules["cluster:ceph_scale_rgw_reshard_events:increase1d"][0]) == (
        "max by (cluster) (increase(ceph_scale_rgw_reshard_events_total[1d]))"
    )
    assert day_records.before(rules["cluster_kind:ceph_scale_pg_scrubs_completed:rate1d"][0]) == (
        "max by (cluster, kind) (rate(ceph_scale_pg_scrubs_completed_total[1d]))"
    )


def test_its_records_are_the_counters_values_at_their_own_step(tmp_path):
    path = tmp_path / "series.om"
    n = day_records.write_openmetrics(path, 3, 0, 3600)
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    assert n == len(lines) and path.read_text().endswith("# EOF\n")
    values = {}
    for line in lines:
        name_labels, value, t = line.rsplit(" ", 2)
        values[name_labels] = values.get(name_labels, {}) | {int(t): value}
    for record, counter, kinds in day_records.DAY_RECORDS.values():
        # Each cluster's series, of each kind: a counter every STEP, its record every RECORD_STEP.
        counters = [k for k in values if k.startswith(counter + "{")]
        records = [k for k in values if k.startswith(record + "{")]
        assert len(counters) == len(records) == 3 * max(len(kinds), 1)
        for key in counters:
            assert len(values[key]) == 3600 // day_records.STEP + 1
            recorded = values[key.replace(counter, record, 1)]
            assert len(recorded) == 3600 // day_records.RECORD_STEP + 1
            assert all(values[key][t] == v for t, v in recorded.items())
