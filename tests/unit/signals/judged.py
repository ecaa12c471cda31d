"""Judging hand-made results (each under its signal's name, for the reader): the check options and
thresholds a test states, the rest default."""

from __future__ import annotations

from typing import Any

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.judging import Judged
from ceph_scale.core.signals.results import SignalResults


def judged(th: dict[str, Any] | None = None, opts: dict[str, Any] | None = None, **results: Any) -> Judged:
    return Judged(SignalResults(*results.values()), Thresholds.from_mapping(th or {}), CheckOptions(**(opts or {})))
