"""`ceph scale status`: the report builder over derived families, text and JSON."""

from __future__ import annotations

import json

import pytest
from scale.checks import CheckOptions, health_checks
from scale.report import SIGNALS, TITLES, build_report, render_json, render_text

from ceph_scale.core import registry
from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.results import SignalResults
from ceph_scale.core.snapshot import SourceStatus
from tests.mgr import snapshots as s
from tests.mgr.test_sources import fixture_derivation
from tests.unit.study_snapshot import rich_derivation, study_snapshot

NOTHING = (SignalResults(), Thresholds())  # no derivation yet


@pytest.fixture(scope="module")
def rich():
    fams, state = rich_derivation()
    return (fams, state.results, state.thresholds), health_checks(state.results, state.thresholds, CheckOptions())


# The state each section must report on the study-scale snapshot (tests/unit/study_snapshot.py),
# and what in that snapshot makes it so.
STUDY_STATUS = {
    "spillover": "WARN",  # every odd-numbered OSD has 1 GB on the slow device: 159 of 318 spill
    "fill": "WARN",  # 1 TB more used each minute: the 80 % target is hours away (SCALE_FILL_HEADROOM)
    "reshard": "WARN",  # buckets at and past the per-shard limit (SCALE_RESHARD_SOON), one queued
    "tenants": "OK",  # no bucket quotas in the study's buckets: no runway to judge
    "scrub": "WARN",  # scrub stamps up to 19 days and deep scrub stamps up to 29 days old: overdue PGs
    "load": "OK",  # 1,181 PUT/s and 787 GET/s over 317 HDD OSDs: 0.09 x the baseline; no OSD at 2 x the mean
    "plunge": "WARN",  # S3 ops 60 % below their baseline from 1030 s on while the clients' demand held
}


def test_every_signal_has_data_at_study_scale(rich):
    fams, checks = rich
    report = build_report(*fams, checks=checks, sources=study_snapshot(1120.0).sources)
    assert {name: report["signals"][name]["status"] for name in SIGNALS} == STUDY_STATUS
    for name in SIGNALS:
        assert report["signals"][name]["lines"], name
    # The causes above, as the report's own data says them.
    signals = report["signals"]
    assert signals["spillover"]["data"]["spillover_osds"] == 159
    assert {"SCALE_FILL_HEADROOM", "SCALE_RESHARD_SOON"} <= set(checks)
    assert signals["reshard"]["data"]["reshard_queued"] == 1
    assert {o["kind"] for o in signals["scrub"]["offenders"]} == {"scrub", "deep_scrub"}
    assert "SCALE_LOAD_ABOVE_BASELINE" not in checks
    assert signals["plunge"]["data"]["active"]
    assert report["cluster"] == "study"
    text = render_text(report)
    for name in SIGNALS:
        assert TITLES[name] in text
    assert "Sources: 1 of 8 failing" in text and "reshard: boom" in text


def test_offenders_worst_first(rich):
    fams, checks = rich
    sig = build_report(*fams, checks=checks)["signals"]
    spilled = [o["spilled_bytes"] for o in sig["spillover"]["offenders"]]
    assert spilled == sorted(spilled, reverse=True) and spilled
    fills = [o["used_ratio"] for o in sig["fill"]["offenders"]]
    assert fills == sorted(fills, reverse=True)
    shard_fill = [o["shard_fill_ratio"] for o in sig["reshard"]["offenders"]]
    assert shard_fill == sorted(shard_fill, reverse=True) and shard_fill[0] >= 1.0
    hot = [o["hotspot_ratio"] for o in sig["load"]["offenders"]]
    assert hot == sorted(hot, reverse=True)


def test_json_is_machine_readable_with_infinities(rich):
    fams, checks = rich
    snaps = [s.snap(t, pgs=s.pgs(t, 10, overdue=4)) for t in (1000.0, 1600.0)]
    derived, state = s.derive_with_state(snaps)
    report = build_report(derived, state.results, state.thresholds)
    data = json.loads(render_json(report))
    assert data["signals"]["scrub"]["data"]["deep_scrub"]["backlog_clear_seconds"] == "+Inf"
    assert data["signals"]["scrub"]["status"] == "WARN"
    assert "SCALE_SCRUB_BACKLOG" in data["health_checks"]
    assert json.loads(render_json(build_report(*fams, checks=checks), pretty=True))["producer"] == "mgr"


def test_no_data_is_said_not_zero():
    report = build_report([], *NOTHING)
    assert {report["signals"][n]["status"] for n in SIGNALS} == {"NO DATA"}
    text = render_text(report)
    assert "NO DATA" in text and "none" in text


def test_failing_source_and_health_checks_in_the_text():
    report = build_report(
        [],
        *NOTHING,
        checks={"SCALE_BAD_CONFIG": {"severity": "warning", "summary": "rejected", "count": 1, "detail": ["why"]}},
        sources=[SourceStatus("buckets", False, 1.0, None, "RgwError: connection refused", 3)],
    )
    text = render_text(report)
    assert "buckets: RgwError: connection refused (3 failures)" in text
    # Every registered source is listed, in the registry's order; one never run is failing.
    assert tuple(report["sources"]) == registry.SOURCE_NAMES
    assert "osd_map: not collected yet (0 failures)" in text
    assert f"Sources: {len(registry.SOURCE_NAMES)} of {len(registry.SOURCE_NAMES)} failing" in text
    assert "SCALE_BAD_CONFIG (warning): rejected" in text and "      why" in text


@pytest.mark.parametrize("suffix", ["", "_queued", "_resharded"])
def test_report_on_the_pacific_captures(suffix):
    fams, state = fixture_derivation(suffix)
    report = build_report(fams, state.results, state.thresholds)
    sig = report["signals"]
    assert sig["spillover"]["status"] == "WARN"  # osd.0's 256 MiB DB spills
    assert sig["spillover"]["offenders"][0]["ceph_daemon"] == "osd.0"
    assert sig["scrub"]["status"] == "WARN"  # scrubs were blocked with short intervals
    assert sig["reshard"]["data"]["max_objs_per_shard"] == 100
    if suffix == "_queued":
        assert sig["reshard"]["data"]["reshard_queued"] == 1
        assert sig["reshard"]["offenders"][0]["bucket"] == "queued-reshard"
    text = render_text(report)
    assert text.count("\n") > 20


def test_the_reshard_section_says_what_the_bucket_poll_costs_and_whether_it_keeps_up(rich):
    fams, checks = rich
    section = build_report(*fams, checks=checks)["signals"]["reshard"]
    assert section["data"]["bucket_poll"] == {"last_reads": 11_990, "budget_reads": 12_000, "overdue": 0,
                                              "unread": 0, "oldest_stats_age_seconds": 3 * 3600}  # fmt: skip
    assert "bucket poll: 11990 RADOS reads of 12000 budgeted; oldest stats 3.0 h; 0 bucket(s) overdue" in "\n".join(
        section["lines"]
    )


def test_the_plunge_section_names_the_likely_cause_and_the_counts(rich):
    fams, checks = rich
    section = build_report(*fams, checks=checks)["signals"]["plunge"]
    assert section["status"] == "WARN" and section["data"]["active"]
    text = "\n".join(section["lines"])
    # The study snapshot's cluster is 60 % slower from 1030 s on, a bucket resharding meanwhile.
    assert "PLUNGE: S3 ops below their recent baseline by PUT 60.0 %, GET 60.0 %" in text
    assert f"likely cause: {section['data']['likely_cause']['cause']} (" in text
    assert {o["cause"] for o in section["offenders"]} >= {"reshard"}
    assert "plunges counted: none; drops the clients made: 0" in text


def test_the_plunge_section_without_a_baseline_and_without_counters():
    from ceph_scale.core.config import Thresholds
    from ceph_scale.core.derive import DerivationState, derive
    from ceph_scale.core.snapshot import PerfPart, Snapshot
    from tests.unit.study_snapshot import rgw_ops

    th = Thresholds()
    state = DerivationState(th)
    fams = derive(Snapshot(taken_at=1.0, perf=PerfPart(1.0, rgw_ops=rgw_ops(1.0))), state, th)
    section = build_report(fams, state.results, th)["signals"]["plunge"]
    assert section["status"] == "OK" and section["lines"][0].startswith("no baseline yet")
    assert build_report([], *NOTHING)["signals"]["plunge"]["status"] == "NO DATA"
