"""The plunge signal's section of `ceph scale status` (ceph_scale/core/signals/plunge/status.py)."""

from __future__ import annotations

from ceph_scale.core.signals.plunge.result import PlungeCause, PlungeResult
from ceph_scale.core.signals.plunge.status import SECTION
from tests.unit.signals.judged import judged


def plunge(active: bool, drop: dict[str, float], likely: PlungeCause | None = None) -> PlungeResult:
    scores = (("scrub", 0.4), ("reshard", 0.9))
    return PlungeResult(active, False, drop, {"put": 1.0}, scores, likely, {"reshard": 2, "scrub": 0}, 1)


def test_no_baseline_yet():
    section = SECTION.build(judged(plunge=plunge(False, {})), {}, 5)
    assert section["lines"][0].startswith("no baseline yet") and section["status"] == "OK"


def test_a_plunge_with_its_likely_cause_and_the_scores_highest_first():
    result = plunge(True, {"put": 0.6}, PlungeCause("reshard", "bucket b resharding 1 -> 11 shards"))
    section = SECTION.build(judged(plunge=result), {}, 5)
    assert section["status"] == "WARN"
    assert section["lines"][0].startswith("PLUNGE: S3 ops below their recent baseline by PUT 60.0 %")
    assert section["lines"][1] == "likely cause: reshard (bucket b resharding 1 -> 11 shards)"
    assert [o["cause"] for o in section["offenders"]] == ["reshard", "scrub"]
    assert section["lines"][-1] == "plunges counted: reshard 2; drops the clients made: 1"


def test_a_plunge_of_one_rgw_says_the_clusters_ops_held():
    evidence = "RGW 14301 PUT -90% (1 of 12 RGWs, their clients still waiting); the other 11 held"
    section = SECTION.build(judged(plunge=plunge(True, {"put": 0.075}, PlungeCause("rgw", evidence))), {}, 5)
    assert section["status"] == "WARN"
    assert (
        section["lines"][0]
        == "PLUNGE of some RGWs, each against its own baseline; the cluster's S3 ops: PUT 7.5 % below"
    )
    assert section["lines"][1] == f"likely cause: rgw ({evidence})"
