"""Bucket quotas and owners as every release writes them (tests/fixtures/<release>/*quota*.json,
captured by cluster/capture_quotas.py from real clusters, CAPTURED.md): read by the parser as
the capture set them, summed per tenant as RGW applies them, and a tenant's runway to its quota
from those records growing at a known rate, through the real signal."""

from __future__ import annotations

import copy
import json
import math

import pytest

from ceph_scale.core import inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.parse_buckets import NO_QUOTA
from ceph_scale.core.signals.signal_input import SignalInput
from ceph_scale.core.signals.tenants import derive as tenants
from ceph_scale.core.snapshot import Snapshot
from cluster.capture_quotas import OBJECT_SIZE, OWNERS, SHAPES, USER_QUOTAS, bucket_key, split
from tests.unit.signals.derived import samples
from tests.unit.test_parser_oracles import RELEASES, load, names

# (owner, bucket key) -> (max size, max objects, enabled, objects put) or None, as the capture made them
MADE = {(owner, bucket_key(owner, b)): q for owner, buckets in OWNERS.items() for b, q in buckets.items()}
CAPTURED = [r for r in RELEASES if names(r, "admin_api_bucket_quota_*.json")]
HOUR = 3600.0


def test_every_release_has_its_quota_captures():
    assert CAPTURED == list(RELEASES)


def expected_quota(quota: tuple[int, int, bool, int] | None) -> tuple[int, int]:
    """What RGW applies: nothing while disabled or unset, and nothing of a negative maximum."""
    if quota is None or not quota[2]:
        return NO_QUOTA, NO_QUOTA
    return (quota[0] if quota[0] >= 0 else NO_QUOTA), (quota[1] if quota[1] >= 0 else NO_QUOTA)


@pytest.mark.parametrize("release", CAPTURED)
@pytest.mark.parametrize("source", ["admin_api_bucket_quota", "bucket_stats_quota"])
def test_each_quota_shape_reads_as_the_capture_set_it(release, source):
    for shape, key in SHAPES.items():
        doc = load(release, f"{source}_{shape}.json")
        b = inputs.bucket_record(doc, 0.0)
        owner = next(o for o, k in MADE if k == key)
        quota = MADE[(owner, key)]
        puts = quota[3] if quota is not None else 0
        assert (b.key, b.owner, b.tenant) == (key, owner, split(owner)[0]), shape
        assert (b.num_objects, b.size_bytes) == (puts, puts * OBJECT_SIZE), shape
        assert (b.quota_bytes, b.quota_objects) == expected_quota(quota), shape
        # The fast path and the checked one agree on the real record.
        assert inputs._bucket_checked(doc, 0, stats_at=0.0) == b


@pytest.mark.parametrize("release", CAPTURED)
def test_a_tenant_is_bounded_by_its_buckets_quotas_only_where_every_bucket_has_one(release):
    parts = [
        inputs.buckets_part(load(release, name), 0.0)
        for name in ("admin_api_bucket_stats_quotas.json", "bucket_stats_quotas.json")
    ]
    for part in parts:
        usage = tenants.tenant_usage(tuple(b for b in part.buckets if b.owner in OWNERS), 0.0)
        assert set(usage) == set(OWNERS)
        ops, dev, web = usage["acme$ops"], usage["acme$dev"], usage["quota-web"]
        # acme$ops: ops-logs 1000 objects and 10 MiB, ops-img 500 objects and no size: objects alone.
        assert (ops.quota_objects, ops.quota_bytes) == (1000 + 500, None)
        assert (ops.buckets, ops.objects, ops.bytes) == (2, 40 + 12, (40 + 12) * OBJECT_SIZE)
        # A disabled quota and a bucket without one leave their tenants unbounded.
        assert (dev.quota_objects, dev.quota_bytes) == (None, None)
        assert (web.quota_objects, web.quota_bytes) == (None, None)
    assert {b.key: b for b in parts[0].buckets} == {b.key: b for b in parts[1].buckets}


def grown(doc: list, t: float, added: int) -> list:
    """The captured listing with acme/ops-logs `added` objects (of the capture's size) fuller."""
    out = copy.deepcopy(doc)
    for b in out:
        if (b["tenant"], b["bucket"]) == ("acme", "ops-logs"):
            main = b["usage"]["rgw.main"]
            main["num_objects"] += added
            main["size_actual"] += added * OBJECT_SIZE
    return out


@pytest.mark.parametrize("release", CAPTURED)
def test_the_runway_to_a_captured_quota_is_its_room_over_the_growth(release):
    """acme/ops-logs grows 50 objects an hour for 3 hours; acme$ops's objects quota (1,500
    summed) is then 1,500 - 202 objects away: 25.96 hours. Its bytes have no quota (ops-img
    has none), nor has any other tenant."""
    doc = load(release, "admin_api_bucket_stats_quotas.json")
    th = Thresholds.from_mapping({"forecast_min_span_seconds": 3600, "plan_max_extrapolation": 30})
    state = tenants.TenantsState()
    families: list = []
    for step in range(4):
        t = 1_000_000.0 + step * HOUR
        part = inputs.buckets_part(grown(doc, t, 50 * step), t)
        families = tenants.derive(SignalInput(Snapshot(taken_at=t, buckets=part), th, 100_000), state)
    runways = samples(families, "ceph_scale_rgw_tenant_quota_runway_seconds") or {}
    room = 1500 - (40 + 12 + 150)
    want = (("tenant", "acme"), ("user", "ops"), ("quota", "objects"), ("bounded", "false"))
    assert set(runways) == {want}
    assert runways[want] == pytest.approx(room / (50 / HOUR))
    quotas = samples(families, "ceph_scale_rgw_tenant_quota") or {}
    assert quotas == {(("tenant", "acme"), ("user", "ops"), ("quota", "objects")): 1500}
    summary = state.summary
    assert summary is not None and [(r.owner, r.quota) for r in summary.runways] == [("acme$ops", "objects")]
    assert math.isclose(summary.runways[0].seconds, room * HOUR / 50, rel_tol=1e-9)


@pytest.mark.parametrize("release", CAPTURED)
def test_a_users_own_quota_is_in_its_user_info_as_the_capture_set_it(release):
    """What a user quota would be read from (not read by the poll: docs/metrics.md, "Usage per
    tenant and bucket"): `GET /admin/user?uid=U` and `?quota&quota-type=user` carry it alike."""
    for owner, (size, objects) in USER_QUOTAS.items():
        name = owner.replace("$", "_")
        info = load(release, f"admin_api_user_quota_{name}.json")
        only = load(release, f"admin_api_user_quota_only_{name}.json")
        cli = load(release, f"user_info_quota_{name}.json")
        for q in (info["user_quota"], only, cli["user_quota"]):
            assert (q["enabled"], q["max_size"], q["max_objects"]) == (True, size, objects)
        assert all(k["secret_key"] == "(redacted)" for k in info["keys"] + cli["keys"])


@pytest.mark.parametrize("release", CAPTURED)
def test_none_of_the_polls_reads_carries_a_user_quota(release):
    """Why user quotas are not judged: the bucket stats, the listing and an instance's metadata
    (what the poll reads) hold the bucket quota only; the user's quota is in its own answer."""
    read_by_the_poll = [
        *names(release, "admin_api_bucket_quota_*.json"),
        *names(release, "bucket_stats_quota_*.json"),
        "admin_api_bucket_stats_quotas.json",
        "admin_api_metadata_bucket_quotas_page.json",
        "admin_api_metadata_bucket_instance_quota.json",
    ]
    for name in read_by_the_poll:
        assert "user_quota" not in json.dumps(load(release, name)), name
    assert "user_quota" in load(release, "admin_api_user_quota_acme_ops.json")
    cost = load(release, "user_quota_read_cost.json")
    # What one more read per owner would cost (RADOS ops the RGW sent, catalog.md): a few at most.
    assert cost["reads_per_batch"] == 40 and cost["user_info_cold_raw_ops"] <= 3 * cost["reads_per_batch"]
