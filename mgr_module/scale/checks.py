"""The module's own health checks: study conditions Ceph itself does not flag.

Each signal's checks are in its folder (`ceph_scale/core/signals/<name>/check.py`), pure
functions of its typed result, the thresholds in force (the same the derivation used, so a
changed threshold moves the checks exactly as it moves the metrics and the alert rules) and
the check options (core/signals/check_options.py); the registry lists them, and this runs them.
Each check lists its offenders worst first, one detail line each, capped at `health_detail_max`
with a closing "... and N more".
"""

from __future__ import annotations

from ceph_scale.core import registry
from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.results import SignalResults

__all__ = ["CheckOptions", "bad_config_check", "health_checks", "signal_failed_check"]


def health_checks(results: SignalResults, th: Thresholds, opts: CheckOptions | None = None) -> dict[str, dict]:
    """code -> {severity, summary, count, detail} for set_health_checks, from the signals'
    judgements of the last derivation and the thresholds it ran with."""
    opts = opts or CheckOptions()
    out = {}
    for signal in registry.SIGNALS:
        for check in signal.checks:
            judged = check.judge(results.get(signal.result) if signal.result else None, th, opts)
            if judged is not None:
                out[check.code] = judged
    return out


def signal_failed_check(errors: dict[str, str]) -> dict:
    """The signals whose derivation raises: the others are served (core/derive.py)."""
    return {
        "severity": "warning",
        "summary": f"mgr/scale: {len(errors)} signal(s) cannot be derived; the others are served",
        "count": len(errors),
        "detail": [f"{name}: {error}" for name, error in sorted(errors.items())],
    }


def bad_config_check(errors: list[str]) -> dict:
    return {
        "severity": "warning",
        "summary": "mgr/scale: configuration rejected; the previous values stay in force",
        "count": len(errors),
        "detail": list(errors),
    }
