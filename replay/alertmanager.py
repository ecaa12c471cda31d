"""What fired, through the shipped Alertmanager configuration: each alert's receivers from the
real routing tree (`amtool config routes test`), its inhibition by the config's inhibit_rules,
and the notifications that result.

Inhibition is judged here, from the same file, as Alertmanager's inhibitor does: a target alert
is muted while a firing source alert matches the rule's source matchers and carries the same
values of the rule's `equal` labels (a source that is itself inhibited still inhibits). A
notification is one receiver's view of one alert group (the route's group_by: cluster,
alertname, signal): from when its first alert fires un-muted to when its last one resolves.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache

import yaml

from replay.engine import REPO, AlertEvent, EngineError

CONFIG = REPO / "rules" / "alertmanager" / "alertmanager.yml"
GROUP_BY = ("cluster", "alertname", "signal")
MATCHER = re.compile(r'^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"?(.*?)"?\s*$')


@dataclass(frozen=True)
class Firing:
    """One alert's firing interval (end None: still firing at the end of the span)."""

    alert: str
    labels: tuple[tuple[str, str], ...]
    start: float
    end: float | None


@dataclass(frozen=True)
class Notification:
    receiver: str
    group: tuple[tuple[str, str], ...]
    severity: str
    start: float
    end: float | None

    @property
    def alertname(self) -> str:
        return dict(self.group).get("alertname", "")


def firings(events: list[AlertEvent]) -> list[Firing]:
    open_: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    out = []
    for e in sorted(events, key=lambda e: e.t):
        key = (e.alert, tuple(sorted(e.labels.items())))
        if e.state == "firing":
            open_.setdefault(key, e.t)
        elif key in open_:
            out.append(Firing(key[0], key[1], open_.pop(key), e.t))
    out += [Firing(a, lbls, t, None) for (a, lbls), t in open_.items()]
    # Labels last: the engine writes one rule's alerts in no fixed order, the report keeps one.
    return sorted(out, key=lambda f: (f.start, f.alert, f.labels))


def matches(matcher: str, labels: dict[str, str]) -> bool:
    m = MATCHER.match(matcher)
    if not m:
        raise EngineError(f"{CONFIG}: cannot read the matcher {matcher!r}")
    name, op, value = m.groups()
    have = labels.get(name, "")
    if op == "=":
        return have == value
    if op == "!=":
        return have != value
    hit = re.fullmatch(value, have) is not None
    return hit if op == "=~" else not hit


def inhibited(f: Firing, t: float, active: list[Firing], rules: list[dict]) -> bool:
    target = dict(f.labels)
    for rule in rules:
        if not all(matches(m, target) for m in rule.get("target_matchers", [])):
            continue
        for src in active:
            if src is f or not (src.start <= t and (src.end is None or t < src.end)):
                continue
            source = dict(src.labels)
            if all(matches(m, source) for m in rule.get("source_matchers", [])) and all(
                source.get(k, "") == target.get(k, "") for k in rule.get("equal", [])
            ):
                return True
    return False


@cache
def receivers(labels: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    amtool = shutil.which("amtool")
    if amtool is None:
        raise EngineError("amtool is not installed (scripts/bootstrap.sh installs Alertmanager)")
    args = [f"{k}={v}" for k, v in labels]
    done = subprocess.run(
        [amtool, "config", "routes", "test", f"--config.file={CONFIG}", *args], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise EngineError(f"amtool config routes test {' '.join(args)}: {done.stderr.strip()}")
    return tuple(r.strip() for r in done.stdout.strip().split(","))


def notifications(fired: list[Firing], step: float, span_end: float) -> list[Notification]:
    """Each receiver's notifications: un-muted firing, per alert group, merged where they touch
    (an end of None: still firing when the span ends at `span_end`)."""
    rules = yaml.safe_load(CONFIG.read_text()).get("inhibit_rules", [])
    spans: dict[tuple[str, tuple[tuple[str, str], ...], str], list[tuple[float, float | None]]] = {}
    for f in fired:
        # Muted or not, judged at each evaluation step of its interval.
        t, end = f.start, f.end if f.end is not None else span_end + step
        pieces: list[tuple[float, float | None]] = []
        while t < end:
            if not inhibited(f, t, fired, rules):
                if pieces and pieces[-1][1] == t:
                    pieces[-1] = (pieces[-1][0], min(t + step, end))
                else:
                    pieces.append((t, min(t + step, end)))
            t += step
        labels = dict(f.labels)
        group = tuple((k, labels.get(k, "")) for k in GROUP_BY)
        for receiver in receivers(f.labels):
            key = (receiver, group, labels.get("severity", ""))
            spans.setdefault(key, []).extend((a, None if b is not None and b > span_end else b) for a, b in pieces)
    out = []
    for (receiver, group, severity), pieces in spans.items():
        merged: list[list[float | None]] = []
        for a, b in sorted(pieces, key=lambda p: p[0]):
            last = merged[-1] if merged else None
            if last is not None and (last[1] is None or a <= last[1]):
                last[1] = None if (last[1] is None or b is None) else max(last[1], b)
            else:
                merged.append([a, b])
        out += [Notification(receiver, group, severity, a, b) for a, b in merged if a is not None]
    return sorted(out, key=lambda n: (n.start, n.receiver, n.group))
