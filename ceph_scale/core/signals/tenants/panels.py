"""The usage signal's panels: each tenant's bytes, objects, buckets, growth, quota runway and the
age of its figures; the largest buckets by bytes, objects and growth, each with the "(others)"
row that sums the rest; and the buckets past the studies' ~100 K objects per bucket [000, 004]."""

from __future__ import annotations

from ...panel_queries import CL, PICKED_OWNER, m
from ...panel_spec import INFO, OK, SOON, Panel, Query, runbook, st, tbl

RUNWAY = runbook("CephScaleTenantQuotaRunwayShort")
PAST_ADVISED = runbook("CephScaleBucketPastObjectsAdvised")
UNBOUNDED = 'bounded="false"'
TENANT = ["cluster", "tenant", "user"]
BUCKET = ["cluster", "tenant", "bucket", "user"]
OTHERS_NOTE = (
    ' The row bucket="(others)" sums every other bucket with stats read, so the column sums to the cluster\'s total '
    "(with every owner picked)."
)
PICKED_NOTE = " Narrowed to the owner picked in the Tenant and Owner variables (a click on a tenant's row)."
# A click on a tenant's row: this board again, same time range and clusters, with the Tenant and
# Owner variables set to that row's, which narrow the bucket tables to its buckets. Grafana fills
# ${__data.fields.X} from the clicked row (percent-encoded: a user id may hold any character).
OWNER_BUCKETS_URL = (
    "/d/${__dashboard.uid}/${__dashboard}?${__url_time_range}&${cluster:queryparam}&${datasource:queryparam}"
    "&var-tenant=${__data.fields.tenant:percentencode}&var-user=${__data.fields.user:percentencode}"
)
OWNER_BUCKETS_LINK = ("Its top buckets (this board, narrowed to this owner)", OWNER_BUCKETS_URL)


def _per_tenant(name: str, agg: str, *matchers: str) -> str:
    """One value per tenant whichever producers export it; for runways, across quota kinds."""
    return f"{agg} by (cluster, tenant, user) ({m(name, *matchers)})"


def tenants_table() -> Panel:
    runway = "ceph_scale_rgw_tenant_quota_runway_seconds"
    queries = [
        Query(m("ceph_scale_rgw_tenant_bytes"), instant=True, fmt="table"),
        Query(m("ceph_scale_rgw_tenant_objects"), instant=True, fmt="table"),
        Query(m("ceph_scale_rgw_tenant_buckets"), instant=True, fmt="table"),
        Query(m("ceph_scale_rgw_tenant_growth_bytes_per_second"), instant=True, fmt="table"),
        Query(_per_tenant(runway, "min", UNBOUNDED), instant=True, fmt="table"),
        Query(_per_tenant(runway, "min", 'bounded="true"'), instant=True, fmt="table"),
        Query(_per_tenant("ceph_scale_rgw_tenant_quota_runway_lower_seconds", "min"), instant=True, fmt="table"),
        Query(m("ceph_scale_rgw_tenant_stats_age_seconds"), instant=True, fmt="table"),
    ]
    return tbl(
        "Tenants: usage, growth and quota runway",
        "none",
        queries,
        desc='The rgw_tenant_series largest bucket owners by bytes, and user="(others)" summing the rest (exact). '
        "Growth is fitted over runway_window_seconds. Runway: to the nearest of the tenant's bucket quotas "
        "(summed, where every bucket it owns has one) or its user quota at that growth; 'held' where "
        'the fit is held to plan_max_extrapolation x its history (bounded="true": at least that long); '
        "'at least' at the fastest growth the fit allows. Age: the oldest read among its buckets. A click on "
        "a row's tenant or user narrows the bucket tables below to that owner's buckets (the Tenant and "
        "Owner variables; All again for every bucket).",
        runbook=RUNWAY,
        columns={
            "A": ("bytes", "bytes"),
            "B": ("objects", "short"),
            "C": ("buckets", "none"),
            "D": ("growth", "Bps"),
            "E": ("runway", "dtdurations"),
            "F": ("runway held (at least)", "dtdurations"),
            "G": ("runway at the fastest growth", "dtdurations"),
            "H": ("figures' age", "dtdurations"),
        },
        keep=TENANT,
        sort_by="bytes",
        row_links={"tenant": OWNER_BUCKETS_LINK, "user": OWNER_BUCKETS_LINK},
        w=18,
        h=9,
    )


def _top_buckets(title: str, name: str, column: str, unit: str, desc: str) -> Panel:
    return tbl(
        title,
        "none",
        [Query(m(name, *PICKED_OWNER), instant=True, fmt="table")],
        desc=desc + OTHERS_NOTE + PICKED_NOTE,
        runbook=PAST_ADVISED,
        columns={"A": (column, unit)},
        keep=BUCKET,
        sort_by=column,
        w=8,
        h=9,
    )


def top_buckets_by_bytes() -> Panel:
    return _top_buckets(
        "Largest buckets by bytes",
        "ceph_scale_rgw_bucket_usage_bytes",
        "bytes",
        "bytes",
        "The rgw_bucket_usage_top buckets with the most bytes (size_actual).",
    )


def top_buckets_by_objects() -> Panel:
    return _top_buckets(
        "Largest buckets by objects",
        "ceph_scale_rgw_bucket_usage_objects",
        "objects",
        "short",
        "The rgw_bucket_usage_top buckets with the most objects; about 100 K per bucket is the studies' "
        "guidance [000, 004].",
    )


def top_buckets_by_growth() -> Panel:
    return _top_buckets(
        "Fastest-growing buckets",
        "ceph_scale_rgw_bucket_usage_growth_bytes_per_second",
        "growth",
        "Bps",
        "The rgw_bucket_usage_top buckets growing fastest in bytes, between two reads of each bucket half "
        "a window to a window apart (rgw_growth_window_seconds).",
    )


def past_advised_count() -> Panel:
    return st(
        "Buckets past the advised objects per bucket",
        "none",
        [Query(m("ceph_scale_rgw_buckets_past_objects_advised"), CL)],
        desc="Buckets holding more than rgw_bucket_objects_advised objects (by default 100,000, the studies' "
        "~100 K per bucket [000, 004]); the list beside names the largest.",
        runbook=PAST_ADVISED,
        thresholds=[(None, OK), (1, INFO)],
        w=6,
        h=9,
    )


def past_advised_list() -> Panel:
    return tbl(
        "Buckets past the advised objects, largest first",
        "none",
        [Query(m("ceph_scale_rgw_bucket_past_objects_advised_objects", *PICKED_OWNER), instant=True, fmt="table")],
        desc="The rgw_bucket_usage_top largest buckets past rgw_bucket_objects_advised: pre-shard the ones "
        "that keep growing, or spread new data over more buckets [000]." + PICKED_NOTE,
        runbook=PAST_ADVISED,
        columns={"A": ("objects", "short")},
        keep=BUCKET,
        sort_by="objects",
        w=18,
        h=9,
    )


def runway_soonest() -> Panel:
    return st(
        "Shortest tenant quota runway",
        "s",
        [Query(f"min by (cluster) ({m('ceph_scale_rgw_tenant_quota_runway_seconds', UNBOUNDED)})", CL)],
        desc="The soonest any exposed tenant reaches its bucket or user quotas at its fitted growth (runways held to "
        "what the history supports left out); red under a week, as CephScaleTenantQuotaRunwayShort.",
        runbook=RUNWAY,
        thresholds=SOON,
        no_value="no runway",
        graph=False,
        w=6,
        h=9,
    )
