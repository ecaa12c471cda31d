"""The PromQL pieces the signals' panels share: the cluster selector and the helpers built on it,
the configured value of a threshold, and the S3 rates several signals draw.

Every query filters on ``cluster=~"$cluster"`` (the boards' multi-cluster variable) and every
rate/increase uses ``$__rate_interval``.
"""

from __future__ import annotations

C = 'cluster=~"$cluster"'
CL = "{{cluster}}"  # the legend's cluster


def sel(*matchers: str) -> str:
    """A label selector with the cluster matcher first: sel('kind="scrub"')."""
    return "{" + ", ".join((C, *matchers)) + "}"


def raw(name: str, *matchers: str) -> str:
    """The bare selector: for range functions, whose result the caller aggregates."""
    return name + sel(*matchers)


def m(name: str, *matchers: str) -> str:
    """One series per cluster and own labels, whichever producers export it: the sidecar and
    the mgr module (or two scrape jobs) may both, and a bare selector would draw it twice."""
    return f"max without (job, instance) ({raw(name, *matchers)})"


def rate(name: str, *matchers: str, fn: str = "rate") -> str:
    """A rate per exporting target; callers take `max by (cluster, <own labels>)` over producers."""
    return f"{fn}({raw(name, *matchers)}[$__rate_interval])"


def top(k: int, name: str, by: str = "ceph_daemon", fn: str = "topk") -> str:
    """The k largest (or smallest) of a per-daemon family, one series per cluster and daemon."""
    return f"{fn}({k}, max by (cluster, {by}) ({m(name)}))"


def config(option: str, op: str = "=") -> str:
    """The value of a threshold or baseline in force (ceph_scale_config), one series per cluster
    and option whichever producers export it, for reference lines that move with the setting."""
    selector = m("ceph_scale_config", f'option{op}"{option}"')
    return f"max by (cluster, option) ({selector})"


# Sums first take the max over producers of one series (the sidecar and the mgr module, or two
# scrape jobs, may both export a cluster), as rules/recording.yml does, so nothing counts twice.
S3_OPS = f"sum by (cluster, op) (max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_ops_total')}))"
S3_BYTES = f"sum by (cluster, op) (max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_bytes_total')}))"
PER_HDD = f" / on (cluster) group_left () max by (cluster) ({m('ceph_scale_hdd_osds')})"
# The OSDs picked in a board's osd variable (dashboards/board_frame.py osd_variable).
OSD = 'ceph_daemon=~"$osd"'
# The picks of the boards' other variables (dashboards/board_frame.py): a pool by name, an RGW by
# its instance id, a bucket owner by tenant and user. Only the panels whose series carry the label
# take them; a sum over every pool or RGW stays a sum over all.
PICKED_POOLS = 'name=~"$pool"'
PICKED_RGWS = 'instance_id=~"$rgw"'
PICKED_OWNER = ('tenant=~"$tenant"', 'user=~"$user"')
