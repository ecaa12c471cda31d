"""The scenario format: every shipped scenario loads, and a wrong field says which in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay import scenario
from replay.run import REPO

SHIPPED = sorted((REPO / "replay" / "scenarios").glob("*.yml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_scenarios_load(path):
    sc = scenario.load(path)
    assert sc.span > sc.step > 0 and sc.clusters


def test_study_10b_has_the_studys_shape():
    sc = scenario.load(REPO / "replay" / "scenarios" / "study_10b.yml")
    (c,) = sc.clusters
    assert (c.osds, c.pgs, c.rgws, c.spilled_osds[1], c.overdue_scrub[1], c.overdue_deep[1]) == (
        318, 21760, 12, 296, 21070, 19494,
    )  # fmt: skip


def test_resharding_has_the_studys_shape():
    """50 rounds of an hour of PUT, 15 minutes of GET and 15 of mixed ops; one bucket from 16
    shards past 30 M objects; 5.4 K -> 3.9 K ops/s [000]."""
    sc = scenario.load(REPO / "replay" / "scenarios" / "resharding.yml")
    (c,) = sc.clusters
    period = sum(s.duration for s in c.workload)
    assert (sc.span / period, [s.duration / 60 for s in c.workload]) == (50, [60, 15, 15])
    assert (c.shards[0], c.bucket_objects[1] > 30_000_000, c.workload[0].put * c.pace[1]) == (16, True, 3888)


BUCKETS = "span: 1d\nclusters: [{name: a, nodes: 3, osds_per_node: 2, db_gb: 1, pgs: 64, rgws: 1, buckets: 2"


@pytest.mark.parametrize(
    "text, says",
    [
        ("span: 1d\nclusters: []\n", "at least one cluster"),
        ("span: soon\nclusters: [{name: a}]\n", "span: 'soon' is not a duration"),
        ("span: 1d\nclusters: [{name: a, nodes: 3}]\n", "clusters[0] a: `osds_per_node` is required"),
        (
            "span: 1d\nclusters: [{name: a, nodes: 3, osds_per_node: 2, db_gb: 1, pgs: 64, rgws: 1,"
            " events: [{kind: node_down, at: 2h, node: 5}]}]\n",
            "node_down of node 5, but the cluster has 3",
        ),
        ("span: 1d\nclusters: [{name: a, events: [{kind: meteor, at: 1h}]}]\n", "an event needs `kind`"),
        (BUCKETS + ", shards: [16]}]\n", "a.shards: one number for every bucket, or a list of 2"),
        (BUCKETS + ", pace: [0, 1]}]\n", "a.pace: a share of the healthy rate"),
        (BUCKETS + ", dynamic_reshard: {thread_interval: 10m}}]\n", "`entries_per_second` is required"),
        (BUCKETS + ", events: [{kind: scrub_storm, at: 1h, for: 30m, pgs: 65}]}]\n", "a scrub_storm needs 0 < pgs"),
        (BUCKETS + ", events: [{kind: power_outage, at: 1h, served: 0.8}]}]\n", "a power_outage needs `for`"),
        (BUCKETS + ", events: [{kind: add_rgws, at: 1h}]}]\n", "add_rgws needs a `count`"),
    ],
)
def test_a_wrong_scenario_says_what_is_wrong_in_one_line(tmp_path: Path, text, says):
    path = tmp_path / "s.yml"
    path.write_text(text)
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.load(path)
    assert says in str(e.value) and "\n" not in str(e.value)
