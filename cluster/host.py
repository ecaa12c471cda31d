"""What TestCluster's mixins (cluster/commands.py, conditions.py, daemons.py, ...) read of the
cluster they are part of: the state TestCluster.__init__ sets and the methods of the others.

Declarations only, for the type checker: at run time the class is empty, so every mixin still
finds these on the TestCluster it is part of. A mixin that defines one of the methods overrides
its declaration here, and mypy checks that the two signatures agree.
"""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cluster.releases import Release


class ClusterHost:
    release: Release
    dir: Path
    conf_path: Path
    osds: int
    with_rgw: bool
    reshard_objs_per_shard: int
    reshard_interval: int
    extra_mgr_modules: dict[str, str]
    scrub_intervals: tuple[int, ...]
    procs: dict[str, subprocess.Popen[bytes]]
    pids: dict[str, int]
    frozen: set[str]
    daemon_lock: threading.RLock
    active_mgr: str
    rgw_port: int
    admin_keys: tuple[str, str]
    user_keys: tuple[str, str]
    _laggy_since: dict[str, float]
    _healed_at: dict[str, float]
    laggy_heals: list[dict[str, Any]]
    _watchdog_stop: threading.Event

    if TYPE_CHECKING:

        @property
        def mgr_ids(self) -> list[str]: ...

        @property
        def mgr_prometheus_url(self) -> str: ...

        @property
        def rgw_endpoint(self) -> str: ...

        def env(self) -> dict[str, str]: ...

        def _save_info(self) -> None: ...

        def rgw_answers(self) -> bool: ...

        # cluster/commands.py
        def ceph(
            self, *args: str, fmt_json: bool = True, timeout: float = 60, input_data: bytes | None = None
        ) -> Any: ...

        def radosgw_admin(self, *args: str, fmt_json: bool = True, timeout: float = 60) -> Any: ...

        def admin_socket(self, daemon: str, *args: str, timeout: float = 30) -> Any: ...

        def mgr_metrics(self, timeout: float = 30) -> str: ...

        # cluster/daemons.py
        def start_daemon(self, name: str) -> int: ...

        def stop_daemon(self, name: str, sig: int = ..., timeout: float = 30) -> bool: ...

        def restart_daemon(self, name: str, timeout: float = 30) -> int: ...

        def running(self) -> dict[str, bool]: ...

        def _owned(self, pid: int) -> bool: ...
