"""A state file belongs to one exporter and to one cluster.

Two exporters given one `--state-file` (a configuration copied for a second cluster on the same
host, a cron `--once --plan` pointed at the running exporter's file) would replace each other's
file at every derivation; the second is refused at its start, as Prometheus refuses a second
server on one data directory. The bucket poll's `<state_file>.buckets` names its cluster, as the
state file does: another cluster's buckets are dropped at the first poll that knows the fsid.
"""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from ceph_scale.core.bucket_poll import BucketPoll
from cluster.helpers import free_port
from exporter.sidecar.sources import SourceContext
from exporter.sidecar.sources.buckets import BucketsSource
from tests.unit.test_saved_state_rows import study_poll
from tests.unit.test_settings_startup import FSID, REPO, ceph_conf, one_line, run_once

OTHER = "99999999-8888-7777-6666-555555555555"


@contextlib.contextmanager
def exporter_on(directory: Path, state: Path) -> Iterator[tuple[int, int]]:
    """The real exporter serving with `state` as its state file, its only monitor port 9 on
    loopback (nothing answers): its web port and pid, the process stopped at the end."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "exporter", f"--web.listen-address=127.0.0.1:{port}",
         f"--ceph-conf={ceph_conf(directory)}", f"--state-file={state}"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        serving(port)
        yield port, proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def serving(port: int) -> None:
    started = time.monotonic()
    while time.monotonic() - started < 30:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/healthy", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the first exporter never served")


def test_a_second_exporter_on_the_same_state_file_is_refused_and_the_first_keeps_it(tmp_path):
    state = tmp_path / "state.json"
    first_dir = tmp_path / "first"
    first_dir.mkdir()
    with exporter_on(first_dir, state) as (_, pid):
        result = run_once(tmp_path, f"--state-file={state}")
        line = one_line(result)
        assert result.returncode == 2, result.stderr
        assert "--state-file" in line and "in use by another exporter" in line and f"(pid {pid})" in line, line
        # Refused before it wrote anything: the first exporter's file is as the first left it.
        assert (tmp_path / "state.json.lock").read_text().strip() == str(pid)
    # The first stopped (its lock went with it): the same command now runs.
    again = run_once(tmp_path, f"--state-file={state}")
    assert again.returncode == 0, again.stderr
    assert json.loads(state.read_text())["fsid"]


def test_an_exporter_on_its_own_state_file_beside_another_runs(tmp_path):
    first_dir = tmp_path / "first"
    first_dir.mkdir()
    with exporter_on(first_dir, tmp_path / "a.json"):
        result = run_once(tmp_path, f"--state-file={tmp_path / 'b.json'}")
        assert result.returncode == 0 and result.stderr == "", result.stderr


def source_with(tmp_path: Path, fsid: list[str]) -> BucketsSource:
    ctx = SourceContext(ceph=None, state_file=str(tmp_path / "state.json"))  # type: ignore[arg-type]
    ctx.fsid = lambda: fsid[0]
    return BucketsSource(ctx)


def saved_study_poll(tmp_path: Path, fsid: str) -> int:
    """The study's 100,000-bucket poll state saved as `fsid`'s; its bucket count."""
    data = {**study_poll(), "fsid": fsid}
    (tmp_path / "state.json.buckets").write_text(json.dumps(data))
    return len(data["buckets"])


def test_another_clusters_bucket_poll_is_dropped_at_the_first_poll_that_knows_the_fsid(tmp_path, caplog):
    buckets = saved_study_poll(tmp_path, OTHER)
    fsid = [""]
    source = source_with(tmp_path, fsid)
    assert len(source.poll.entries) == buckets == 100_000
    source._own(fsid[0])  # fsid not known yet: nothing to compare with
    assert len(source.poll.entries) == buckets
    fsid[0] = FSID.upper()  # as a ceph.conf may write it
    with caplog.at_level(logging.WARNING):
        source._own(fsid[0])
    assert source.poll.entries == {} and isinstance(source.poll, BucketPoll)
    lines = [r.getMessage() for r in caplog.records if "not this cluster's" in r.getMessage()]
    assert len(lines) == 1 and OTHER in lines[0] and FSID in lines[0]
    source._save()
    assert json.loads((tmp_path / "state.json.buckets").read_text())["fsid"] == FSID


def test_its_own_and_an_unnamed_bucket_poll_are_kept(tmp_path):
    for saved in (FSID, ""):
        buckets = saved_study_poll(tmp_path, saved)
        source = source_with(tmp_path, [FSID])
        source._own(FSID)
        assert len(source.poll.entries) == buckets
        source._save()
        assert json.loads((tmp_path / "state.json.buckets").read_text())["fsid"] == FSID


def test_the_lock_file_names_the_process_that_holds_it(tmp_path):
    """Through a second interpreter, as two exporters are two processes."""
    state = tmp_path / "s.json"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(state)], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        ceph_conf(tmp_path)
        result = run_once(tmp_path, f"--state-file={state}")
        assert result.returncode == 2 and f"(pid {holder.pid})" in one_line(result), result.stderr
    finally:
        holder.communicate("", timeout=20)


HOLD = """
import sys
from exporter.sidecar import state_lock
state_lock.hold(sys.argv[1], "--state-file")
print("held", flush=True)
sys.stdin.read()
"""
