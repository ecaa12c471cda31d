"""The example Alertmanager routing, assembled from its template and the registry's teams.

rules/templates/alertmanager.yml.in holds the tree, the receivers and the inhibitions; where
it needs the signals it writes a token, filled here from ceph_scale/core/registry.py:

- `@@signals@@`: every `signal` an alert may carry, as a regex alternation;
- `@@study_signals@@`: the same without the exporter's own (what a blind exporter inhibits);
- `@@signals_listed@@`: the same as `@@signals@@`, for the header's prose;
- `@@team_table@@`: the header's table of teams and their signals (a comment);
- `@@team_routes@@`: one route per team, `signal=~...` to the receiver `ceph-scale-<team>`.

So a new signal is routed by its row's `team`, and the file is never edited by hand.
"""

from __future__ import annotations

import re

from ceph_scale.core.registry import ALERT_SIGNALS, ALERT_TEAMS, TEAMS

TEMPLATE = "alertmanager.yml.in"
TOKEN = re.compile(r"@@(\w+)@@")
EXPORTER = "exporter"


class RoutingError(ValueError):
    """A team or token the routing cannot place; the message names it."""


def team_signals() -> dict[str, list[str]]:
    """{team: its signals in registry order}, for the teams that have any."""
    unknown = sorted(f"{s} ({t or 'no team'})" for s, t in ALERT_TEAMS.items() if t not in TEAMS)
    if unknown:
        raise RoutingError(f"ceph_scale/core/registry.py: signals with alerts and no known team: {', '.join(unknown)}")
    out: dict[str, list[str]] = {}
    for signal in ALERT_SIGNALS:
        out.setdefault(ALERT_TEAMS[signal], []).append(signal)
    return {team: out[team] for team in TEAMS if team in out}


def team_table() -> str:
    rows = [(", ".join(signals), f"ceph-scale-{team}") for team, signals in team_signals().items()]
    width = max(len(left) for left, _ in rows)
    return "\n".join(f"#                {left.ljust(width)}  -> {right}" for left, right in rows)


def team_routes() -> str:
    routes = []
    for team, signals in team_signals().items():
        matcher = f'signal="{signals[0]}"' if len(signals) == 1 else f'signal=~"{"|".join(signals)}"'
        routes.append(f"        - matchers: [{matcher}]\n          receiver: ceph-scale-{team}")
    return "\n".join(routes)


def tokens() -> dict[str, str]:
    study = [s for s in ALERT_SIGNALS if s != EXPORTER]
    return {
        "signals": "|".join(ALERT_SIGNALS),
        "study_signals": "|".join(study),
        "signals_listed": " | ".join(ALERT_SIGNALS),
        "team_table": team_table(),
        "team_routes": team_routes(),
    }


def routing(template: str) -> str:
    """The template with its tokens filled; every team's receiver must be declared in it."""
    values = tokens()
    missing = [f"ceph-scale-{team}" for team in team_signals() if f"- name: ceph-scale-{team}\n" not in template]
    if missing:
        raise RoutingError(f"rules/templates/{TEMPLATE}: no receiver {', '.join(missing)}")

    def filled(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise RoutingError(f"rules/templates/{TEMPLATE}: unknown token {m.group(0)}")
        return values[m.group(1)]

    return TOKEN.sub(filled, template)
