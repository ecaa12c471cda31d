"""S3 latency, the study's symptom: 510 ms per PUT (27 ms per GET) at 17,800 PUT/s [004].

From each RGW's averaged op-latency counters (`rgw.put_initial_lat` / `rgw.get_initial_lat`,
Tentacle's `rgw_op.put_obj_lat` / `rgw_op.get_obj_lat`): seconds summed and ops counted,
exported as counters Prometheus can rate per RGW, and the cluster's mean over
`rate_window_seconds`. Latency rising while ops fall tells "the cluster is slower" from
"clients asked less"; the plunge, storm, spillover and reshard alerts lean on it.
"""

from __future__ import annotations

from ...config import Thresholds
from ...families import Family, counter, gauge
from ...history import KeyedRates
from ..signal_input import SignalInput

OPS = ("put", "get")


class LatencyState:
    def __init__(self, th: Thresholds) -> None:
        self.rates = KeyedRates(th.rate_window_seconds)


def derive(given: SignalInput, state: LatencyState) -> list[Family]:
    perf = given.snap.perf
    if perf is None:
        return []
    measured = [r for r in perf.rgw_ops if r.put_latency_count is not None and r.get_latency_count is not None]
    if not measured:
        return []
    seconds = counter("rgw_s3_latency_seconds", "Seconds spent in S3 ops, summed, per RGW.", "instance_id", "op")
    ops = counter("rgw_s3_latency_ops", "S3 ops whose latency is summed, per RGW.", "instance_id", "op")
    raw: dict[object, float] = {}
    for r in sorted(measured, key=lambda r: r.instance_id):
        for op, total, count in (
            ("put", r.put_latency_sum, r.put_latency_count),
            ("get", r.get_latency_sum, r.get_latency_count),
        ):
            seconds.add(total or 0.0, r.instance_id, op)
            ops.add(count or 0, r.instance_id, op)
            raw[(r.instance_id, op, "seconds")] = total or 0.0
            raw[(r.instance_id, op, "ops")] = count or 0
    state.rates.update(perf.collected_at, raw)
    mean = gauge("s3_latency_seconds", "Mean S3 op latency over the rate window, all RGWs [004: 510 ms PUT].", "op")
    for op in OPS:
        spent = [state.rates.rate((r.instance_id, op, "seconds")) for r in measured]
        done = [state.rates.rate((r.instance_id, op, "ops")) for r in measured]
        if any(v is None for v in spent + done):
            continue
        total_ops = sum(v for v in done if v is not None)
        if total_ops > 0:
            mean.add(sum(v for v in spent if v is not None) / total_ops, op)
    return [seconds, ops, mean]
