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
    ],
)
def test_a_wrong_scenario_says_what_is_wrong_in_one_line(tmp_path: Path, text, says):
    path = tmp_path / "s.yml"
    path.write_text(text)
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.load(path)
    assert says in str(e.value) and "\n" not in str(e.value)
