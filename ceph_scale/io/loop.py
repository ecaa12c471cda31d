"""The scheduling both producers run: one thread per source on its own interval, and one
derivation thread that runs when sources finish (several finishing together cause one
derivation) and every few seconds anyway, so that ages and staleness stay current."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any, Callable

from .runner import Schedule, SourceRunner


class CollectionLoop:
    def __init__(
        self,
        runners: Mapping[str, SourceRunner],
        schedule: Callable[[str], Schedule],
        derive_now: Callable[[], Any],
        log: Any,
        enabled: Callable[[str], bool] = lambda name: True,
        thread_prefix: str = "",
        log_prefix: str = "",
    ) -> None:
        self.runners = runners
        self.schedule = schedule
        self.derive_now = derive_now
        self.log = log
        self.enabled = enabled
        self.thread_prefix = thread_prefix
        self.log_prefix = log_prefix
        self._changed = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for name in self.runners:
            self._spawn(self._source_loop, f"{self.thread_prefix}loop-{name}", name)
        self._spawn(self._derive_loop, f"{self.thread_prefix}derive")

    def _spawn(self, target: Callable[..., None], name: str, *args: Any) -> None:
        t = threading.Thread(target=target, args=args, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    def stop(self, wait: float = 0.0) -> None:
        self._stop.set()
        self._changed.set()
        end = time.monotonic() + wait
        for t in self._threads:
            t.join(max(0.0, end - time.monotonic()))
        self._threads = []

    def poke(self) -> None:
        """Derive again soon (a threshold changed)."""
        self._changed.set()

    def _source_loop(self, name: str) -> None:
        runner = self.runners[name]
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                if self.enabled(name):
                    runner.run_once(self.schedule(name))
                    self._changed.set()
            except Exception:  # never let a loop die
                self.log.exception("%ssource loop %s", self.log_prefix, name)
            # Sleep in short slices so that a changed interval takes effect at once.
            while not self._stop.is_set():
                left = self.schedule(name).interval - (time.monotonic() - started)
                if left <= 0:
                    break
                self._stop.wait(min(1.0, max(0.5, left)))

    def _derive_loop(self) -> None:
        while not self._stop.is_set():
            self._changed.wait(5.0)
            if self._stop.is_set():
                return
            self._stop.wait(0.3)
            self._changed.clear()
            try:
                self.derive_now()
            except Exception:  # a bug in one derivation must not stop the producer
                self.log.exception("%sderivation failed; serving the previous exposition", self.log_prefix)
