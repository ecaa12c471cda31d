"""Which alerts are evaluated every round and which every minute, and why.

A ticket (severity info) states a fact that holds for hours or weeks: a runway short of the
target date, a DB below the 4 % rule, buckets near their shard limit. Its `for:` is 15 minutes
or more, and no person waits for it. Evaluated every round (30 s in a fleet), a fleet of 100
study-size clusters in the study's trouble spent about a fifth of its Prometheus' round
expanding the tickets' annotations (docs/benchmark.md). So the tickets sit in groups of their
own, evaluated every TICKET_INTERVAL.

Why a minute and not longer: Prometheus tells Alertmanager an alert holds until 4 x the longer
of its group's interval and its resend delay (`--rules.alert.resend-delay`, 1 minute by default,
which these rules assume). At 1 minute that is the every-round alerts' 4 minutes too, so when
Prometheus stops, what silences a ticket (the exporter's alerts, a fill past its target) expires
in Alertmanager at most about 90 s before the ticket (each is counted from its last send: every
90 s at a 30 s round, every 2 minutes at 1), as between two alerts of every round; at 2 minutes
the tickets outlived them by 4 minutes more, and Alertmanager sent them in between.

A ticket keeps firing for the every-round alerts' `keep_firing_for` less TICKET_INTERVAL: its
first evaluation without its condition comes up to one interval later than theirs, and it must
end no later than an alert that silences it (the fill past its target silences the warn-line
ticket; both end when capacity is added), or Alertmanager sends it in between. It still spans
several evaluations, so one evaluation without its condition does not close it.

Every other alert is evaluated every round (its group has no interval of its own): a page or a
team's warning opens and resolves on time, and an alert that inhibits others (Alertmanager's
source_matchers; `CephScaleClusterLeftFleet` is a ticket that inhibits) follows its condition as
closely as the alerts it silences.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from rules.promql_text import duration_seconds

TICKET_INTERVAL = "1m"
TICKET_INTERVAL_SECONDS = 60
TICKET_SEVERITY = "info"
# One matcher of a list, or of a braced selector's comma-separated list: name, operator, value.
MATCHER = re.compile(r"""\s*\{?\s*([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^,}\s]*))\s*,?""")


class CadenceError(ValueError):
    """An Alertmanager configuration whose inhibit sources cannot be told; one line."""


def _alertname_values(matcher: str) -> list[tuple[str, str]]:
    """(operator, value) of each alertname matcher in one source_matchers entry."""
    found = []
    for m in MATCHER.finditer(matcher):
        if m.group(1) == "alertname":
            found.append((m.group(2), next(v for v in m.group(3, 4, 5) if v is not None)))
    return found


def _matching(op: str, value: str, alert_names: set[str]) -> set[str]:
    """The alerts an alertname matcher takes; every alert where its regex may mean in Go's RE2
    what it does not in Python (escapes, classes, flags, repetition counts) or does not compile."""
    if op == "=":
        return {value} & alert_names
    if any(sign in value for sign in ("\\", "[:", "(?", "{")):
        return set(alert_names)
    try:
        return {n for n in alert_names if re.fullmatch(value, n)}
    except re.error:
        return set(alert_names)


def inhibiting_alerts(alertmanager_yml: Path, alert_names: set[str]) -> set[str]:
    """The alerts among `alert_names` that an inhibit rule's source matches: by alertname
    (= or =~, in source_matchers or the older source_match / source_match_re), or every alert
    where a source is chosen by other labels only. CadenceError where the file is unreadable."""
    try:
        config = yaml.safe_load(alertmanager_yml.read_text()) or {}
    except (OSError, yaml.YAMLError) as e:
        raise CadenceError(f"{alertmanager_yml}: cannot read the inhibit rules: {e}".splitlines()[0]) from None
    rules = config.get("inhibit_rules") or [] if isinstance(config, dict) else None
    if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
        raise CadenceError(f"{alertmanager_yml}: inhibit_rules is not a list of mappings")
    names: set[str] = set()
    for rule in rules:
        pairs = [pair for entry in rule.get("source_matchers") or [] for pair in _alertname_values(str(entry))]
        for key, op in (("source_match", "="), ("source_match_re", "=~")):
            if isinstance(rule.get(key), dict) and "alertname" in rule[key]:
                pairs.append((op, str(rule[key]["alertname"])))
        positive = [(op, value) for op, value in pairs if op in ("=", "=~")]
        if not positive:  # chosen by other labels: any alert may be a source
            names |= alert_names
        for op, value in positive:
            names |= _matching(op, value, alert_names)
    return names


def tickets(alerts: dict[str, dict], inhibitors: set[str]) -> set[str]:
    """The alerts evaluated every TICKET_INTERVAL: severity info, and silencing nothing."""
    return {
        name
        for name, rule in alerts.items()
        if (rule.get("labels") or {}).get("severity") == TICKET_SEVERITY and name not in inhibitors
    }


def cadence_problems(
    alerts: dict[str, dict], inhibitors: set[str], ticket_names: set[str], round_keep_firing: str | None
) -> list[str]:
    """One line per alert in a group of the wrong interval, or a ticket (`ticket_names`, from
    tickets()) that keeps firing longer than the every-round alerts less TICKET_INTERVAL; each
    alert carries its group's interval under `_interval` (None: the group has none, it runs every
    round)."""
    problems = []
    round_seconds = duration_seconds(round_keep_firing) if round_keep_firing else None
    wanted = round_seconds - TICKET_INTERVAL_SECONDS if round_seconds is not None else None
    for name, rule in alerts.items():
        interval = rule.get("_interval")
        if name in ticket_names:
            if duration_seconds(str(interval)) != TICKET_INTERVAL_SECONDS:
                problems.append(
                    f"{name}: a ticket in a group evaluated every {interval or 'round'}, not {TICKET_INTERVAL}"
                )
            kept = duration_seconds(str(rule.get("keep_firing_for", "")))
            if wanted is not None and kept != wanted:
                problems.append(
                    f"{name}: a ticket keeps firing for {rule.get('keep_firing_for')}, not {wanted:g}s "
                    f"({round_keep_firing} less {TICKET_INTERVAL}): it must end before what silences it"
                )
        elif interval is not None:  # a group's own interval, even one equal to the round's
            why = "it inhibits other alerts" if name in inhibitors else "it is not a ticket"
            problems.append(f"{name}: in a group evaluated every {interval}, not every round ({why})")
    return problems
