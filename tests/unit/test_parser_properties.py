"""Every parser on seeded mutations of every release's captures: the right value or one InputError.

Each input is a captured fixture (tests/fixtures/pacific, reef, tentacle) with one change:
a field deleted, renamed, replaced by another type or value, perturbed within its type,
a field of a later Ceph added, keys or list items reordered. The expectation is the
independent oracle's (tests/unit/test_parser_oracles.py) on the same mutated input:

- the oracle finds nothing broken: the parser returns exactly the oracle's part (for a
  mutation of a field no parser reads, or a reorder, that is the unmutated part);
- the oracle finds a field broken: the parser raises InputError naming that field (or the
  mutated field above it).

Any other exception fails the test. The targets include the sidecar's reads of the
orchestrator (parse_orch), the running RGWs' options and the unread count they make, and the
ceph-mgr module's own reads of the manager's data (mgr_module/scale/module_parsers.py, imported
without a manager, with its bundled core's InputError). The fast paths (_bucket_fast, _pg_fast) are checked
against the checked ones on every record, and the chunked `pg dump` decode against the
whole one. Seeds are fixed: every run makes the same inputs (see INPUTS_PER_RUN).
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from ceph_scale.core import inputs, parse_orch, queued_bucket_ops, reshard_queue
from ceph_scale.core.parse_base import _obj
from ceph_scale.core.signals.reshard.running_options import rgw_running_families
from tests.unit import test_parser_oracles as oracle
from tests.unit.test_module_parsers import manager_osd_data, module_package
from tests.unit.test_parser_oracles import RELEASES, Broken, dotted, load, names

module = module_package()
# The module reads with the same core's InputError (the installer copies the core beside it).
INPUT_ERRORS = (inputs.InputError,)

VALUES: tuple[Any, ...] = (None, True, False, 0, 1, -1, -5, 7, 2**53, 1.5, 3.0, -0.0, math.nan, math.inf, "", "x",
                           "12", " 7 ", "-3", "1_0", "\u0663", "2026-11-22T21:13:07.337617+0000", [], [1], {},
                           {"a": 1})  # fmt: skip


def places(doc, path=()):
    """Every path below the root of a JSON document."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield path + (k,)
            yield from places(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield path + (i,)
            yield from places(v, path + (i,))


def edited(node, path, change):
    """A copy of `node` with change(container, key) applied at `path`; untouched parts are shared."""
    copy = dict(node) if isinstance(node, dict) else list(node)
    if len(path) == 1:
        change(copy, path[0])
    else:
        copy[path[0]] = edited(node[path[0]], path[1:], change)
    return copy


def perturbed(value, rng: random.Random):
    """Another value of the same type, as a later capture could hold."""
    if type(value) is bool:
        return not value
    if type(value) is int:
        return rng.choice([0, 1, value + 1, rng.randint(0, 10**12)])
    if type(value) is float:
        return rng.choice([0.0, value * 2, rng.uniform(0, 1e6)])
    if type(value) is str:
        return rng.choice(["", value + "x", value[::-1], "2020-02-04 10:20:30.123456"])
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: value[k] for k in keys}
    if isinstance(value, list):
        return rng.sample(value, len(value))
    return value


def mutate(doc, rng: random.Random, aimed: list[tuple]) -> tuple[object, tuple, str]:
    """(mutated document, the path changed, what was done); half the changes aim at a field the oracle reads."""
    candidates = aimed if aimed and rng.random() < 0.5 else None
    if candidates is None:
        candidates = list(places(doc))
    if not candidates or rng.random() < 0.02:
        return rng.choice(VALUES), (), "whole"
    path = rng.choice(candidates)
    action = rng.choice(["delete", "replace", "replace", "perturb", "perturb", "extra", "rename"])

    def change(container, key):
        if action == "delete":
            del container[key]
        elif action == "replace":
            container[key] = rng.choice(VALUES)
        elif action == "perturb":
            container[key] = perturbed(container[key], rng)
        elif action == "rename" and isinstance(container, dict):
            container[f"{key}x"] = container.pop(key)
        elif isinstance(container[key], dict):
            container[key] = {**container[key], "x_future_field": rng.choice(VALUES)}
        elif isinstance(container, dict):
            container["x_future_field"] = rng.choice(VALUES)

    try:
        return edited(doc, path, change), path, action
    except (KeyError, IndexError, TypeError):  # an aimed-at field this capture leaves out: add it
        pass
    try:
        return edited(doc, path, lambda c, k: c.__setitem__(k, rng.choice(VALUES))), path, "add"
    except (KeyError, IndexError, TypeError):
        return rng.choice(VALUES), (), "whole"


def names_field(message: str, field: str) -> bool:
    return re.search(re.escape(field) + r"(?=[:.\[ ]|$)", message) is not None


@dataclass
class Target:
    parse: Callable
    oracle: Callable
    field: Callable[[tuple], str]  # the parser's name for a path
    docs: Callable[[str], list[tuple]]  # each release's argument tuples
    check: Callable | None = None  # more checks on each mutated input
    releases: tuple[str, ...] = RELEASES  # the releases that have this output

    def aimed(self, args: tuple) -> list[tuple]:
        """The paths the oracle reads in these documents (from the document's index if several)."""
        oracle.Reads.seen = set()
        try:
            self.oracle(*args)
        finally:
            seen, oracle.Reads.seen = oracle.Reads.seen, None
        return sorted(seen, key=repr)


def outcome(target: Target, args: tuple):
    try:
        return target.oracle(*args), None
    except Broken as e:
        return None, e.path


def run(target: Target, release: str, n: int, seed: str) -> int:
    rng = random.Random(seed)
    cases = target.docs(release)
    aimed = [target.aimed(args) for args in cases]
    for i in range(n):
        which = i % len(cases)
        args = list(cases[which])
        doc_index = rng.randrange(len(args))
        # Multi-document oracles name their paths from the document's index.
        own = [p[1:] for p in aimed[which] if len(args) > 1 and p[0] == doc_index] if len(args) > 1 else aimed[which]
        args[doc_index], path, action = mutate(args[doc_index], rng, own)
        point = (doc_index, *path) if len(args) > 1 else path
        expected, broken = outcome(target, tuple(args))
        what = f"{seed} #{i}: {action} at {point!r}"
        try:
            got = target.parse(*args)
        except INPUT_ERRORS as e:
            assert broken is not None, f"{what}: refused valid input: {e}"
            where = point if broken[: len(point)] == point else broken
            assert names_field(str(e), target.field(where)), f"{what}: {e!s:.200} does not name {target.field(where)}"
        else:
            assert broken is None, f"{what}: accepted, but {target.field(broken)} is broken: {got!r:.300}"
            assert got == expected, f"{what}: {got!r:.300} != {expected!r:.300}"
        if target.check is not None:
            target.check(*args)
    return n


# --- the targets ---------------------------------------------------------------------------


def from_roots(*roots: str) -> Callable[[tuple], str]:
    if len(roots) == 1:
        return lambda path: dotted(roots[0], path)
    return lambda path: dotted(roots[path[0]], path[1:]) if path else roots[0]


def one(*patterns: str, shape: type = object) -> Callable[[str], list[tuple]]:
    """The captures named so (of this JSON shape: `bucket stats` is a list, `--bucket B` one object)."""
    return lambda release: [
        (doc,) for pattern in patterns for n in names(release, pattern) if isinstance(doc := load(release, n), shape)
    ]


def variants(*stems: str) -> Callable[[str], list[tuple]]:
    return lambda release: [
        tuple(load(release, f"{stem}{s}.json") for stem in stems) for s in ("", "_queued", "_resharded")
    ]


def fast_buckets_agree(doc) -> None:
    for i, b in enumerate(doc if isinstance(doc, list) else []):
        fast = inputs._bucket_fast(b, 0.0)
        if fast is not None:
            assert fast == inputs._bucket_checked(b, i, stats_at=0.0), b


def fast_pgs_agree(doc) -> None:
    stats = doc.get("pg_stats") if isinstance(doc, dict) else doc
    for i, s in enumerate(stats if isinstance(stats, list) else []):
        fast = inputs._pg_fast(s)
        if fast is not None:
            assert fast == inputs._pg_checked(s, i), s


_every_fifth = itertools.cycle([True, False, False, False, False])


def chunked_pgs_agree(doc) -> None:
    fast_pgs_agree(doc)
    if next(_every_fifth):  # encoding the whole dump again is the costly part
        raw = json.dumps(doc).encode()
        assert _result(inputs.pg_part_from_json, raw) == _result(inputs.pg_part, doc)


def _result(parse, arg):
    try:
        return parse(arg, 0.0)
    except inputs.InputError as e:
        return str(e)


def perf_field(path: tuple) -> str:
    return "perf" + "".join(f"[{k}]" if i == 0 else f".{k}" for i, k in enumerate(path))


class ManagerCounters:
    """The manager's per-daemon perf calls over oracle.manager_counters' document, answering as
    Pacific's mgr_module.py does: a daemon it has no report from has the schema {}. A value the
    document lacks (deleted by a mutation) is answered None: no answer, which must fail the read."""

    def __init__(self, doc) -> None:
        self.doc = doc

    def list_servers(self):
        return oracle.at(self.doc, "servers")

    def get_perf_schema(self, kind, ident):
        answer = oracle.at(self.doc, "schema", f"{kind}.{ident}")
        return {} if answer is None else answer

    def get_latest(self, kind, ident, path):
        return oracle.at(self.doc, "latest", f"{kind}.{ident}", path)

    def get_latest_avg(self, kind, ident, path):
        pair = oracle.at(self.doc, "avg", f"{kind}.{ident}", path)
        return tuple(pair) if type(pair) is list else pair


class WalkedCounters:
    """The stock walker alone (a manager whose per-daemon calls are renamed)."""

    def __init__(self, doc) -> None:
        self.doc = doc

    def get_all_perf_counters(self, prio_limit=0, services=()):
        return self.doc


def manager_counter_docs(release: str) -> list[tuple]:
    """Each capture's counters (mgr prometheus text) as the manager's perf calls hold them: a
    time-averaged counter once by its path (type TIME | LONGRUNAVG, sum in nanoseconds)."""
    docs = []
    for n in names(release, "mgr_prometheus_metrics*.txt"):
        counters = inputs.counters_from_prometheus_text(load(release, n))
        doc: dict[str, Any] = {"servers": [{"hostname": "h", "services": []}], "schema": {}, "latest": {}, "avg": {}}
        for daemon, values in counters.items():
            kind, _, ident = daemon.partition(".")
            doc["servers"][0]["services"].append({"type": kind, "id": ident})
            schema: dict[str, Any] = {}
            for path, value in values.items():
                base, _, half = path.rpartition(".")
                if half in ("sum", "count") and base in inputs.AVERAGED_COUNTERS:
                    schema[base] = {"type": 5, "priority": 5}
                    pair = doc["avg"].setdefault(daemon, {}).setdefault(base, [0, 0])
                    pair[0 if half == "sum" else 1] = round(value * 1e9) if half == "sum" else int(value)
                else:
                    schema[path] = {"type": 2, "priority": 5}
                    doc["latest"].setdefault(daemon, {})[path] = value
            doc["schema"][daemon] = {daemon: schema}
        docs.append((doc,))
    return docs


def walked_counter_docs(release: str) -> list[tuple]:
    """The same counters as get_all_perf_counters() hands them (mgr_module.py): each schema
    entry with "value", and "count" for a long-running average."""
    docs = []
    for (doc,) in manager_counter_docs(release):
        walked: dict[str, Any] = {}
        for daemon, answer in doc["schema"].items():
            for path, info in answer[daemon].items():
                entry = dict(info)
                if info["type"] & 4:
                    entry["value"], entry["count"] = doc["avg"][daemon][path]
                else:
                    entry["value"] = doc["latest"][daemon][path]
                walked.setdefault(daemon, {})[path] = entry
        docs.append((walked,))
    return docs


def manager_counters_field(path: tuple) -> str:
    """How module_parsers names a place in manager_counter_docs' document. A whole section has
    no name of its own in the manager's calls: ""."""
    if not path or path[0] == "servers":
        return dotted("list_servers", path[1:])
    rest = path[1:]
    if not rest:
        return ""
    if path[0] == "schema":
        return rest[0] if len(rest) <= 2 else f"{rest[0]} {rest[2]}" + "".join(f".{k}" for k in rest[3:])
    if path[0] == "latest":
        return " ".join(map(str, rest))
    return " ".join(map(str, rest[:2])) + ("" if len(rest) < 3 else ".value" if rest[2] == 0 else ".count")


def walked_counters_field(path: tuple) -> str:
    if not path:
        return "perf counters"
    return " ".join(map(str, path[:2])) + "".join(f".{k}" for k in path[2:])


def orch_docs(*stems: str) -> Callable[[str], list[tuple]]:
    return lambda release: [tuple(load(release, f"{stem}.from_cephadm_code.json") for stem in stems)]


def orch_exporters(doc):
    return [(dotted("orch_ps", p), d) for p, d in oracle.orch_exporters(doc)]


def rgw_running(service_map, shown):
    """The running RGWs' options, and the unread count the signals make of them."""
    names = inputs.rgw_daemon_names(service_map)
    running = inputs.read_rgw_running(names, lambda who, option: shown[who][option])
    snap: Any = type("Snap", (), {"settings": inputs.settings_part({}, 0.0, running, len(names))})
    unread = next(f for f in rgw_running_families(snap) if f.name.endswith("_config_unread"))
    return running, int(unread.samples[0][2])


def rgw_running_docs(release: str) -> list[tuple]:
    service_map = load(release, "service_dump.json")
    shown = {f"rgw.{name}": {o: load(release, f"config_show_rgw_{o}.json") for o in inputs.RGW_RUNNING_OPTIONS}
             for name in inputs.rgw_daemon_names(service_map)}  # fmt: skip
    return [(service_map, shown)]


def rgw_running_field(path: tuple) -> str:
    if path[:1] == (1,):
        return "config show" + "".join(f" {k}" for k in path[1:3])
    return "service map" + (": " + ".".join(map(str, path[1:])) if path[1:] else "")


def osd_df_docs(release: str) -> list[tuple]:
    """The manager's data made from the base captures, and the real CRUSH map of two roots."""
    roots = (
        {"osd_stats": load(release, "pg_dump_roots.json")["pg_map"]["osd_stats"]},
        load(release, "osd_crush_dump_roots.json"),
        load(release, "osd_dump_roots.json"),
    )
    return [manager_osd_data(release), roots]


def osd_map_docs(release: str) -> list[tuple]:
    """The plain `osd df` sets, and the `osd df tree` of a cluster with two CRUSH roots."""
    tree = tuple(load(release, f"{stem}_roots.json") for stem in ("osd_df_tree", "osd_dump", "osd_metadata"))
    return variants("osd_df", "osd_dump", "osd_metadata")(release) + [tree]


def bucket_counter_docs(release: str) -> list[tuple]:
    return [(oracle.plain_bucket_counters(load(release, n)),) for n in names(release, "mgr_get_latest_counter_*.json")]


def bucket_counts(doc) -> dict:
    """The module's read of each answer, as read_bucket_ops makes it (mgr_module/scale/bucket_ops.py)."""
    return {key: queued_bucket_ops.latest_count(answer, key) for key, answer in _obj(doc, "answers").items()}


# ceph-exporter is a cephadm daemon from Reef on: Pacific's orchestrator has none to list.
ORCH_RELEASES = tuple(r for r in RELEASES if r != "pacific")


TARGETS = {
    "buckets_part": Target(lambda d: inputs.buckets_part(d, 0.0), oracle.buckets, from_roots("bucket_stats"),
                           one("*bucket_stats*.json", shape=list), fast_buckets_agree),
    "bucket_record": Target(lambda d: inputs.bucket_record(d, 0.0), lambda d: oracle.bucket(d, (), 0.0),
                            from_roots("bucket_stats"), one("admin_api_bucket*.json", "bucket_stats*.json", shape=dict),
                            lambda d: fast_buckets_agree([d])),
    "reshard_part": Target(lambda d: inputs.reshard_part(d, 0.0), oracle.reshard, from_roots("reshard_list"),
                           one("reshard_list*.json")),
    # `*d`: the variant's documents, one per parameter before collected_at (mypy takes a star
    # argument followed by a positional one for too many arguments).
    "osd_map_part": Target(lambda *d: inputs.osd_map_part(*d, 0.0), oracle.osd_map,  # type: ignore[call-arg]
                           from_roots("osd_df", "osd_dump", "osd_metadata"), osd_map_docs),
    "capacity_part": Target(lambda *d: inputs.capacity_part(*d, 0.0), oracle.capacity, from_roots("df", "osd_dump"),  # type: ignore[call-arg]
                            variants("df_detail", "osd_dump")),
    "health_part": Target(lambda d: inputs.health_part(d, 0.0), oracle.health, from_roots("health"),
                          one("health_detail*.json")),
    "pg_part": Target(lambda d: inputs.pg_part(d, 0.0), oracle.pgs, from_roots("pg_dump"), one("pg_dump_pgs*.json"),
                      chunked_pgs_agree),
    "settings_part": Target(lambda d: inputs.settings_part(d, 0.0), oracle.settings,
                            lambda p: p[0] if p else "settings", one("config_get*.json")),
    "rgw_daemon_names": Target(inputs.rgw_daemon_names, oracle.rgw_names,
                               lambda p: "service map: " + ".".join(map(str, p)) if p else "service map",
                               one("service_dump.json")),
    "metadata_page": Target(lambda d: inputs.metadata_page(d, "bucket"), oracle.metadata_page,
                            from_roots("metadata bucket"), one("admin_api_metadata_*_page.json")),
    "instance_shards": Target(inputs.instance_shards, oracle.instance_shards, from_roots("bucket.instance"),
                              one("*metadata_bucket_instance.json", "metadata_bucket_instance_*.json")),
    "perf_part": Target(lambda d: inputs.perf_part(d, 0.0), oracle.perf, perf_field,
                        lambda r: [(inputs.counters_from_prometheus_text(load(r, n)),)
                                   for n in names(r, "mgr_prometheus_metrics*.txt")]),
    "host_addresses": Target(parse_orch.host_addresses, oracle.host_addresses, from_roots("orch_host_ls"),
                             orch_docs("orch_host_ls"), releases=ORCH_RELEASES),
    "exporters": Target(parse_orch.exporters, orch_exporters, from_roots("orch_ps"),
                        orch_docs("orch_ps_ceph_exporter"), releases=ORCH_RELEASES),
    "exporter_urls": Target(lambda ps, hosts: parse_orch.exporter_urls(parse_orch.exporters(ps),
                                                                       parse_orch.host_addresses(hosts)),
                            oracle.exporter_urls, from_roots("orch_ps", "orch_host_ls"),
                            orch_docs("orch_ps_ceph_exporter", "orch_host_ls"), releases=ORCH_RELEASES),
    "read_rgw_running": Target(rgw_running, oracle.rgw_running, rgw_running_field, rgw_running_docs),
    "module_osd_df_from_stats": Target(module.sources.osd_df_from_stats, oracle.osd_df_from_stats,
                                       from_roots("osd_stats", "osd_map_crush", "osd_map"), osd_df_docs),
    "bucket_counts": Target(bucket_counts, oracle.bucket_counts, lambda p: dotted(str(p[0]), p[1:]) if p else "answers",
                            bucket_counter_docs, releases=("tentacle",)),
    "module_fetch_counters": Target(lambda d: module.sources.fetch_counters(ManagerCounters(d)),
                                    oracle.manager_counters, manager_counters_field, manager_counter_docs),
    "module_fetch_counters_fallback": Target(lambda d: module.sources.fetch_counters_fallback(WalkedCounters(d)),
                                             oracle.walked_counters, walked_counters_field, walked_counter_docs),
}  # fmt: skip
# Mutated inputs per target and release; pg_part's are the largest documents.
PER_RELEASE = {name: 300 for name in TARGETS} | {"pg_part": 150, "perf_text": 300, "reshard_entry": 300}
INPUTS_PER_RUN = sum(
    n * len(TARGETS[name].releases if name in TARGETS else RELEASES) for name, n in PER_RELEASE.items()
)


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_a_mutated_capture_gives_the_right_part_or_an_error_naming_the_field(name):
    for release in TARGETS[name].releases:
        run(TARGETS[name], release, PER_RELEASE[name], f"{name}:{release}")


# --- the mgr prometheus text ------------------------------------------------------------------

_LINE = re.compile(r'^(ceph_[a-zA-Z0-9_]+)\{(?:ceph_daemon="([^"]*)"|instance_id="([^"]*)")')
_PATHS = {"ceph_" + c.replace(".", "_"): c for c in inputs.PERF_COUNTERS}


def text_mutation(lines: list[str], base: dict, rng: random.Random):
    """(mutated text, the counters it now holds or the line number that must be refused)."""
    i = rng.randrange(len(lines))
    m = _LINE.match(lines[i])
    key = (m.group(2) or f"rgw.{m.group(3)}", _PATHS[m.group(1)]) if m and m.group(1) in _PATHS else None
    counters = {d: dict(c) for d, c in base.items()}
    action = rng.choice(["delete", "value", "value", "garbage", "shuffle"])
    if action == "delete":
        if key is not None:
            del counters[key[0]][key[1]]
        return lines[:i] + lines[i + 1 :], counters
    if action == "shuffle":  # every sample on its own line: order is free
        return rng.sample(lines, len(lines)), counters
    head, _, _ = lines[i].rpartition(" ")
    if action == "value":
        value = rng.choice([0, 7, rng.randint(0, 10**12), -5, 1.5])
        if key is not None:
            counters[key[0]][key[1]] = float(value)
        return lines[:i] + [f"{head} {value}"] + lines[i + 1 :], counters
    garbage = rng.choice(["NaN", "+Inf", "abc", ""])
    return lines[:i] + [f"{head} {garbage}"] + lines[i + 1 :], (i + 1 if key is not None else counters)


def test_a_mutated_mgr_metrics_text_gives_the_right_counters_or_an_error_naming_the_line():
    for release in RELEASES:
        rng = random.Random(f"perf_text:{release}")
        texts = [load(release, n) for n in names(release, "mgr_prometheus_metrics*.txt")]
        for k in range(PER_RELEASE["perf_text"]):
            text = texts[k % len(texts)]
            lines = text.splitlines()
            mutated, expect = text_mutation(lines, inputs.counters_from_prometheus_text(text), rng)
            if isinstance(expect, int):
                with pytest.raises(inputs.InputError, match=rf"line {expect}:"):
                    inputs.counters_from_prometheus_text("\n".join(mutated) + "\n")
                continue
            counters = inputs.counters_from_prometheus_text("\n".join(mutated) + "\n")
            assert counters == {d: c for d, c in expect.items() if c}
            try:
                want, broken = oracle.perf(counters), None
            except Broken as e:
                want, broken = None, e.path
            if broken is None:
                assert inputs.perf_part(counters, 0.0) == want
            else:
                with pytest.raises(inputs.InputError, match=re.escape(perf_field(broken))):
                    inputs.perf_part(counters, 0.0)


# --- the raw reshard queue entry -----------------------------------------------------------------


def entry_oracle(raw: bytes):
    """cls_rgw_reshard_entry as src/cls/rgw/cls_rgw_types.h encodes it, read independently."""
    pos = 0

    def take(n):
        nonlocal pos
        if pos + n > len(raw):
            raise Broken(("truncated",))
        pos += n
        return raw[pos - n : pos]

    version, compat = take(1)[0], take(1)[0]
    if compat > 2:
        raise Broken(("compat",))
    (length,) = struct.unpack("<I", take(4))
    end = pos + length
    if end > len(raw):
        raise Broken(("length",))
    take(8)
    strings = []
    for _ in range(4 if version < 2 else 3):
        (n,) = struct.unpack("<I", take(4))
        if n > 4096:
            raise Broken(("string",))
        try:
            strings.append(take(n).decode("utf-8"))
        except UnicodeDecodeError:
            raise Broken(("string",)) from None
    old, new = struct.unpack("<II", take(8))
    if pos > end:
        raise Broken(("length",))
    return (strings[1], strings[0], strings[2], old, new, version < 2 and bool(strings[3]))


def test_a_mutated_raw_reshard_entry_decodes_as_encoded_or_is_refused():
    for release in RELEASES:
        rng = random.Random(f"reshard_entry:{release}")
        good = (oracle.FIXTURES / release / "reshard_entry.bin").read_bytes()
        for _ in range(PER_RELEASE["reshard_entry"]):
            raw = bytearray(good)
            action = rng.choice(["flip", "flip", "cut", "grow"])
            if action == "flip":
                raw[rng.randrange(len(raw))] = rng.randrange(256)
            elif action == "cut":
                raw = raw[: rng.randrange(len(raw))]
            else:
                raw += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
            try:
                want = entry_oracle(bytes(raw))
            except Broken:
                with pytest.raises(inputs.InputError, match="^reshard entry: "):
                    reshard_queue.decode_entry(bytes(raw))
                continue
            e = reshard_queue.decode_entry(bytes(raw))
            assert (e.bucket, e.tenant, e.bucket_id, e.old_num_shards, e.new_num_shards, e.in_progress) == want


def test_each_run_makes_at_least_ten_thousand_inputs_from_every_release():
    assert INPUTS_PER_RUN >= 10_000
    for name, target in TARGETS.items():
        for release in target.releases:
            assert target.docs(release), (name, release)  # a target without fixtures would test nothing
