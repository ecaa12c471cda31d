"""Each OSD's CRUSH root, from both producers' reads of a real cluster with two roots
(tests/fixtures/<release>/CAPTURED.md, set `_roots`: osd.2 under host `archive-host` of root
`archive`, osd.0 and osd.1 under root `default`): the sidecar's `osd df tree`, and the module's
CRUSH map (`osd crush dump` is CrushWrapper::dump, as the manager's get("osd_map_crush")) with the
PG map's OSD stats, give the same OSDs with the same roots."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import pytest

from ceph_scale.core import inputs
from tests.unit.test_module_parsers import m

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RELEASES = ("pacific", "reef", "tentacle")
ROOTS = {0: "default", 1: "default", 2: "archive"}


def load(release: str, name: str):
    return json.loads((FIXTURES / release / f"{name}_roots.json").read_text())


def sidecar_part(release: str, df=None):
    return inputs.osd_map_part(
        df if df is not None else load(release, "osd_df_tree"),
        load(release, "osd_dump"),
        load(release, "osd_metadata"),
        0.0,
    )


def module_part(release: str, crush=None):
    stats = {"osd_stats": load(release, "pg_dump")["pg_map"]["osd_stats"]}
    dump = load(release, "osd_dump")
    df = m.sources.osd_df_from_stats(stats, crush if crush is not None else load(release, "osd_crush_dump"), dump)
    return inputs.osd_map_part(df, dump, load(release, "osd_metadata"), 0.0)


@pytest.mark.parametrize("release", RELEASES)
def test_each_osd_has_its_root_from_the_tree_and_from_the_crush_map(release):
    sidecar, module = sidecar_part(release), module_part(release)
    assert {o.osd_id: o.crush_root for o in sidecar.osds} == ROOTS
    assert {o.osd_id: o.crush_root for o in module.osds} == ROOTS
    # The tree's answer is the plain one's OSDs, with their roots: nothing else changes.
    plain = {"nodes": [n for n in load(release, "osd_df_tree")["nodes"] if n["id"] >= 0], "stray": []}
    assert [o.crush_root for o in sidecar_part(release, plain).osds] == ["", "", ""]
    assert [dataclasses.replace(o, crush_root="") for o in sidecar.osds] == list(sidecar_part(release, plain).osds)


@pytest.mark.parametrize("release", RELEASES)
def test_an_osd_in_no_bucket_is_listed_as_a_stray_without_a_root(release):
    """`ceph osd crush rm osd.2` leaves osd.2 in the map but in no bucket: `osd df tree` lists it
    under "stray"; the module's CRUSH map has it in no bucket's items."""
    tree = copy.deepcopy(load(release, "osd_df_tree"))
    node = next(n for n in tree["nodes"] if n["id"] == 2)
    tree["nodes"] = [n for n in tree["nodes"] if n["id"] != 2]
    for n in tree["nodes"]:
        n["children"] = [c for c in n.get("children", []) if c != 2] if "children" in n else n.get("children")
        if n.get("children") is None:
            n.pop("children")
    tree["stray"] = [node]
    assert {o.osd_id: o.crush_root for o in sidecar_part(release, tree).osds} == {0: "default", 1: "default", 2: ""}
    crush = copy.deepcopy(load(release, "osd_crush_dump"))
    for b in crush["buckets"]:
        b["items"] = [i for i in b["items"] if i["id"] != 2]
    assert {o.osd_id: o.crush_root for o in module_part(release, crush).osds} == {0: "default", 1: "default", 2: ""}


@pytest.mark.parametrize("release", RELEASES)
def test_an_osd_linked_under_two_roots_is_read_once_under_the_first_listed(release):
    """`ceph osd crush link` puts a host under a second root as well: `osd df tree` lists its OSDs
    under each. They are read once, under the root listed first."""
    tree = copy.deepcopy(load(release, "osd_df_tree"))
    roots = [n for n in tree["nodes"] if n.get("type") == "root"]
    first, other = roots[0], roots[1]
    host = next(n for n in tree["nodes"] if n["id"] in other["children"])
    first["children"].append(host["id"])
    linked = [n for n in tree["nodes"] if n["id"] in host["children"]]
    tree["nodes"] += copy.deepcopy(linked)  # listed again under the first root
    part = sidecar_part(release, tree)
    assert sorted(o.osd_id for o in part.osds) == [0, 1, 2]
    assert {o.osd_id: o.crush_root for o in part.osds if o.osd_id in {n["id"] for n in linked}} == {
        n["id"]: first["name"] for n in linked
    }
    assert first["name"] != ROOTS[linked[0]["id"]]  # not the root it had alone


@pytest.mark.parametrize("release", RELEASES)
def test_a_root_is_the_bucket_under_no_other_whatever_its_type_is_named(release):
    """A CRUSH map may name its top type otherwise ("region"): a bucket no other lists as a child
    is a root; a host alone at the top (a host moved out of every root) is its OSDs' root."""
    tree = copy.deepcopy(load(release, "osd_df_tree"))
    for n in tree["nodes"]:
        if n.get("type") == "root":
            n["type"] = "region"
    assert {o.osd_id: o.crush_root for o in sidecar_part(release, tree).osds} == ROOTS


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda t: t["nodes"].append(dict(next(n for n in t["nodes"] if n["id"] < 0))), "is listed twice"),
        (lambda t: next(n for n in t["nodes"] if n["id"] < 0).pop("children"), ".children: missing"),
        (lambda t: next(n for n in t["nodes"] if n["id"] < 0).update(children="x"), ".children: expected a list"),
        (lambda t: t.update(stray={}), "osd_df.stray: expected a list"),
    ],
)
def test_a_broken_tree_is_one_line_naming_the_field(edit, says):
    tree = copy.deepcopy(load("reef", "osd_df_tree"))
    edit(tree)
    with pytest.raises(inputs.InputError) as e:
        sidecar_part("reef", tree)
    assert says in str(e.value) and "\n" not in str(e.value)
