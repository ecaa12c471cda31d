"""The plunge signal's typed result: whether S3 throughput plunges while the clients' demand holds,
and its likely cause.

Its derivation fills it (derive.py); its health checks (check.py, where it has any) and its
section of `ceph scale status` (status.py) judge it again in words."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PlungeCause:
    cause: str
    evidence: str


@dataclass(frozen=True)
class PlungeResult:
    active: bool  # S3 ops down against their baseline while the clients' demand held
    demand_drop: bool  # S3 ops down because the clients asked less
    drop_ratio: dict[str, float]  # op -> below the baseline, as a share of it
    demand_ratio: dict[str, float]  # op -> the clients' demand now / in the baseline
    cause_scores: tuple[tuple[str, float], ...]  # of the current plunge, as ranked
    likely_cause: PlungeCause | None  # of the current (or just ended) plunge
    plunges: dict[str, int]  # cause -> plunges counted
    demand_drops: int
    own_ops: str = ""  # whether a reshard named as a cause is confirmed by its bucket's own ops
    bucket_ops: dict[str, dict[str, int]] = field(default_factory=dict)  # bucket -> {"put", "get"} counted
