"""Slow OSDs as a plunge's cause: Ceph's SLOW_OPS check and BlueStore's slow-operation alert, read
from the health source, at the 10B study's scale (tests/unit/signals/plunge/study.py).

No captured fixture holds either check: the clusters of tests/fixtures/{pacific,reef,tentacle}
never had a request older than osd_op_complaint_time (their mgr_prometheus_metrics_full.txt reads
`ceph_daemon_health_metrics{type="SLOW_OPS",ceph_daemon="osd.N"} 0.0` and
`ceph_healthcheck_slow_ops 0.0`). The checks are built here in the shape `ceph health detail -f
json` gives every check, with the summary Ceph's manager writes for SLOW_OPS
(src/mgr/DaemonHealthMetricCollector.cc: "{n} slow ops, oldest one blocked for {s} sec, ...",
no detail lines, count 1, at most ten daemons named) from what each OSD reports
(src/osd/OSD.cc, OSD::get_health_metrics: its requests older than osd_op_complaint_time), and
parsed by the health source's own parser."""

from __future__ import annotations

import dataclasses

from bench import synth
from ceph_scale.core.parse_health import health_part
from ceph_scale.core.signals.plunge.slow_ops import bluestore_slow, slow_ops
from ceph_scale.core.snapshot import HealthCheck
from tests.unit.signals.plunge.study import SynthStudy
from tests.unit.study_rounds import PUT

SLOWER = dataclasses.replace(PUT, slowdown=1 / 0.4)  # ops -60 %


def check(summary: str, count: int = 1, code: str = "SLOW_OPS", detail: tuple[str, ...] = ()) -> dict:
    return {
        "detail": [{"message": m} for m in detail],
        "muted": False,
        "severity": "HEALTH_WARN",
        "summary": {"count": count, "message": summary},
    }


def raised(code: str, summary: str, count: int = 1, detail: tuple[str, ...] = ()) -> HealthCheck:
    """One check as the health source parses it."""
    parsed = health_part({"status": "HEALTH_WARN", "checks": {code: check(summary, count, code, detail)}}, 0.0)
    return parsed.checks[0]


def test_the_three_shapes_of_the_slow_ops_summary_and_a_foreign_one():
    detail = synth.Synth(**synth.STUDY).health_detail()
    detail["checks"]["SLOW_OPS"] = check(
        "42 slow ops, oldest one blocked for 35 sec, daemons [osd.12,osd.40] have slow ops."
    )
    seen = slow_ops(health_part(detail, 0.0))
    assert seen is not None and (seen.ops, seen.oldest_seconds, seen.daemons, seen.more) == (
        42,
        35.0,
        ("osd.12", "osd.40"),
        False,
    )
    assert seen.told() == "SLOW_OPS: 42 slow ops on 2 daemons (osd.12, osd.40), the oldest blocked 35 s"
    one = raised("SLOW_OPS", "3 slow ops, oldest one blocked for 31 sec, osd.5 has slow ops")
    many = raised(
        "SLOW_OPS",
        "1597 slow ops, oldest one blocked for 16139 sec, daemons "
        "[osd.0,osd.10,osd.13,osd.19,osd.22,osd.27,osd.29,osd.3,osd.35,osd.36]... have slow ops.",
    )
    mon = raised("SLOW_OPS", "30 slow ops, oldest one blocked for 10624 sec, mon.a has slow ops")
    got = {c.summary: slow_ops(_health(c)) for c in (one, many, mon)}
    assert got[one.summary].told() == "SLOW_OPS: 3 slow ops on 1 daemon (osd.5), the oldest blocked 31 s"
    assert got[many.summary].told() == (
        "SLOW_OPS: 1597 slow ops on 10+ daemons (osd.0, osd.10, osd.13 and more), the oldest blocked 16139 s"
    )
    assert got[mon.summary].osds == ()
    foreign = slow_ops(_health(raised("SLOW_OPS", "some slow requests")))
    assert foreign is not None and foreign.ops is None and foreign.told() == "SLOW_OPS: some slow requests"
    assert slow_ops(health_part(synth.Synth(**synth.STUDY).health_detail(), 0.0)) is None


def _health(c: HealthCheck):
    from ceph_scale.core.snapshot import HealthPart

    return HealthPart(0.0, "HEALTH_WARN", (c,))


def test_a_plunge_while_osds_report_slow_ops_is_blamed_on_them():
    c = SynthStudy().run(450, PUT)
    c.checks = [
        raised("SLOW_OPS", "42 slow ops, oldest one blocked for 35 sec, daemons [osd.12,osd.40] have slow ops.")
    ]
    c.run(60, SLOWER)
    info = c.info()
    assert info is not None and info["cause"] == "slow_ops", info
    assert info["evidence"] == (
        "SLOW_OPS: 42 slow ops on 2 daemons (osd.12, osd.40), the oldest blocked 35 s (usually 0)"
    ), info


def test_slow_ops_there_all_along_are_no_cause_and_slow_ops_without_a_drop_are_no_plunge():
    stuck = raised("SLOW_OPS", "1 slow ops, oldest one blocked for 9000 sec, osd.7 has slow ops")
    c = SynthStudy()
    c.checks = [stuck]
    c.run(450, PUT).run(60, SLOWER)
    info = c.info()
    assert info is not None and info["cause"] == "none", info
    quiet = SynthStudy().run(450, PUT)
    quiet.checks = [
        raised("SLOW_OPS", "42 slow ops, oldest one blocked for 35 sec, daemons [osd.12,osd.40] have slow ops.")
    ]
    quiet.run(120, PUT)
    assert quiet.value("ceph_scale_s3_plunge_active") == 0 and quiet.info() is None


def test_an_osd_newly_down_with_the_slow_ops_of_its_peers_is_blamed_on_the_osd():
    """Its replicas' requests wait for it until it is marked down: the slow ops are its doing."""
    c = SynthStudy().run(450, PUT)
    c.run(30, SLOWER)
    c.down(5)
    c.checks = [
        raised("SLOW_OPS", "12 slow ops, oldest one blocked for 33 sec, daemons [osd.60,osd.61] have slow ops.")
    ]
    c.run(30, SLOWER)
    info = c.info()
    assert info is not None and info["cause"] == "osds_down", info
    assert c.value("ceph_scale_s3_plunge_cause_score", cause="slow_ops") is not None


def test_slow_ops_beside_a_deep_scrub_burst_are_named_the_study_gave_scrubs_no_number():
    c = SynthStudy().run(450, PUT)
    c.pgs[:40] = [dataclasses.replace(pg, state="active+clean+scrubbing+deep") for pg in c.pgs[:40]]
    c.checks = [
        raised("SLOW_OPS", "42 slow ops, oldest one blocked for 35 sec, daemons [osd.12,osd.40] have slow ops.")
    ]
    c.run(60, SLOWER)
    info = c.info()
    assert info is not None and info["cause"] == "slow_ops", info
    deep = c.value("ceph_scale_s3_plunge_cause_score", cause="deep_scrub")
    assert deep is not None and deep < (c.value("ceph_scale_s3_plunge_cause_score", cause="slow_ops") or 0)


def test_bluestore_slow_operations_on_more_osds_than_usual_are_slow_osds_and_a_latched_alert_is_not():
    alert = "{} OSD(s) experiencing slow operations in BlueStore"
    latched = raised(
        "BLUESTORE_SLOW_OP_ALERT", alert.format(2), 2, ("osd.3 observed slow operation indications in BlueStore",)
    )
    assert bluestore_slow(_health(latched)) == 2
    c = SynthStudy()
    c.checks = [latched]
    c.run(450, PUT)
    c.checks = [raised("BLUESTORE_SLOW_OP_ALERT", alert.format(5), 5)]
    c.run(60, SLOWER)
    info = c.info()
    assert info is not None and info["cause"] == "slow_ops", info
    assert info["evidence"] == "BLUESTORE_SLOW_OP_ALERT: 5 OSD(s) saw slow BlueStore operations (usually 2)"
    quiet = SynthStudy()
    quiet.checks = [latched]
    quiet.run(450, PUT).run(60, SLOWER)
    assert (quiet.info() or {}).get("cause") == "none"
