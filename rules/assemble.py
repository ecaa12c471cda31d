"""The shipped rule files, runbooks and metric catalog, assembled from the signal folders.

Also the example Alertmanager routing, from its template and each signal's team
(rules/routing.py), the `group_eval_order` of every promtool test file (rules/eval_order.py),
and the tables of health checks and thresholds in the docs (rules/doc_tables.py).

Each folder `ceph_scale/core/signals/<name>/` holds its own pieces: `rules.yml` (its
Prometheus groups, or its rules in another signal's group), `runbook.md` (its runbook
sections) and `catalog.md` (its page of the metric catalog); `exporter/` holds the exporter's
own. A template under rules/templates/ gives each shipped file its header and where the
folders go:

- `@folder <name>`: that folder's piece here;
- `@folders`: every folder the template does not name, in registry order, then `exporter`.

A folder that adds rules to a group another folder holds (the plunge alert in the load
group) names the group in its rules.yml; the holder marks the place with the line
`# assembled here: signals/<name>/rules.yml`. A runbook or catalog section inside another's
is placed by `<!-- assembled here: signals/<name>/runbook.md -->` (or catalog.md).

    python -m rules.assemble            # write the shipped files
    python -m rules.assemble --check    # exit 1 naming each shipped file that differs
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ceph_scale.core.registry import SIGNALS
from rules import routing
from rules.doc_tables import TABLES
from rules.eval_order import group_names, with_eval_order
from rules.rule_set import CHART_RULES_DIR, SIGNALS_DIR, promtool_test_files

REPO = Path(__file__).resolve().parents[1]
TEMPLATES_DIR = Path("rules/templates")
EXPORTER = "exporter"
COMMAND = "python -m rules.assemble"

YAML_MARKER = re.compile(r"^\s*# assembled here: signals/(\w+)/rules\.yml$")
MARKDOWN_MARKER = re.compile(r"^<!-- assembled here: signals/(\w+)/(runbook|catalog)\.md -->$")
GROUP_START = re.compile(r"^  (?:#|- name:)")
GROUP_NAME = re.compile(r"^  - name: (\S+)$")
DIRECTIVE = re.compile(r"^@(folder|folders)(?: (\w+))?$")


class AssemblyError(ValueError):
    """A folder piece or template the assembler cannot place; the message names the file."""


@dataclass(frozen=True)
class Output:
    """One shipped file: its template, the folder piece it reads and, for a rule file, the
    suffix of its groups' names."""

    path: Path
    template: str
    piece: str
    group_suffix: str | None = None


OUTPUTS = (
    Output(Path("rules/recording.yml"), "recording.yml.in", "rules.yml", ".rules"),
    Output(Path("rules/alerts.yml"), "alerts.yml.in", "rules.yml", ".alerts"),
    Output(Path("rules/runbooks.md"), "runbooks.md.in", "runbook.md"),
    Output(Path("docs/metrics.md"), "metrics.md.in", "catalog.md"),
)
# The example routing: its template with the registry's teams (rules/routing.py).
ROUTING = Path("rules/alertmanager/alertmanager.yml")
# The Helm chart renders copies of the rule files: no link leaves the chart (tests/unit/test_layout.py).
GROUP_SUFFIXES = tuple(o.group_suffix for o in OUTPUTS if o.group_suffix)
CHART_COPIES = {CHART_RULES_DIR / o.path.name: o.path for o in OUTPUTS if o.group_suffix}


def folders() -> list[str]:
    """The signal folders in registry order, then the exporter's own."""
    return [s.name for s in SIGNALS] + [EXPORTER]


def piece_path(folder: str, piece: str) -> Path:
    return SIGNALS_DIR / folder / piece


def read_piece(root: Path, folder: str, piece: str) -> str | None:
    path = root / piece_path(folder, piece)
    return path.read_text() if path.is_file() else None


# --- rule files ------------------------------------------------------------------------------


@dataclass
class Group:
    """One group block of a folder's rules.yml, as text lines (its comment, name, `rules:`, rules)."""

    folder: str
    name: str
    lines: list[str]

    def body(self) -> list[str]:
        """The rules, without the group's own lines (what a holder's marker takes in)."""
        at = next(i for i, line in enumerate(self.lines) if line.strip() == "rules:")
        return self.lines[at + 1 :]


def rule_groups(folder: str, text: str) -> list[Group]:
    """The group blocks of a folder's rules.yml: after `groups:`, split at the blank line
    before each group (its comment or its `- name:` line)."""
    where = piece_path(folder, "rules.yml")
    lines = text.splitlines(keepends=True)
    try:
        start = lines.index("groups:\n") + 1
    except ValueError:
        raise AssemblyError(f"{where}: no `groups:` line") from None
    blocks: list[list[str]] = [[]]
    for i, line in enumerate(lines[start:], start):
        if not line.strip() and i + 1 < len(lines) and GROUP_START.match(lines[i + 1]):
            blocks.append([])
        else:
            blocks[-1].append(line)
    groups = []
    for block in blocks:
        names = [m.group(1) for m in map(GROUP_NAME.match, block) if m]
        if len(names) != 1 or not block[-1].strip():
            raise AssemblyError(f"{where}: a group block must hold one `- name:` line and end in a rule")
        if not names[0].endswith(GROUP_SUFFIXES):
            raise AssemblyError(f"{where}: group {names[0]} ends in none of {', '.join(GROUP_SUFFIXES)}")
        groups.append(Group(folder, names[0], block))
    return groups


def all_rule_groups(root: Path) -> list[Group]:
    out = []
    for folder in folders():
        text = read_piece(root, folder, "rules.yml")
        if text is not None:
            out += rule_groups(folder, text)
    return out


def placed_groups(root: Path, suffix: str) -> dict[str, list[str]]:
    """{folder: [text of each group it holds]} for the groups whose name ends in suffix, each
    with the rules other folders place in it at their markers."""
    groups = [g for g in all_rule_groups(root) if g.name.endswith(suffix)]
    by_key = {(g.folder, g.name): g for g in groups}
    taken: set[tuple[str, str]] = set()
    for g in groups:
        for line in g.lines:
            m = YAML_MARKER.match(line.rstrip("\n"))
            if m:
                if (m.group(1), g.name) not in by_key:
                    raise AssemblyError(
                        f"{piece_path(g.folder, 'rules.yml')}: marks a place for signals/{m.group(1)} in "
                        f"{g.name}, which its rules.yml does not name"
                    )
                taken.add((m.group(1), g.name))
    out: dict[str, list[str]] = {}
    holders: dict[str, str] = {}
    for g in groups:
        if (g.folder, g.name) in taken:
            continue
        if g.name in holders:
            raise AssemblyError(
                f"{piece_path(g.folder, 'rules.yml')}: group {g.name} is held by signals/{holders[g.name]} too, "
                f"which marks no place for it (`# assembled here: signals/{g.folder}/rules.yml`)"
            )
        holders[g.name] = g.folder
        text = []
        for line in g.lines:
            m = YAML_MARKER.match(line.rstrip("\n"))
            text += by_key[(m.group(1), g.name)].body() if m else [line]
        out.setdefault(g.folder, []).append("".join(text))
    return out


# --- markdown --------------------------------------------------------------------------------


def expand_markdown(root: Path, text: str, piece: str, seen: tuple[str, ...]) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        m = MARKDOWN_MARKER.match(line.rstrip("\n"))
        if not m:
            out.append(line)
            continue
        guest = m.group(1)
        inner = read_piece(root, guest, piece)
        if inner is None or f"{m.group(2)}.md" != piece or guest in seen:
            raise AssemblyError(f"{piece_path(seen[-1], piece)}: cannot place {line.strip()}")
        out.append(expand_markdown(root, inner, piece, (*seen, guest)))
    return "".join(out)


def markdown_pieces(root: Path, piece: str) -> dict[str, str]:
    """{folder: its piece with the pieces it places}, for folders no other piece places."""
    texts = {f: t for f in folders() if (t := read_piece(root, f, piece)) is not None}
    placed = {m.group(1) for t in texts.values() for m in map(MARKDOWN_MARKER.match, t.splitlines()) if m}
    return {f: expand_markdown(root, t, piece, (f,)) for f, t in texts.items() if f not in placed}


# --- templates -------------------------------------------------------------------------------


def fill_template(output: Output, template: str, pieces: dict[str, list[str]]) -> str:
    """The template's text with its directives replaced by the folders' pieces."""
    where = TEMPLATES_DIR / output.template
    named = {m.group(2) for m in map(DIRECTIVE.match, template.splitlines()) if m and m.group(1) == "folder"}
    head: list[str] = []
    placed: list[str] = []
    for line in template.splitlines(keepends=True):
        m = DIRECTIVE.match(line.rstrip("\n"))
        if m is None:
            if placed:
                raise AssemblyError(f"{where}: text after the first @folder line")
            head.append(line)
        elif m.group(1) == "folder":
            if m.group(2) not in folders():
                raise AssemblyError(f"{where}: {line.strip()} names no signal folder")
            placed += pieces.get(m.group(2), [])
        else:
            placed += [p for f in folders() if f not in named for p in pieces.get(f, [])]
    # Groups of a rule file stand a blank line apart; a markdown piece ends in its own spacing.
    joiner = "\n" if output.group_suffix else ""
    return "".join(head) + joiner.join(placed)


def assemble(root: Path = REPO) -> dict[Path, str]:
    """{path under root: text} of every shipped file the folders assemble."""
    pieces_of = {p.parent.name for o in OUTPUTS for p in (root / SIGNALS_DIR).glob(f"*/{o.piece}")}
    strays = sorted(pieces_of - set(folders()))
    if strays:
        raise AssemblyError(f"{SIGNALS_DIR}/{strays[0]}: holds rules or docs but is no signal of the registry")
    out: dict[Path, str] = {}
    for output in OUTPUTS:
        template_path = root / TEMPLATES_DIR / output.template
        try:
            template = template_path.read_text()
        except OSError as e:
            raise AssemblyError(f"{TEMPLATES_DIR / output.template}: cannot read: {e.strerror}") from None
        if output.group_suffix:
            pieces = placed_groups(root, output.group_suffix)
        else:
            pieces = {f: [t] for f, t in markdown_pieces(root, output.piece).items()}
        out[output.path] = fill_template(output, template, pieces)
    for copy, source in CHART_COPIES.items():
        out[copy] = out[source]
    try:
        out[ROUTING] = routing.routing((root / TEMPLATES_DIR / routing.TEMPLATE).read_text())
    except OSError as e:
        raise AssemblyError(f"{TEMPLATES_DIR / routing.TEMPLATE}: cannot read: {e.strerror}") from None
    except routing.RoutingError as e:
        raise AssemblyError(str(e)) from None
    for table in TABLES:
        try:
            out[table.doc] = table.filled(root)
        except (OSError, ValueError) as e:
            raise AssemblyError(str(e)) from None
    groups = group_names(out[Path("rules/recording.yml")], out[Path("rules/alerts.yml")])
    for test in promtool_test_files(root / "rules"):
        where = test.relative_to(root)
        try:
            out[where] = with_eval_order(test.read_text(), groups, str(where))
        except ValueError as e:
            raise AssemblyError(str(e)) from None
    return out


def differing(root: Path = REPO, wanted: dict[Path, str] | None = None) -> list[Path]:
    """The shipped files whose committed text is not what the folders assemble."""
    wanted = assemble(root) if wanted is None else wanted
    linked = (root / CHART_RULES_DIR).is_symlink()  # a link into rules/ is no copy: `helm package` drops it
    return [
        p
        for p, text in wanted.items()
        if (linked and p in CHART_COPIES) or not (root / p).is_file() or (root / p).read_text() != text
    ]


def write(root: Path = REPO) -> list[Path]:
    """Write every shipped file that differs; the ones written."""
    wanted = assemble(root)
    changed = differing(root, wanted)
    if (root / CHART_RULES_DIR).is_symlink():
        (root / CHART_RULES_DIR).unlink()
    for path in changed:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(wanted[path])
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a shipped file differs")
    parser.add_argument("--root", type=Path, default=REPO, help="the repository (default: this one)")
    args = parser.parse_args(argv)
    try:
        paths = differing(args.root) if args.check else write(args.root)
    except AssemblyError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.check:
        for path in paths:
            print(f"{path}: differs from what the signal folders assemble; run `{COMMAND}`")
        return 1 if paths else 0
    for path in paths:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
