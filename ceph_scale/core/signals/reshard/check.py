"""SCALE_RESHARD_SOON: buckets near the per-shard object limit, and buckets predicted to reach
it within the horizon.

Both kinds reshard soon; the prediction (from each bucket's own object growth) also finds a
fast-filling bucket while it is still far from the limit."""

from __future__ import annotations

import math
from bisect import bisect_right

from ...config import Thresholds
from ..check_options import CheckOptions
from ..judging import DAY, HealthCheck, JsonObject, health_check
from ..wording import duration, number, pct
from .result import ReshardResult


def check_reshard(reshard: ReshardResult | None, th: Thresholds, opts: CheckOptions) -> JsonObject | None:
    buckets = reshard.buckets if reshard is not None else None
    if reshard is None or buckets is None:
        return None
    near = buckets.near
    horizon = opts.reshard_forecast_warn_days * DAY
    forecasts = opts.forecasts(th)
    soon = [b for b in buckets.next_reshards if forecasts and b.seconds <= horizon]
    eta = {(b.tenant, b.bucket): b.seconds for b in soon}
    # Every bucket below the warn ratio predicted within the horizon, named or not.
    ahead = bisect_right(buckets.ahead, horizon) if forecasts else 0
    if not near and not ahead and not eta:
        return None
    warn = th.rgw_shard_warn_ratio
    top = {(b.tenant, b.bucket): b for b in buckets.top}
    fills = {key: b.shard_fill_ratio for key, b in top.items()}
    rows = []
    for key in set(eta) | {k for k, fill in fills.items() if fill >= warn}:
        name = f"{key[0]}/{key[1]}" if key[0] else key[1]
        parts = []
        bucket = top.get(key)
        if bucket is not None:
            parts.append(
                f"{number(bucket.objects)} objects in {number(bucket.shards)} shard(s), "
                f"{pct(bucket.shard_fill_ratio)} of rgw_max_objs_per_shard ({number(reshard.shard_limit)})"
            )
        at_limit = fills.get(key, 0.0) >= 1.0
        if at_limit:
            parts.append("at the limit now")
        elif key in eta:
            parts.append(f"reaches the limit in {duration(eta[key])}")
        line = f"bucket {name}: " + "; ".join(parts)
        if bucket is not None and bucket.recommended_shards > bucket.shards:
            line += f"; pre-shard to {number(bucket.recommended_shards)} shards"
        # At the limit first (the exporter predicts only the buckets below it), then soonest;
        # without a prediction, fullest first.
        rows.append((0.0 if at_limit else eta.get(key, math.inf), -fills.get(key, 0.0), name, line))
    rows.sort()
    # The buckets no line names come first, where the detail's cap cannot cut them off.
    lines = []
    listed_near = sum(1 for k, fill in fills.items() if fill >= warn)
    if near > listed_near:  # buckets past the top-K list
        lines.append(f"{number(near - listed_near)} more bucket(s) near the limit outside the top {len(fills)} exposed")
    listed_ahead = sum(1 for b in soon if not b.near and fills.get((b.tenant, b.bucket), 0.0) < warn)
    if ahead > listed_ahead:
        lines.append(
            f"{number(ahead - listed_ahead)} more bucket(s) predicted to reach the limit within "
            f"{opts.reshard_forecast_warn_days:g} days outside the {len(buckets.next_reshards)} soonest exposed"
        )
    lines += [row[3] for row in rows]
    count = max(near, 0) + max(ahead, listed_ahead)
    summary = (
        f"{number(count)} bucket(s) at or above {pct(warn)} of the per-shard object limit or predicted to reach it "
        f"within {opts.reshard_forecast_warn_days:g} days"
    )
    if buckets.over:
        summary += f" ({number(buckets.over)} at the limit: dynamic resharding will stall writes to them)"
    return health_check("warning", summary, count, lines, opts.health_detail_max)


CHECKS = (HealthCheck("SCALE_RESHARD_SOON", check_reshard),)
