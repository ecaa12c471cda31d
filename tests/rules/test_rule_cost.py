"""A fleet's round: no rule expression reads a family with one series per OSD.

At 100 study-size clusters each such family is ~32,000 series read every round;
the exporter exports the per-cluster counts and sums the rules compare instead.
An alert's annotations may still read them: they run for a cluster that alerts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
RULE_FILES = [REPO / "rules" / "recording.yml", REPO / "rules" / "alerts.yml"]
# The 8 series per OSD of the exposition's budget (docs/benchmark.md): 318 each at 1x.
PER_OSD = (
    "ceph_scale_osd_used_ratio",
    "ceph_scale_osd_ops_per_second",
    "ceph_scale_bluefs_spilled_bytes",
    "ceph_scale_bluefs_db_size_bytes",
    "ceph_scale_bluefs_db_used_bytes",
    "ceph_scale_bluefs_db_usable_bytes",
    "ceph_scale_bluefs_db_share_ratio",
)


def expressions(path: Path) -> list[tuple[str, str]]:
    out = []
    for group in yaml.safe_load(path.read_text())["groups"]:
        for rule in group["rules"]:
            out.append((rule.get("alert") or rule.get("record"), rule["expr"]))
    return out


def per_osd_reads(expr: str) -> list[str]:
    return [name for name in PER_OSD if re.search(rf"(?<![:\w]){name}(?![:\w])", expr)]


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_no_rule_expression_reads_a_per_osd_family(path):
    readers = {name: per_osd_reads(expr) for name, expr in expressions(path)}
    assert {name: fams for name, fams in readers.items() if fams} == {}


def test_the_check_sees_a_per_osd_read():
    expr = "count by (cluster) (max by (cluster, ceph_daemon) (ceph_scale_bluefs_db_share_ratio) < 0.04)"
    assert per_osd_reads(expr) == ["ceph_scale_bluefs_db_share_ratio"]
    assert per_osd_reads("max by (cluster) (ceph_scale_cluster_bluefs_spilled_bytes)") == []
    assert per_osd_reads("cluster:ceph_scale_bluefs_spillover_osds:max > 0") == []
