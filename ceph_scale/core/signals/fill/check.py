"""SCALE_FILL_HEADROOM: the cluster, a pool or an OSD near or past the fill target, or a pool
predicted to reach it soon; worst (least headroom) first."""

from __future__ import annotations

import math

from ...config import Thresholds
from ..check_options import CheckOptions
from ..judging import DAY, HealthCheck, JsonObject, health_check
from ..wording import duration, pct
from .result import FillResult


def fill_offenders(
    fill: FillResult | None, th: Thresholds, opts: CheckOptions
) -> list[tuple[tuple[float, float], str, float]]:
    """(sort key, line, used ratio) for the cluster, each pool and each OSD near or past the target."""
    target = th.fill_target_ratio
    margin = opts.fill_headroom_warn_margin
    horizon = opts.fill_forecast_warn_days * DAY
    forecasts = opts.forecasts(th)
    out: list[tuple[tuple[float, float], str, float]] = []

    def judge(what: str, used: float, eta: float | None) -> None:
        headroom = target - used
        soon = forecasts and eta is not None and 0 < eta <= horizon
        if headroom > margin and not soon:
            return
        if headroom <= 0:
            text = f"{what} is {pct(used)} full: {pct(-headroom)} past the {pct(target)} target"
        else:
            text = f"{what} is {pct(used)} full: {pct(headroom)} below the {pct(target)} target"
        if soon and eta is not None:
            text += f", reaching it in {duration(eta)} at the current fill rate"
        out.append(((headroom, eta if eta is not None else math.inf), text, used))

    if fill is None:
        return out
    if fill.cluster is not None:
        judge("the cluster", fill.cluster.used_ratio, fill.cluster.seconds_to_target)
    for pool in fill.pools:
        judge(f"pool {pool.name}", pool.used_ratio, pool.seconds_to_target)
    for osd in fill.osds:
        judge(osd.ceph_daemon, osd.used_ratio, None)
    out.sort(key=lambda o: o[0])
    return out


def check_fill(fill: FillResult | None, th: Thresholds, opts: CheckOptions) -> JsonObject | None:
    offenders = fill_offenders(fill, th, opts)
    if not offenders:
        return None
    severity = "error" if any(used >= th.fill_critical_ratio for _, _, used in offenders) else "warning"
    summary = (
        f"{len(offenders)} of cluster/pools/OSDs within {opts.fill_headroom_warn_margin * 100:g} points of the "
        f"{pct(th.fill_target_ratio)} fill target or reaching it within {opts.fill_forecast_warn_days:g} days"
    )
    return health_check(severity, summary, len(offenders), [line for _, line, _ in offenders], opts.health_detail_max)


CHECKS = (HealthCheck("SCALE_FILL_HEADROOM", check_fill),)
