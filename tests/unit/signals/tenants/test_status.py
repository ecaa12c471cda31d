"""The usage signal's section of `ceph scale status` (ceph_scale/core/signals/tenants/status.py),
at study scale through the real derivation."""

from __future__ import annotations

from ceph_scale.core import registry
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.judging import Judged
from ceph_scale.core.signals.tenants.status import SECTION
from tests.unit.signals.judged import judged
from tests.unit.signals.tenants.study import TH, Study


def build(study: Study, raised: dict | None = None) -> dict:
    return SECTION.build(Judged(study.state.results, TH, CheckOptions()), raised or {}, 5)


def test_no_data_without_a_result_and_the_registry_lists_it():
    section = SECTION.build(judged(), {}, 5)
    assert section["status"] == "NO DATA" and "no bucket stats yet" in section["lines"][0]
    assert next(s for s in registry.SIGNALS if s.name == "tenants").status is SECTION


def test_ok_and_warn_follow_the_raised_check(study: Study):
    assert build(study)["status"] == "OK"
    assert build(study, {"SCALE_TENANT_QUOTA_RUNWAY": {}})["status"] == "WARN"


def test_the_counts_and_the_largest_tenants(study: Study):
    section = build(study)
    lines = section["lines"]
    owners = {b["owner"] for b in study.cluster.buckets.values()}
    summed = len(owners) - TH.rgw_tenant_series
    assert lines[0] == f"{len(owners)} tenants over 100000 buckets, {summed} summed into others"
    assert section["data"]["tenants_summed"] == summed
    largest = [t["owner"] for t in section["data"]["largest"]]
    assert largest[:4] == list(study.owners) and len(largest) == 5
    # Bytes, growth and the figures' age: the three growing tenants grew 1 GB and 3 objects an hour, read
    # 60 min ago (later polls read only the growing buckets), the fourth not.
    first = lines[lines.index("largest tenants by bytes:") + 1]
    assert first.startswith(f"  {study.owners[0]}: ") and "+22.4 GiB, +72 objects a day; figures 60 min old" in first
    assert "+0 B, +0 objects a day" in lines[lines.index("largest tenants by bytes:") + 4]


def test_the_runways_under_30_days_soonest_first(study: Study):
    section = build(study)
    lines = section["lines"]
    start = lines.index("quota runways under 30 days, soonest first:")
    largest, second, third, _ = study.owners  # 3 days, 20 days, 12 hours, not growing
    assert lines[start + 1 : start + 4] == [
        f"  {third}: bytes quota in 12.0 h (at least 12.0 h)",
        f"  {largest}: bytes quota in 3.0 days (at least 3.0 days)",
        f"  {second}: bytes quota in 20.0 days (at least 20.0 days)",
    ]
    assert [o["owner"] for o in section["offenders"]] == [third, largest, second]


def test_the_buckets_past_the_advised_objects_and_the_three_largest(study: Study):
    cluster = study.cluster
    past = sorted(((cluster.objects(k), k) for k in cluster.buckets if cluster.objects(k) > 100_000), reverse=True)
    named = ", ".join(f"{k} ({n})" for n, k in past[:3])
    assert build(study)["lines"][-1] == f"{len(past)} bucket(s) past 100000 objects, the largest {named}"
