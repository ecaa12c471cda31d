from __future__ import annotations

import json
import logging
import os
import threading
import time

from ceph_scale.core.bucket_poll import SAVE_EVERY, BucketPoll
from ceph_scale.core.bucket_poll_limits import poll_inputs
from ceph_scale.core.registry import SOURCE_BY_NAME
from ceph_scale.core.saved_rows import UNREADABLE, as_fsid, read_value
from ceph_scale.io.admin_ops import AdminOpsBuckets

from .base import Deadline, Source

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 2.0  # a stat answers in milliseconds; no answer means no cap, or PGs down
# At a stop, how long to wait for a poll under way before leaving its state as last saved: the
# process has a few seconds in all (main.STOP_GRACE_SECONDS).
CLOSE_WAIT = 1.0
# How long a poll whose restored state names a cluster waits for the OSD map to name this one:
# past the osd_map source's own default timeout, as its runner waits for it (a second more).
FSID_WAIT = SOURCE_BY_NAME["osd_map"].timeout + 2.0


class BucketsSource(Source):
    """The bucket poll (core/bucket_poll.py) over the Admin Ops API: the bucket listings each
    poll, a bucket's stats when it is due, within a budget of RADOS reads; index generations
    (reshards, Reef+) from the index pool. Its state is kept in `<state_file>.buckets`."""

    name = field = "buckets"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.path = f"{ctx.state_file}.buckets" if ctx.state_file else None
        self.owner = ""  # the fsid of the cluster the poll's state was read from, once known
        self.poll = self._load()
        self.saved_at = time.time()
        self._polling = threading.Lock()  # the poll's state is saved between polls, never during one

    def collect(self, deadline: Deadline):
        if self.ctx.rgw is None:
            raise RuntimeError("no RGW admin endpoint configured (--rgw-endpoint and credentials)")
        t = time.time()
        limits, queued = poll_inputs(self.ctx.thresholds, self.ctx.latest("settings"), self.ctx.latest("reshard"))

        def time_left() -> float:
            return max(0.0, deadline.end - time.monotonic())

        def exists(oid: str) -> bool:
            # Bounded per read, and together by half of what the source has left.
            deadline.waiting_on = f"stat of {self.ctx.rgw_index_pool}/{oid}"
            return self.ctx.ceph.object_exists(self.ctx.rgw_index_pool, oid, min(PROBE_TIMEOUT, time_left() / 2))

        with self._polling:
            self._own(self._cluster_fsid(deadline))
            part = self.poll.poll(t, AdminOpsBuckets(self.ctx.rgw), limits, queued, time_left, exists)
            deadline.waiting_on = ""
            if t - self.saved_at >= SAVE_EVERY:
                self._save()
                self.saved_at = t
        return part

    def _cluster_fsid(self, deadline: Deadline) -> str | None:
        """This cluster's fsid. While it is unknown and the restored poll names a cluster, it is
        waited for a moment: the osd_map source that reads it starts beside this one (at every
        start, and in a --once run), at most FSID_WAIT and half of what this source has left."""
        fsid = self.ctx.fsid()
        end = time.monotonic() + min(FSID_WAIT, max(0.0, deadline.end - time.monotonic()) / 2)
        while fsid == "" and self.owner and time.monotonic() < end:
            time.sleep(0.2)
            fsid = self.ctx.fsid()
        return fsid

    def _own(self, fsid: str | None) -> None:
        """Another cluster's buckets are not this one's (a state file shared or copied, as
        DerivationState.own says for the rest of the state): its usage would be served for
        buckets of the same name until each is read again, and its quotas for a day. A restored
        poll that names a cluster is not served before this cluster's fsid is known."""
        if fsid is None:  # never known here (the start warned): nothing to check it against
            return
        if not fsid:
            if self.owner:
                raise RuntimeError(
                    f"the saved bucket poll state names cluster {self.owner}: waiting for this cluster's fsid "
                    "(the osd_map source) before serving it"
                )
            return
        if self.owner and fsid != self.owner:
            log.warning(
                "the bucket poll state %s is cluster %s's, not this cluster's (%s): dropped: every bucket read again",
                self.path,
                self.owner,
                fsid,
            )
            self.poll = BucketPoll()
        self.owner = fsid

    def close(self) -> None:
        """What the polls since the last save read (up to SAVE_EVERY of them) survives a stop."""
        if not self._polling.acquire(timeout=CLOSE_WAIT):
            log.warning("bucket poll state not saved at stop: a poll was still running; %s is as last saved", self.path)
            return
        try:
            self._save()
        finally:
            self._polling.release()

    def _load(self) -> BucketPoll:
        if not self.path or not os.path.exists(self.path):
            return BucketPoll()
        try:
            problems: list[str] = []
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
            poll = BucketPoll.from_dict(data, problems)
            # Saved before the state named its cluster: kept, as the derivation's state is.
            self.owner = read_value(data, "fsid", as_fsid, "", problems)
            for p in problems:
                log.warning("bucket poll state %s: %s", self.path, p)
            log.info("restored the bucket poll's state of %d bucket(s) from %s", len(poll.entries), self.path)
            return poll
        except (OSError, *UNREADABLE) as e:
            # Without it every bucket is read again, at the budget's pace: slower, never wrong.
            log.error("ignoring unreadable bucket poll state %s: %s: %s", self.path, type(e).__name__, e)
            return BucketPoll()

    def _save(self) -> None:
        if not self.path or not self.ctx.save_state:
            return
        tmp = f"{self.path}.tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                named = {"fsid": self.owner} if self.owner else {}
                json.dump({**self.poll.to_dict(), **named}, f, separators=(",", ":"))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError as e:
            log.error("cannot write the bucket poll's state %s: %s", self.path, e)
