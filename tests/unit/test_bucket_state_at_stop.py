"""The bucket poll's state at a stop: what the polls since the last periodic save read is kept,
so a restart does not read every bucket again at the budget's pace; a poll still running is
never saved half-done, and never holds the stop."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from ceph_scale.core.bucket_poll import BucketPoll
from exporter.sidecar.sources import BucketsSource, Deadline, SourceContext
from exporter.sidecar.sources.buckets import CLOSE_WAIT
from tests.bench.test_fast_paths import FixtureCeph, FixtureRgw

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "pacific"


def source(tmp_path: Path) -> BucketsSource:
    rgw = FixtureRgw((FIX / "admin_api_bucket_stats_resharded.json").read_bytes())
    return BucketsSource(SourceContext(ceph=FixtureCeph(b""), rgw=rgw, state_file=str(tmp_path / "state.json")))


def test_a_stop_saves_what_the_polls_read_since_the_last_save(tmp_path):
    src = source(tmp_path)
    src.collect(Deadline(10))  # the first poll: well within SAVE_EVERY, so nothing saved yet
    saved = tmp_path / "state.json.buckets"
    assert not saved.exists()
    src.close()
    restored = BucketPoll.from_dict(json.loads(saved.read_text()))
    assert restored.entries and restored.to_dict() == src.poll.to_dict()
    # A restarted sidecar goes on from it.
    assert source(tmp_path).poll.to_dict() == src.poll.to_dict()


def test_a_poll_still_running_at_the_stop_is_left_as_last_saved(tmp_path, caplog):
    src = source(tmp_path)
    src.collect(Deadline(10))
    running = threading.Event()
    release = threading.Event()
    original = src.poll.poll

    def slow_poll(*args, **kwargs):
        running.set()
        release.wait(30)
        return original(*args, **kwargs)

    src.poll.poll = slow_poll  # type: ignore[method-assign]
    worker = threading.Thread(target=src.collect, args=(Deadline(60),))
    worker.start()
    try:
        assert running.wait(10)
        started = time.monotonic()
        src.close()
        assert time.monotonic() - started < CLOSE_WAIT + 1
        assert not (tmp_path / "state.json.buckets").exists()
        assert "a poll was still running" in caplog.text
    finally:
        release.set()
        worker.join(30)
