"""The ceph-mgr module `scale` in bench/soak.py's flapping cluster: set up as an operator does,
then the active manager's open files, threads and RSS sampled from /proc, and whether the
module's /metrics answered while the monitor was down and after it came back.

The figures are the whole ceph-mgr process's: the manager itself (its stock modules, its
monitor and OSD sessions) with the module inside it; there is no separate process to measure.
"""

from __future__ import annotations

import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from bench.process_figures import proc_figures
from cluster.commands import documented_command

NAME = "module (ceph-mgr with scale)"
GUIDE = "docs/mgr-module.md"


def module_dir() -> dict[str, str]:
    """TestCluster's extra_mgr_modules: the checkout's module, installed with its install.sh."""
    from cluster.releases import REPO

    return {"scale": str(REPO / "mgr_module" / "scale")}


def metrics_answer(port: int) -> bool:
    """The module's /metrics answered 200 with its exposition."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            return r.status == 200 and b"ceph_scale_build_info" in r.read()
    except OSError:
        return False


@dataclass
class ModuleInManager:
    """The active manager of the cluster, with `scale` enabled and serving on `port`."""

    cluster: Any
    port: int = 0
    pid: int = 0
    name: str = NAME
    samples: list[tuple[float, int, int, float]] = field(default_factory=list)  # t, fds, threads, MB
    answered: dict[str, list[int]] = field(default_factory=dict)  # "down" / "back" -> [answered, scrapes]
    died: str = ""

    def enable(self, port: int, timeout: float = 180) -> None:
        """The documented commands: the options, then `ceph mgr module enable scale` (which
        respawns the active manager in place, same PID); waits for its /metrics."""
        c = self.cluster
        self.port = port
        # Without --force, as documented: the monitor accepts only options a manager reported.
        c.ceph("config", "set", "mgr", "mgr/scale/server_addr", "127.0.0.1", fmt_json=False)
        c.ceph("config", "set", "mgr", "mgr/scale/server_port", str(port), fmt_json=False)
        c.ceph(*documented_command(GUIDE, "ceph mgr module enable scale")[1:], fmt_json=False)
        deadline = time.monotonic() + timeout
        while not metrics_answer(port):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the module's /metrics on 127.0.0.1:{port} did not answer in {timeout:.0f} s")
            time.sleep(2)
        active = c.ceph("mgr", "stat", timeout=10)["active_name"]
        self.pid = c.pids[f"mgr.{active}"]

    def sample(self, t: float, mon_down_for: float | None, mon_back: bool) -> None:
        """mon_down_for: how long the monitor has been down (None: it is up); mon_back: it is up
        again after at least one down phase."""
        if self.died:
            return
        try:
            self.samples.append((t, *proc_figures(self.pid)))
        except (OSError, KeyError, ValueError):
            self.died = f"ceph-mgr pid {self.pid} gone at {t:.0f} s"
            return
        phase = "down" if mon_down_for is not None else "back" if mon_back else ""
        if phase:
            counts = self.answered.setdefault(phase, [0, 0])
            counts[0] += metrics_answer(self.port)
            counts[1] += 1

    def report(self) -> str:
        if not self.answered:
            return f"{self.name}: /metrics not scraped (no down phase reached)"
        rows = [f"{self.name}: its /metrics on 127.0.0.1:{self.port} answered (scrapes answered / taken):"]
        for phase, title in (("down", "while the monitor was down"), ("back", "after the monitor came back")):
            ok, n = self.answered.get(phase, [0, 0])
            rows.append(f"  {title:<28} {ok} / {n}")
        return "\n".join(rows)
