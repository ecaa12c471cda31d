"""Our overdue counts against Ceph's own PG_NOT_(DEEP_)SCRUBBED, for either producer."""

from __future__ import annotations

from typing import Callable

KINDS = (("scrub", "PG_NOT_SCRUBBED"), ("deep_scrub", "PG_NOT_DEEP_SCRUBBED"))


def agree_without_pool(checks: dict, pool_id: int, overdue: Callable[[str], float | None]) -> bool:
    """Ceph lists none of the pool's PGs any more, and overdue(kind) equals each check's count."""
    listed = [d["message"] for _, code in KINDS for d in checks.get(code, {}).get("detail", [])]
    if any(m.startswith(f"pg {pool_id}.") for m in listed):
        return False
    return all(overdue(kind) == checks[code]["summary"]["count"] for kind, code in KINDS if code in checks)
