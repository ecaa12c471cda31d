"""Each bucket owner's user quota, read by the bucket poll at most once per
`rgw_bucket_stats_max_age_seconds`, out of the poll's own budget of RADOS reads.

No read the poll makes for the buckets carries a user quota on any release (catalog.md of the
tenants signal); it is one read per owner (`GET /admin/user?quota&uid=U&quota-type=user`, or
`radosgw-admin user info --uid U`). The owners never read go first, then the longest read; a
read the budget refuses is left for the next poll. They take at most QUOTA_SHARE of what the
budget leaves after the reads that must be made: the sweep of the buckets keeps the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from .saved_rows import Dropped, as_count, as_time, read_rows
from .snapshot import UserQuota

QUOTA_SHARE = 0.25
TIME_RESERVE = 1.0  # as the bucket poll's: stop with this much of the source's timeout left


class UserQuotaReader(Protocol):
    user_quota_reads: int  # RADOS reads of one owner's user quota

    def user_quota(self, owner: str, time_left: Callable[[], float]) -> UserQuota | None:
        """The owner's user quota; None if the user is gone."""
        ...


class MaxAge(Protocol):
    @property
    def max_age(self) -> float:  # the poll's PollLimits: rgw_bucket_stats_max_age_seconds
        ...


class UserQuotaReads:
    def __init__(self) -> None:
        self.read_at: dict[str, float] = {}  # owner -> its last read (one float per owner)
        self.quotas: dict[str, UserQuota] = {}  # the owners with a quota of either kind

    def read(
        self,
        now: float,
        owners: Iterable[str],
        reader: UserQuotaReader,
        left: float,
        time_left: Callable[[], float],
        lim: MaxAge,
    ) -> int:
        """Read the quotas due within QUOTA_SHARE of `left` RADOS reads; the reads spent."""
        known = set(owners)
        for gone in [o for o in self.read_at if o not in known]:
            del self.read_at[gone]
            self.quotas.pop(gone, None)
        due = sorted((self.read_at.get(o, 0.0), o) for o in known if self.read_at.get(o, 0.0) + lim.max_age <= now)
        allowance, spent = max(0.0, left) * QUOTA_SHARE, 0
        for _, owner in due:
            if spent + reader.user_quota_reads > allowance or time_left() < TIME_RESERVE:
                break
            quota = reader.user_quota(owner, time_left)
            spent += reader.user_quota_reads
            self.read_at[owner] = now
            if quota is not None and (quota.max_bytes >= 0 or quota.max_objects >= 0):
                self.quotas[owner] = quota
            else:
                self.quotas.pop(owner, None)
        return spent

    def part(self) -> tuple[UserQuota, ...]:
        return tuple(self.quotas.values())

    def to_dict(self) -> dict[str, Any]:
        quotas = {o: [q.max_bytes, q.max_objects, q.read_at] for o, q in self.quotas.items()}
        return {"read_at": dict(self.read_at), "quotas": quotas}

    @classmethod
    def from_dict(cls, data: Any, problems: list[str] | None = None) -> UserQuotaReads:
        """A saved read or quota that does not read is dropped alone, and its owner read again
        as one never read: a quota is never taken for none."""
        out = cls()
        if not isinstance(data, dict):
            return out
        dropped = Dropped("user quotas")
        read_at = read_rows(data.get("read_at", {}), lambda _, t: as_time(t), dropped)
        out.quotas = read_rows(data.get("quotas", {}), _quota, dropped)
        saved = data.get("quotas")  # absent or not a table: every owner is read again
        unread = {str(o) for o in saved if str(o) not in out.quotas} if isinstance(saved, dict) else set(read_at)
        out.read_at = {o: t for o, t in read_at.items() if o not in unread}
        dropped.report(problems)
        return out


def _quota(owner: str, v: Any) -> UserQuota:
    size, objects, at = v
    return UserQuota(owner, as_count(size, -1), as_count(objects, -1), as_time(at))
