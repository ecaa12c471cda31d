"""Where a rule-evaluating Prometheus spends its CPU: its own CPU profile (Go's pprof, served at
/debug/pprof/profile) over the rounds `bench.rules` measures, summed into what the rules make it
do. The per-rule times of the rules API say which rule is dear; the profile says what in it is:
the recording rules, the alerting rules and their templates (parsed anew for every alert at every
evaluation), the queries those templates run, or the garbage all of them leave.

Read with `go tool pprof -top -cum` (Go is the replays' build tool here: replay/go_build.sh finds
it the same way). A part is the cumulative time of its Prometheus functions and includes the
parts indented under it. Not in the parts they belong to: the template expander's setup and the
joining of its text (about 5 % more than the templates' part), and the garbage collector's mark
assists, which run in whichever goroutine allocates (within the rules' parts, mostly).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
import urllib.request
from dataclasses import dataclass
from pathlib import Path

PROMETHEUS = "github.com/prometheus/prometheus/"
PARTS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("all rule groups", 0, (PROMETHEUS + "rules.(*Group).Eval",)),
    ("recording rules", 1, (PROMETHEUS + "rules.(*RecordingRule).Eval",)),
    ("alerting rules", 1, (PROMETHEUS + "rules.(*AlertingRule).Eval",)),
    ("their templates (labels, annotations)", 2, (PROMETHEUS + "template.Expander.Expand",)),
    ("parsing the templates", 3, ("text/template.(*Template).Parse",)),
    ("the templates' queries", 3, (PROMETHEUS + "template.query",)),
    # The collector's own goroutines: marking, sweeping, returning memory (separate stacks: summed).
    ("garbage collection (background)", 0, ("runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge")),
)
UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "mins": 60.0, "hrs": 3600.0}
DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|mins|hrs)$")
TOTAL = re.compile(r"Total samples = (\S+)")
SPAN = re.compile(r"Duration: (\S+?),")
INLINE = re.compile(r"\s+\((?:partial-)?inline\)$")


class ProfileError(Exception):
    """A profile that could not be taken or read, said in one line."""


def go_binary() -> str | None:
    """Go on PATH, or where this machine's tools put it."""
    found = shutil.which("go")
    return found or ("/usr/local/go/bin/go" if Path("/usr/local/go/bin/go").is_file() else None)


def seconds(text: str) -> float:
    if text == "0":
        return 0.0
    m = DURATION.fullmatch(text)
    if m is None:
        raise ProfileError(f"pprof: {text!r} is not a duration")
    return float(m.group(1)) * UNITS[m.group(2)]


@dataclass(frozen=True)
class Profile:
    span: float  # seconds the profile was taken over
    total: float  # CPU seconds sampled in them
    parts: dict[str, float]  # PARTS' label -> cumulative CPU seconds (0: never ran)


def parts(top: str) -> Profile:
    """The profile read from `go tool pprof -top -cum`'s text."""
    total, span = TOTAL.search(top), SPAN.search(top)
    if total is None or span is None:
        raise ProfileError("pprof: no 'Duration: ..., Total samples = ...' line in its output")
    cum: dict[str, float] = {}
    for line in top.splitlines():
        fields = line.split(maxsplit=5)
        # flat flat% sum% cum cum% name [(inline)]
        if len(fields) == 6 and fields[1].endswith("%") and fields[4].endswith("%"):
            name = INLINE.sub("", fields[5].strip())
            cum[name] = max(cum.get(name, 0.0), seconds(fields[3]))
    found = {label: sum(cum.get(f, 0.0) for f in functions) for label, _, functions in PARTS}
    return Profile(seconds(span.group(1)), seconds(total.group(1)), found)


def read(profile: Path) -> Profile:
    go = go_binary()
    if go is None:
        raise ProfileError("go not found: the profile was written but cannot be read here")
    # Away from any go.mod, with no toolchain download (as replay/go_build.sh): pprof is built on
    # its first use on a machine, which may take a minute or two on a loaded one.
    env = {**os.environ, "GOTOOLCHAIN": "local"}
    argv = [go, "tool", "pprof", "-top", "-cum", "-nodecount=100000", "-nodefraction=0", str(profile.resolve())]
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env, cwd=tempfile.gettempdir())
    except (OSError, subprocess.SubprocessError) as e:
        raise ProfileError(f"go tool pprof: {e}") from e
    if r.returncode != 0:
        raise ProfileError(f"go tool pprof: {(r.stderr.strip().splitlines() or ['failed'])[-1]}")
    return parts(r.stdout)


class Capture:
    """A CPU profile of the server at `port` over the next `span` seconds, taken in a thread (the
    caller goes on polling the server meanwhile)."""

    def __init__(self, port: int, span: float) -> None:
        self.span = max(1, round(span))
        self.url = f"http://127.0.0.1:{port}/debug/pprof/profile?seconds={self.span}"
        self.data: bytes | None = None
        self.error: str | None = None
        self.thread = threading.Thread(target=self._take, daemon=True)
        self.thread.start()

    def _take(self) -> None:
        try:
            with urllib.request.urlopen(self.url, timeout=self.span + 60) as r:
                self.data = r.read()
        except OSError as e:
            self.error = f"the CPU profile was not taken: {e}"

    def save(self, path: Path) -> Path:
        """Waits for the profile and writes it to `path`."""
        self.thread.join(self.span + 90)
        if self.data is None:
            raise ProfileError(self.error or "the CPU profile did not finish")
        try:
            path.write_bytes(self.data)
        except OSError as e:
            raise ProfileError(f"the CPU profile was not written: {e}") from e
        return path


def print_parts(profile: Profile, round_seconds: float) -> None:
    rounds = profile.span / round_seconds
    total, found = profile.total, profile.parts
    print(f"  CPU profile: {total:.2f} s over {rounds:.1f} rounds ({total / rounds:.2f} a round), of which:")
    rest = total - sum(found[label] for label, depth, _ in PARTS if not depth)
    rows = [(label, depth, found[label]) for label, depth, _ in PARTS]
    for label, depth, cpu in [*rows, ("the rest: HTTP, storage, Go's runtime", 0, rest)]:
        share = cpu / total if total else 0.0
        print(f"    {'  ' * depth}{label:<{44 - 2 * depth}s} {cpu / rounds:6.3f} s a round  {share:6.1%}")
