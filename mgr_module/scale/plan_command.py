"""`ceph scale plan`'s replies: the live advice, or with `--size-for` the sizing of a cluster not
yet built (the sidecar's `--size-for`, the same parser and document: docs/sizing.md)."""

import errno
from typing import Any, Optional

from ceph_scale.core.advisor import render, whatif_render
from ceph_scale.core.config import ConfigError, Thresholds


def plan_reply(latest: Any, cluster: str, format: Optional[str]) -> tuple[int, str, str]:
    """The live advice as text, or JSON for --format json / json-pretty."""
    if format in ("json", "json-pretty"):
        return 0, render.as_json(latest, cluster, pretty=format == "json-pretty"), ""
    return 0, render.as_text(latest, cluster), ""


def size_reply(spec: str, thresholds: Thresholds, format: Optional[str]) -> tuple[int, str, str]:
    """The sizing for `spec` with the module's thresholds; a bad input is one line and EINVAL."""
    try:
        text = whatif_render.report(spec, thresholds, format if format in ("json", "json-pretty") else "text")
    except ConfigError as e:
        return -errno.EINVAL, "", str(e)
    return 0, text, ""
