"""What an alert's annotations cost a fleet's Prometheus: the queries their templates run.

Prometheus expands every annotation of every pending or firing alert at each evaluation,
and runs each `query` in it then. With 100 study-size clusters in the study's trouble that
was a third of a rule round (docs/benchmark.md), so the templates keep to a budget:

- a summary holds at most SUMMARY_QUERIES query and a description at most
  DESCRIPTION_QUERIES (every one written counts, even in branches that exclude each other);
  the rest of the detail is on the signal's board;
- no query runs inside a `range` body, once per item listed (its `else`, run once, may);
- no query reads thresholds alone (`ceph_scale_config`, `cluster_option:ceph_scale_config:max`):
  the text names the option, and the boards draw its line;
- no `define`, `template` or `block`: a query inside could not be counted where it runs.
"""

from __future__ import annotations

import re

from rules.promql_text import template_metric_names

SUMMARY_QUERIES = 1
DESCRIPTION_QUERIES = 2
BUDGETS = {"summary": SUMMARY_QUERIES, "description": DESCRIPTION_QUERIES}

STRING = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`')
QUERY_WORD = re.compile(r"(?<![\w.$])query(?!\w)")
ASSIGNED_PRINTF = re.compile(r"^(\$\w+)\s*:?=\s*printf\b")
VARIABLE = re.compile(r"\$\w+")
THRESHOLDS = {"ceph_scale_config", "cluster_option:ceph_scale_config:max"}
BLOCK_OPENERS = ("range", "with", "if")
UNCOUNTABLE = ("define", "template", "block")


def actions(template: str) -> list[tuple[str, list[str]]]:
    """Each {{ action }} but comments, as (its code with string literals blanked, the literals).

    An action ends at the first `}}` outside a string literal, as in Go's text/template.
    """
    out = []
    i = 0
    while (start := template.find("{{", i)) >= 0:
        j = start + 2
        literals = []
        code = []
        while j < len(template) and not template.startswith("}}", j):
            m = STRING.match(template, j)
            if m:
                literals.append(m.group(0)[1:-1])
                code.append('""')
                j = m.end()
            else:
                code.append(template[j])
                j += 1
        i = j + 2
        body = "".join(code).strip().strip("-").strip()
        if not body.startswith("/*"):
            out.append((body, literals))
    return out


def query_problems(name: str, key: str, template: str) -> list[str]:
    """Where one annotation's template breaks the budget, a line each."""
    problems = []
    stack: list[str] = []
    assigned: dict[str, str] = {}
    queries = 0
    for code, literals in actions(template):
        words = code.split()
        word = words[0] if words else ""
        if word in UNCOUNTABLE:
            problems.append(f"{name}: annotation {key} uses `{word}`, whose queries cannot be counted")
        assignment = ASSIGNED_PRINTF.match(code)
        if assignment and literals and not QUERY_WORD.search(code):
            assigned[assignment.group(1)] = literals[0]
        runs = len(QUERY_WORD.findall(code))
        if runs:
            queries += runs
            if "range" in stack:
                problems.append(f"{name}: annotation {key} runs a query inside a range, once per item")
            read = literals[:1] or [assigned.get(v, "") for v in VARIABLE.findall(code)[-1:]]
            metrics = template_metric_names(read[0]) if read else set()
            if metrics and metrics <= THRESHOLDS:
                option = re.search(r"option='([^']*)'", read[0])
                shown = option.group(1) if option else read[0]
                problems.append(f"{name}: annotation {key} queries a threshold alone ({shown}): name the option")
        if word in BLOCK_OPENERS:
            stack.append(word)
        elif word == "else" and stack and stack[-1] == "range":
            stack[-1] = "range else"  # run once, when the range is empty
        elif word == "end" and stack:
            stack.pop()
    budget = BUDGETS.get(key)
    if budget is not None and queries > budget:
        problems.append(f"{name}: annotation {key} runs {queries} queries, more than its {budget}")
    return problems


def template_cost_problems(name: str, annotations: dict) -> list[str]:
    """Every budget line an alert's summary and description break."""
    return [p for key in BUDGETS for p in query_problems(name, key, str(annotations.get(key) or ""))]
