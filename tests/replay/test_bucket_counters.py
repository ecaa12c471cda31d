"""The resharding run's first five rounds (resharding_rounds.yml: hourly PUT rounds, the bucket
under test resharding 16 -> 32 -> 64 while its writes wait [000]) on a Tentacle cluster, replayed
through the real parsers and derivation, with and without per-bucket op counters.

With `bucket_counters: true` the RGWs count each bucket's ops and the reshard source reads the
queued bucket's counts as the module does (core/queued_bucket_ops.py over the simulated manager's
`get_latest_counter` answers): each reshard's plunge is named with its bucket's own PUTs fallen.
Without them (the sidecar, the option off) it is named all the same, said unconfirmed."""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from pathlib import Path

import pytest

from ceph_scale.core.config import Thresholds
from replay import scenario
from replay.cluster import SimCluster
from replay.simulate import START, Exporter

ROUNDS = Path(__file__).resolve().parents[2] / "replay" / "scenarios" / "resharding_rounds.yml"
INFO = "ceph_scale_s3_plunge_info"


@functools.cache
def plunge_evidence(counted: bool) -> tuple[list[tuple[float, str, str]], list[tuple[float, float]]]:
    """(t, cause, evidence) at each poll with a plunge named, and each reshard's (start, end)."""
    rounds = scenario.load(ROUNDS)
    spec = replace(rounds.clusters[0], release="tentacle", bucket_counters=counted)
    sim = SimCluster(spec, START, rounds.span)
    ex = Exporter(spec, sim, "reshard-1b-sidecar:9283")
    named = []
    t = START
    while t <= START + rounds.span:
        for name, labels, value in ex.poll(t, rounds.pgs_interval):
            if name == INFO and value == 1:
                named.append((t, labels["cause"], labels["evidence"]))
        t += rounds.step
    reshards = [(s, e) for s, e, what in sim.incidents() if "resharding" in what and e is not None]
    return named, reshards


def during(named: list[tuple[float, str, str]], start: float, end: float) -> list[tuple[str, str]]:
    return [(cause, evidence) for t, cause, evidence in named if start <= t <= end + 120]


@pytest.mark.parametrize("counted", [True, False], ids=["counted", "not counted"])
def test_each_reshard_is_named_and_confirmed_only_where_its_bucket_ops_are_counted(counted):
    named, reshards = plunge_evidence(counted)
    assert len(reshards) == 2
    for start, end in reshards:
        mine = during(named, start, end)
        assert mine and {cause for cause, _ in mine} == {"reshard"}, mine
        if counted:
            # Half the cluster's writes went to the bucket under test, and all of them wait: over
            # the interval the evidence spans, its share of them fell by the part the reshard took.
            # Its reads go on, and the clients' switches from reads to writes are not its own fall:
            # no GETs named.
            for _, evidence in mine:
                fell = re.search(r"its share of the PUTs fell from (\d+)% to (\d+(?:\.\d)?)%", evidence)
                assert fell, evidence
                assert float(fell[2]) <= (1 - Thresholds().plunge_drop_ratio) * float(fell[1]), evidence
        else:
            assert all(
                "its own ops unconfirmed: per-bucket op counters not read" in evidence for _, evidence in mine
            ), mine


def test_counting_the_buckets_ops_changes_no_plunge_only_its_evidence():
    """The same polls plunge, with the same cause: the counts confirm what was named."""
    counted, _ = plunge_evidence(True)
    uncounted, _ = plunge_evidence(False)
    assert [(t, cause) for t, cause, _ in counted] == [(t, cause) for t, cause, _ in uncounted]


def test_bucket_counters_are_the_labeled_calls_of_a_tentacle_manager(tmp_path):
    text = ROUNDS.read_text().replace("    rgws: 7\n", "    rgws: 7\n    bucket_counters: true\n")
    (tmp_path / "pacific.yml").write_text(text)
    with pytest.raises(scenario.ScenarioError, match=r"bucket_counters: only a tentacle cluster's manager"):
        scenario.load(tmp_path / "pacific.yml")
    (tmp_path / "tentacle.yml").write_text(text.replace("    rgws: 7\n", "    rgws: 7\n    release: tentacle\n"))
    assert scenario.load(tmp_path / "tentacle.yml").clusters[0].bucket_counters is True
    (tmp_path / "bad.yml").write_text(text.replace("bucket_counters: true", "bucket_counters: yes please"))
    with pytest.raises(scenario.ScenarioError, match=r"bucket_counters: 'yes please': true or false"):
        scenario.load(tmp_path / "bad.yml")
