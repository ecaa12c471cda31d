"""The user-quota parser (parse_buckets.user_quota) over every release's captured answers, and
mutated: the right value or one line naming the field, never a silent zero."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ceph_scale.core.parse_base import InputError
from ceph_scale.core.parse_buckets import user_quota

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RELEASES = ("pacific", "reef", "tentacle")
# What cluster/capture_quotas.py set (CAPTURED.md): (max_size, max_objects), both enabled.
SET = {"acme_ops": ("acme$ops", 1073741824, 100000), "quota-web": ("quota-web", 2147483648, -1)}
FILES = ("user_info_quota_{}.json", "admin_api_user_quota_only_{}.json", "admin_api_user_quota_{}.json")
CAPTURES = [(r, f.format(name), *SET[name]) for r in RELEASES for name in SET for f in FILES]


def load(release: str, name: str):
    return json.loads((FIXTURES / release / name).read_text())


def quota_object(doc):
    """The quota object inside an answer: the `?quota` answer is one, `user info` holds it."""
    return doc["user_quota"] if "user_quota" in doc else doc


@pytest.mark.parametrize(("release", "name", "owner", "size", "objects"), CAPTURES)
def test_every_releases_answers_give_the_quota_that_was_set(release, name, owner, size, objects):
    q = user_quota(load(release, name), owner, 5.0)
    assert (q.owner, q.max_bytes, q.max_objects, q.read_at) == (owner, size, objects, 5.0)


@settings(max_examples=60, deadline=None)
@given(
    capture=st.sampled_from(CAPTURES),
    size=st.integers(-(2**40), 2**62),
    objects=st.integers(-(2**40), 2**62),
    enabled=st.booleans(),
)
def test_any_values_are_read_as_rgw_applies_them(capture, size, objects, enabled):
    release, name, owner, *_ = capture
    doc = load(release, name)
    quota_object(doc).update(enabled=enabled, max_size=size, max_objects=objects)
    q = user_quota(doc, owner, 0.0)
    # RGW applies neither limit while disabled, and reads a negative one as none.
    assert q.max_bytes == (size if enabled and size >= 0 else -1)
    assert q.max_objects == (objects if enabled and objects >= 0 else -1)


BAD = (None, "lots", 1.5, [1], {"a": 1}, True)


@settings(max_examples=80, deadline=None)
@given(
    capture=st.sampled_from(CAPTURES),
    field=st.sampled_from(("enabled", "max_size", "max_objects")),
    bad=st.sampled_from(BAD),
    drop=st.booleans(),
)
def test_a_missing_or_wrong_field_is_one_line_naming_it(capture, field, bad, drop):
    release, name, owner, *_ = capture
    doc = load(release, name)
    q = quota_object(doc)
    if drop:
        del q[field]
    elif field == "enabled" and isinstance(bad, bool):
        return  # a boolean is a valid `enabled`
    elif field != "enabled" and bad is True:
        q[field] = True  # a boolean is no count
    else:
        q[field] = bad
    with pytest.raises(InputError) as e:
        user_quota(doc, owner, 0.0)
    message = str(e.value)
    assert "\n" not in message and field in message and owner in message


@pytest.mark.parametrize("answer", [None, [], "x", 3, {"user_quota": []}])
def test_an_answer_of_the_wrong_shape_is_one_line(answer):
    with pytest.raises(InputError, match=r"^user acme\$ops"):
        user_quota(copy.deepcopy(answer), "acme$ops", 0.0)
