"""Where the release artefacts are: the alert and recording rules, the Grafana dashboards, the
ceph-mgr module and the systemd unit with its files that ship beside the exporter
(`ceph-scale-exporter --artefacts`).

An installed wheel puts them under <prefix>/share/ceph-scale-signals (pyproject.toml's
data-files); a checkout has them in the repository itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

SHARE = ("share", "ceph-scale-signals")
# artefact: (directory in the installed share, directory in a checkout, the files that make it)
KINDS = {
    "rules": ("rules", "rules", "*.yml"),
    "alertmanager": ("rules/alertmanager", "rules/alertmanager", "*.yml"),
    "dashboards": ("dashboards", "dashboards/json", "*.json"),
    "mgr_module": ("mgr_module", "mgr_module", "scale/*.py"),
    "systemd": ("systemd", "deploy/systemd", "*"),
}


def roots() -> list[tuple[Path, int]]:
    """Candidate roots, installed ones first, with the index of the path layout they use."""
    checkout = Path(__file__).resolve().parents[2]
    out = [(Path(p).joinpath(*SHARE), 0) for p in dict.fromkeys((sys.prefix, sys.base_prefix, "/usr/local", "/usr"))]
    out.append((checkout, 1))
    return out


def locate() -> dict[str, Path]:
    """{artefact: its directory}, from the first root that holds all of them."""
    for root, layout in roots():
        found = {kind: root / spec[layout] for kind, spec in KINDS.items()}
        if all(any(path.glob(spec[2])) for path, spec in zip(found.values(), KINDS.values())):
            return found
    raise FileNotFoundError("the rules, boards, mgr module and systemd unit were not found beside this installation")


def describe() -> str:
    """One line per artefact: its name, its directory and its files."""
    lines = []
    for kind, path in locate().items():
        files = sorted(str(f.relative_to(path)) for f in path.glob(KINDS[kind][2]))
        lines.append(f"{kind}\t{path}\t{' '.join(files)}")
    return "\n".join(lines) + "\n"
