"""`ceph scale status`: each signal's section for a human (or as JSON), worst offenders first.

Assembled from the signals' sections (each signal's `status.py`, as the registry lists them),
the sources' errors and the module's health checks, then rendered as text or JSON. A pure
function over the signals' judgements of a derivation, so it is unit-tested on derivations of
fixtures.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from ceph_scale.core import registry
from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.judging import Judged, StatusSection
from ceph_scale.core.signals.results import SignalResults

from .checks import health_checks

# The study signals' sections, in the registry's order; the parts of their own (the degraded
# state) come after them, and Ceph's own health checks have a part of the report of their own.
SECTIONS: dict[str, StatusSection] = {s.name: s.status for s in registry.SIGNALS if s.status is not None}
SIGNALS = tuple(name for name, section in SECTIONS.items() if not section.own_part)
OWN_PARTS = tuple(name for name, section in SECTIONS.items() if section.own_part)
TITLES = {name: section.title for name, section in SECTIONS.items()}


def build_report(
    families: Iterable[Any],
    results: SignalResults,
    th: Thresholds,
    *,
    checks: dict[str, dict] | None = None,
    sources: Iterable[Any] = (),
    producer: str = "mgr",
    top: int = 5,
    opts: CheckOptions | None = None,
) -> dict:
    """The report on the signals' judgements of the last derivation (results), with the thresholds
    it ran with (th) and the check options in force (opts, the defaults if None); checks: the
    module's health checks, judged with those options if None."""
    families = list(families)
    opts = opts or CheckOptions()
    judged = Judged(results, th, opts)
    checks = health_checks(results, th, opts) if checks is None else checks
    report: dict[str, Any] = {"producer": producer, "signals": {}}
    for name in SIGNALS:
        report["signals"][name] = SECTIONS[name].build(judged, checks, top)
    for name in OWN_PARTS:
        report[name] = SECTIONS[name].build(judged, checks, top)
    # Every registered source, in the registry's order; one the producer never ran is failing.
    by_name = {s.name: s for s in sources}
    report["sources"] = {}
    if by_name:
        for name in registry.SOURCE_NAMES:
            s = by_name.get(name)
            report["sources"][name] = {
                "success": bool(s and s.success),
                "error": s.error if s is not None else "not collected yet",
                "failures": s.failures if s is not None else 0,
                "last_success_at": s.last_success_at if s is not None else None,
            }
    report["health_checks"] = checks
    cluster = ""
    for fam in families:
        if fam.label_names[:1] == ("cluster",) and fam.samples:
            cluster = fam.samples[0][1][0]
            break
    report["cluster"] = cluster
    return report


def render_text(report: dict) -> str:
    out = [f"ceph-scale-signals ({report['producer']}), cluster {report.get('cluster') or '?'}", ""]
    for name in SIGNALS:
        section = report["signals"][name]
        out.append(f"{TITLES[name]}: {section['status']}")
        out.extend("   " + line for line in section["lines"])
        out.append("")
    for name in OWN_PARTS:
        section = report[name]
        out.append(f"{TITLES[name]}: {section['status']}")
        out.extend("   " + line for line in section["lines"])
        out.append("")
    failed = {n: s for n, s in report["sources"].items() if not s["success"]}
    if report["sources"]:
        if failed:
            out.append(f"Sources: {len(failed)} of {len(report['sources'])} failing")
            for n, s in failed.items():
                out.append(f"   {n}: {s['error'] or 'not collected yet'} ({s['failures']} failures)")
        else:
            out.append(f"Sources: all {len(report['sources'])} ok")
        out.append("")
    if report["health_checks"]:
        out.append("Health checks raised by this module:")
        for code, c in sorted(report["health_checks"].items()):
            out.append(f"   {code} ({c['severity']}): {c['summary']}")
            out.extend(f"      {d}" for d in c["detail"])
    else:
        out.append("Health checks raised by this module: none")
    return "\n".join(out) + "\n"


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return "+Inf" if obj > 0 else ("-Inf" if obj < 0 else "NaN")
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    return obj


def render_json(report: dict, pretty: bool = False) -> str:
    return json.dumps(_json_safe(report), indent=2 if pretty else None, sort_keys=True)
