"""scripts/vulture_allowlist.py: every entry is the dotted path of one definition vulture
flags (its module, the classes and functions around it, its name), with the reason it is
used after all; no bare name, no line number, no entry that no longer matches anything.

Vulture itself matches names only: a bare `avail_bytes` hid every unused `avail_bytes` of the
repository, and a `(snapshot.py:41)` went on naming a line long after the field moved. The
path is what these tests hold the allowlist to: it must lead to a definition that vulture,
run as scripts/test.sh runs it but without the allowlist, reports as unused.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import shlex
import tokenize
from dataclasses import dataclass
from pathlib import Path

from vulture import Vulture

REPO = Path(__file__).resolve().parents[2]
ALLOWLIST = REPO / "scripts" / "vulture_allowlist.py"
TEST_SH = REPO / "scripts" / "test.sh"

# A position in a file: `snapshot.py:41`, `line 41`, `lines 40-44`.
LINE_NUMBER = re.compile(r"\.py:\d+|\blines? \d+")
# vulture --make-whitelist's own comment, which says what vulture found, not why it is used.
GENERATED = re.compile(r"^unused (variable|attribute|method|function|property|class|import)\b")


@dataclass(frozen=True)
class Entry:
    path: tuple[str, ...]
    reason: str
    line: int


def _comments(text: str) -> dict[int, str]:
    """Line -> the text of the comment on it."""
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return {t.start[0]: t.string.lstrip("#").strip() for t in tokens if t.type == tokenize.COMMENT}


def _dotted(node: ast.expr) -> tuple[str, ...] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return (node.id, *reversed(parts))


def read(text: str) -> tuple[list[Entry], list[str]]:
    """The entries of an allowlist's text, and what is wrong with it."""
    problems = [f"line {n}: a line number ({m.group()}) goes stale" for n, m in _line_numbers(text)]
    comments = _comments(text)
    lines = text.splitlines()
    entries = []
    body = ast.parse(text).body
    for i, stmt in enumerate(body):
        if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # the docstring
        path = _dotted(stmt.value) if isinstance(stmt, ast.Expr) else None
        if path is None:
            problems.append(f"line {stmt.lineno}: not a dotted path: {ast.unparse(stmt)[:60]}")
            continue
        if len(path) < 3 or path[0] == "_":
            problems.append(f"line {stmt.lineno}: {'.'.join(path)}: a bare name, not the path of its definition")
        reason = comments.get(stmt.lineno) or _reason_above(lines, comments, stmt.lineno)
        if not reason or GENERATED.match(reason):
            problems.append(f"line {stmt.lineno}: {'.'.join(path)}: no reason given")
        entries.append(Entry(path, reason, stmt.lineno))
    return entries, problems


def _line_numbers(text: str) -> list[tuple[int, re.Match[str]]]:
    return [(n, m) for n, line in enumerate(text.splitlines(), 1) for m in LINE_NUMBER.finditer(line)]


def _reason_above(lines: list[str], comments: dict[int, str], line: int) -> str:
    """The comment heading the block of entries the line is in (no blank line between)."""
    n = line - 1
    while n >= 1 and lines[n - 1].strip() and not lines[n - 1].lstrip().startswith("#"):
        n -= 1
    above: list[str] = []
    while n >= 1 and lines[n - 1].lstrip().startswith("#"):
        above.insert(0, comments[n])
        n -= 1
    return " ".join(above)


def vulture_command() -> tuple[str, ...]:
    """The arguments of scripts/test.sh's vulture run."""
    runs = [line for line in TEST_SH.read_text().splitlines() if line.startswith(".venv/bin/vulture ")]
    assert len(runs) == 1, runs
    return tuple(shlex.split(runs[0])[1:])


@functools.cache
def unused_code(args: tuple[str, ...]) -> list:
    """What vulture reports for these arguments, without the allowlist."""
    paths = [a for a in args if not a.startswith("-") and not a.isdigit()]
    confidence = int(args[args.index("--min-confidence") + 1])
    v = Vulture()
    v.scavenge([str(REPO / p) for p in paths], exclude=[str(ALLOWLIST)])
    return v.get_unused_code(min_confidence=confidence)


def _module_file(path: tuple[str, ...]) -> tuple[Path, tuple[str, ...]] | None:
    """The file a path's leading names lead to, and the names inside it."""
    here = REPO
    for i, name in enumerate(path):
        if (here / f"{name}.py").is_file():
            return here / f"{name}.py", path[i + 1 :]
        if (here / name).is_dir():
            here = here / name
            continue
        if (here / "__init__.py").is_file() and here != REPO:
            return here / "__init__.py", path[i:]
        return None
    return None


def _scope(tree: ast.AST, names: tuple[str, ...]) -> ast.AST | None:
    """The class or function the names lead to, inside the module; None if one is missing."""
    node = tree
    for name in names:
        found = [
            n
            for n in _defined_in(node)
            if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
        ]
        if not found:
            return None
        node = found[0]
    return node


def _defined_in(node: ast.AST) -> list[ast.stmt]:
    """The statements of a body, with those inside its if/try/with blocks (not inside defs)."""
    out: list[ast.stmt] = []
    todo = list(getattr(node, "body", []))
    while todo:
        stmt = todo.pop(0)
        out.append(stmt)
        if isinstance(stmt, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                todo.extend(getattr(stmt, field, []))
        if isinstance(stmt, ast.ExceptHandler):
            todo.extend(stmt.body)
    return out


def stale(entries: list[Entry], unused: list) -> list[str]:
    """Entries whose path leads to no definition vulture reports as unused."""
    problems = []
    for e in entries:
        dotted = ".".join(e.path)
        located = _module_file(e.path)
        if located is None or not located[1]:
            problems.append(f"line {e.line}: {dotted}: no module of the repository")
            continue
        file, inner = located
        scope = _scope(ast.parse(file.read_text()), inner[:-1])
        if scope is None:
            problems.append(f"line {e.line}: {dotted}: no {'.'.join(inner[:-1])} in {file.relative_to(REPO)}")
            continue
        first = getattr(scope, "lineno", 1)
        last = getattr(scope, "end_lineno", None) or len(file.read_text().splitlines())
        if not any(
            Path(item.filename).resolve() == file and item.name == inner[-1] and first <= item.first_lineno <= last
            for item in unused
        ):
            problems.append(f"line {e.line}: {dotted}: vulture reports nothing unused there (stale)")
    return problems


def test_every_entry_is_a_path_with_its_reason():
    entries, problems = read(ALLOWLIST.read_text())
    assert problems == []
    assert entries


def test_a_bare_name_a_line_number_or_no_reason_is_refused():
    old = (
        '"""Names vulture cannot see used."""\n'
        "avail_bytes  # unused variable (ceph_scale/core/snapshot.py:41)\n"
        "_.do_GET  # unused method\n"
        "ceph_scale.core.snapshot.Osd.used_bytes\n"
    )
    _, problems = read(old)
    assert problems == [
        "line 2: a line number (.py:41) goes stale",
        "line 2: avail_bytes: a bare name, not the path of its definition",
        "line 2: avail_bytes: no reason given",
        "line 3: _.do_GET: a bare name, not the path of its definition",
        "line 3: _.do_GET: no reason given",
        "line 4: ceph_scale.core.snapshot.Osd.used_bytes: no reason given",
    ]


def test_a_comment_heading_a_block_is_the_reason_of_each_entry_in_it():
    text = "# pytest reads it\ntests.a.pytestmark\ntests.b.pytestmark\n\ntests.c.pytestmark\n"
    entries, problems = read(text)
    assert [e.reason for e in entries] == ["pytest reads it", "pytest reads it", ""]
    assert problems == ["line 5: tests.c.pytestmark: no reason given"]


def test_every_entry_names_a_definition_vulture_reports():
    entries, _ = read(ALLOWLIST.read_text())
    assert stale(entries, unused_code(vulture_command())) == []


def test_an_entry_vulture_does_not_report_is_stale():
    unused = unused_code(vulture_command())
    entries = [
        Entry(("ceph_scale", "core", "snapshot", "Osd", "used_bytes"), "read", 1),  # read by the fill signal
        Entry(("ceph_scale", "core", "snapshot", "NoSuchClass", "x"), "gone", 2),
        Entry(("nowhere", "x", "y"), "gone", 3),
    ]
    assert stale(entries, unused) == [
        "line 1: ceph_scale.core.snapshot.Osd.used_bytes: vulture reports nothing unused there (stale)",
        "line 2: ceph_scale.core.snapshot.NoSuchClass.x: no NoSuchClass in ceph_scale/core/snapshot.py",
        "line 3: nowhere.x.y: no module of the repository",
    ]


def test_the_vulture_run_reads_the_allowlist_and_every_python_directory():
    args = vulture_command()
    paths = {a for a in args if not a.startswith("-") and not a.isdigit()}
    python_dirs = {
        d.name
        for d in REPO.iterdir()
        if d.is_dir() and not d.name.startswith(".") and d.name not in ("build", "run") and any(d.rglob("*.py"))
    }
    assert python_dirs <= paths, python_dirs - paths
    assert "scripts" in paths or "scripts/vulture_allowlist.py" in paths
