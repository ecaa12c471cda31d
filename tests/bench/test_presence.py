"""The presence benchmark (bench/presence.py): what it measures is the shipped rules', and its
data is what the recording group leaves."""

from __future__ import annotations

import re

from bench import presence


def test_it_measures_the_shipped_exporter_alerts_that_read_the_presence_record():
    record, alerts = presence.shipped_rules()
    assert presence.RAW in record and "[5m]" in record
    # Every exporter alert with a day or week window reads the record, none the raw series over it.
    assert {"CephScaleExporterTargetDown", "CephScaleExporterDataMissing", "CephScaleClusterLeftFleet"} <= set(alerts)
    for expr in alerts.values():
        assert not re.search(presence.RAW + r"(\{[^}]*\})?\[(1d|7d)\]", expr), expr


def test_its_series_are_both_targets_of_each_cluster_at_their_own_steps(tmp_path):
    path = tmp_path / "series.om"
    start, end = 0, 3600
    n = presence.write_openmetrics(path, 3, start, end)
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    raw = [line for line in lines if line.startswith(presence.RAW + "{")]
    recorded = [line for line in lines if line.startswith(presence.RECORD + "{")]
    assert len(raw) == 3 * 2 * (3600 // presence.STEP + 1)
    assert len(recorded) == 3 * 2 * (3600 // presence.RECORD_STEP + 1)
    assert n == len(lines)
    assert path.read_text().endswith("# EOF\n")
