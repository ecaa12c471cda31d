"""What fired, through a real Alertmanager running the shipped configuration: it groups, routes
and inhibits, and the notifications follow from its answers.

Alertmanager (Debian's `prometheus-alertmanager`) runs `rules/alertmanager/alertmanager.yml` with
its routes, grouping and inhibit_rules as shipped, its receivers pointed at a local sink
(demo.monitoring.webhook_routing: nothing leaves the machine, and no other test's receiver hears
the replay). The replay walks the moments at which some alert starts or stops firing: at each,
it posts what changed through Alertmanager's API (an alert that stopped is posted resolved, as
Prometheus sends it), then reads `/api/v2/alerts/groups`. Alertmanager answers with its own
dispatcher's groups, one per route an alert reaches (so per receiver), and each alert's state as
its inhibitor judges it when asked. A notification is one receiver's view of one group, from the
first moment the group holds an alert that is not suppressed to the moment it holds none.
Alertmanager's timers (group_wait, group_interval, repeat_interval) run on the wall clock and are
not replayed: a notification here is an interval, not each message sent.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from demo.monitoring import Alertmanager, Webhook, http_json, webhook_routing
from replay.engine import REPO, AlertEvent, EngineError

CONFIG = REPO / "rules" / "alertmanager" / "alertmanager.yml"
SETTLE = 0.05  # seconds between two reads of the groups that must agree
# The inhibitor learns of posted alerts from a feed of its own, after the API has taken them: a
# read right after a post can judge a target against the sources before it. A probe pair, posted
# after the moment's alerts, with an inhibit rule of its own: once its target reads suppressed, the
# inhibitor's feed has passed everything posted before it (the feed keeps the order of the posts).
PROBE_SOURCE, PROBE_TARGET = "ReplayProbeSource", "ReplayProbeTarget"
PROBE_RULE = {
    "source_matchers": [f'alertname="{PROBE_SOURCE}"'],
    "target_matchers": [f'alertname="{PROBE_TARGET}"'],
    "equal": ["probe"],
}


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


def _stamp(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).isoformat()


# One group's state at a moment: (receiver, group labels) -> the severity of its alerts that are
# not suppressed, or None while it holds only suppressed ones.
State = dict[tuple[str, tuple[tuple[str, str], ...]], str | None]


class Routing:
    """A real Alertmanager on the shipped configuration, fed one moment at a time."""

    def __init__(self, work: Path) -> None:
        self.sink = Webhook().start()
        config = webhook_routing(self.sink.url, CONFIG)
        config["inhibit_rules"] = [*config.get("inhibit_rules", []), PROBE_RULE]
        try:
            self.am = Alertmanager(work, config).start()
        except Exception as e:
            self.sink.stop()
            raise EngineError(f"Alertmanager did not start: {e}") from None
        self.since = time.time() - 3600  # every alert's startsAt: before any resolve posted
        self.probe = 0

    def post(self, started: list[Firing], stopped: list[Firing]) -> None:
        now = time.time()
        alerts = [
            {"labels": dict(f.labels), "startsAt": _stamp(self.since), "endsAt": _stamp(now + 86400)} for f in started
        ] + [{"labels": dict(f.labels), "startsAt": _stamp(self.since), "endsAt": _stamp(now - 0.001)} for f in stopped]
        self.probe += 1  # the last pair resolved, a new one
        alerts += [
            {"labels": {"alertname": name, "probe": str(probe)}, "startsAt": _stamp(self.since), "endsAt": _stamp(ends)}
            for probe, ends in ((self.probe - 1, now - 0.001), (self.probe, now + 86400))
            for name in (PROBE_SOURCE, PROBE_TARGET)
        ]
        req = urllib.request.Request(
            f"{self.am.url}/api/v2/alerts",
            data=json.dumps(alerts).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            if r.status != 200:
                raise EngineError(f"Alertmanager refused the alerts: HTTP {r.status}")

    def read(self) -> tuple[set[tuple[tuple[str, str], ...]], State, bool]:
        """The alerts Alertmanager holds as active, each group's state, and whether the inhibitor
        has judged the last probe (the probes themselves are left out)."""
        held: set[tuple[tuple[str, str], ...]] = set()
        state: State = {}
        probed = False
        for group in http_json(f"{self.am.url}/api/v2/alerts/groups"):
            key = (group["receiver"]["name"], tuple(sorted(group["labels"].items())))
            shown = None
            alerts = group["alerts"]
            for a in alerts:
                name = a["labels"].get("alertname")
                if name == PROBE_TARGET and a["labels"].get("probe") == str(self.probe):
                    probed = a["status"]["state"] == "suppressed"
                if name in (PROBE_SOURCE, PROBE_TARGET):
                    continue
                held.add(tuple(sorted(a["labels"].items())))
                if a["status"]["state"] == "active":
                    shown = a["labels"].get("severity", "")
            if any(a["labels"].get("alertname") not in (PROBE_SOURCE, PROBE_TARGET) for a in alerts):
                state[key] = shown
        return held, state, probed

    def settled(self, active: set[tuple[tuple[str, str], ...]], timeout: float = 30.0) -> State:
        """The groups once Alertmanager holds exactly `active`, its inhibitor has judged the last
        probe, and two reads agree."""
        deadline = time.monotonic() + timeout
        last: State | None = None
        while time.monotonic() < deadline:
            held, state, probed = self.read()
            ready = held == active and probed
            if ready and state == last:
                return state
            last = state if ready else None
            time.sleep(SETTLE)
        raise EngineError(f"Alertmanager did not settle on {len(active)} active alerts within {timeout:.0f} s")

    def stop(self) -> None:
        self.am.stop()
        self.sink.stop()


def notifications(fired: list[Firing]) -> list[Notification]:
    """Each receiver's notifications, as a real Alertmanager groups, routes and inhibits the
    firings (an end of None: still on when the span ends)."""
    moments = sorted({f.start for f in fired} | {f.end for f in fired if f.end is not None})
    opened: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[str, float]] = {}
    out: list[Notification] = []
    with tempfile.TemporaryDirectory(prefix="replay-am-") as d:
        routing = Routing(Path(d))
        try:
            for t in moments:
                routing.post([f for f in fired if f.start == t], [f for f in fired if f.end == t])
                active = {f.labels for f in fired if f.start <= t and (f.end is None or t < f.end)}
                state = routing.settled(active)
                for key, (severity, start) in list(opened.items()):
                    if state.get(key) is None:
                        out.append(Notification(key[0], key[1], severity, start, t))
                        del opened[key]
                for key, shown in state.items():
                    if shown is not None and key not in opened:
                        opened[key] = (shown, t)
        finally:
            routing.stop()
    out += [Notification(k[0], k[1], severity, start, None) for k, (severity, start) in opened.items()]
    return sorted(out, key=lambda n: (n.start, n.receiver, n.group))
