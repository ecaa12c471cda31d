"""The plunge signal's section of `ceph scale status`: whether S3 throughput plunges while the
clients' demand holds, its likely cause and the causes' scores, and the plunges counted."""

from __future__ import annotations

from ..judging import JsonObject, Judged, Raised, StatusSection, count, section, status_word
from ..wording import number, pct
from .result import PlungeResult


def plunge(r: Judged, checks: Raised, top: int) -> JsonObject:
    judged = r.results.get(PlungeResult)
    if judged is None:
        return section("NO DATA", ["no S3 op counters yet (source perf)"], {}, [])
    active, drop, demand = judged.active, judged.drop_ratio, judged.demand_ratio
    scores = sorted(judged.cause_scores, key=lambda kv: (-kv[1], kv[0]))
    likely = judged.likely_cause
    counts = {c: float(n) for c, n in judged.plunges.items() if n}
    ops = ", ".join(f"{op.upper()} {pct(d)}" for op, d in sorted(drop.items(), reverse=True))
    lines = []
    if not drop:
        lines.append("no baseline yet (it takes three windows of plunge_window_seconds)")
    elif active and likely is not None and likely.cause == "rgw":
        lines.append(f"PLUNGE of some RGWs, each against its own baseline; the cluster's S3 ops: {ops} below")
    elif active:
        held = ", ".join(f"{op.upper()} {pct(d)}" for op, d in sorted(demand.items(), reverse=True))
        lines.append(f"PLUNGE: S3 ops below their recent baseline by {ops}; the clients' demand held ({held} of it)")
    elif judged.demand_drop:
        lines.append(f"S3 ops below their recent baseline by {ops}: the clients asked less, no cluster fault")
    else:
        lines.append(f"no plunge: S3 ops against their recent baseline: {ops} below")
    if likely is not None:
        when = "likely cause" if active else "the plunge just over: likely cause"
        named = "no known cause" if likely.cause == "none" else likely.cause
        lines.append(f"{when}: {named} ({likely.evidence})")
        for cause, score in scores[:top]:
            lines.append(f"  {cause}: score {score:.2f}")
    told = ", ".join(f"{c} {number(n)}" for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    demand_drops = count(judged.demand_drops)
    lines.append(f"plunges counted: {told or 'none'}; drops the clients made: {number(demand_drops)}")
    if judged.own_ops:
        lines.append(judged.own_ops)
    data = {
        "active": active,
        "drop_ratio": drop,
        "demand_ratio": demand,
        "likely_cause": {"cause": likely.cause, "evidence": likely.evidence} if likely is not None else None,
        "cause_scores": dict(scores),
        "plunges": counts,
        "demand_drops": demand_drops,
        "reshard_own_ops": judged.own_ops,
        "reshard_bucket_ops": judged.bucket_ops,
    }
    offenders = [{"cause": c, "score": sc} for c, sc in scores]
    return section(status_word(True, active), lines, data, offenders)


SECTION = StatusSection("S3 throughput plunges, with their likely cause", plunge)
