"""What a live process holds, from /proc: the soak's figures (bench/soak.py, bench/soak_module.py)."""

from __future__ import annotations

import os


def proc_figures(pid: int) -> tuple[int, int, float]:
    """(open descriptors, threads, RSS in MB) of a live process."""
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        status = dict(line.split(":", 1) for line in f if ":" in line)
    return fds, int(status["Threads"]), int(status["VmRSS"].split()[0]) / 1024
