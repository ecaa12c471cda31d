"""The annotation query budget (rules/template_cost.py), on templates written to get past it."""

from __future__ import annotations

import pytest

from rules.template_cost import actions, query_problems

TOP3 = "{{ range printf \"topk(3, ceph_scale_bluefs_spilled_top_bytes{cluster='%s'})\" $labels.cluster | query }}"
THRESHOLD = "cluster_option:ceph_scale_config:max{cluster='%s',option='fill_target_ratio'}"


def problems(template: str, key: str = "description") -> list[str]:
    return query_problems("A", key, template)


def test_a_shipped_shape_is_within_the_budget():
    assert problems(TOP3 + " {{ .Labels.ceph_daemon }}{{ else }}none{{ end }}") == []


@pytest.mark.parametrize(
    "template, expected",
    [
        # two queries in one action count two
        ('{{ if and (query "a") (query "b") }}x{{ end }}', "A: annotation summary runs 2 queries, more than its 1"),
        # a `}}` inside a string literal does not end the action
        (
            '{{ with printf "x}}y" | query }}a{{ end }}{{ with query "b" }}b{{ end }}',
            "A: annotation summary runs 2 queries, more than its 1",
        ),
    ],
)
def test_the_summary_budget_counts_every_query_written(template, expected):
    assert expected in problems(template, "summary")


def test_a_query_per_item_of_a_range_is_refused_and_one_in_its_else_is_not():
    nested = TOP3 + '{{ with query "max(ceph_scale_hdd_osds)" }}{{ . }}{{ end }}{{ end }}'
    assert problems(nested) == ["A: annotation description runs a query inside a range, once per item"]
    in_else = TOP3 + 'x{{ else }}{{ with query "max(ceph_scale_hdd_osds)" }}{{ . }}{{ end }}{{ end }}'
    assert problems(in_else) == []


@pytest.mark.parametrize(
    "query",
    [
        THRESHOLD,
        f"max({THRESHOLD})",
        f"scalar({THRESHOLD})",
        "max(ceph_scale_config{cluster='%s',option='fill_target_ratio'})",
    ],
)
def test_a_threshold_read_alone_is_refused_in_any_wrapping(query):
    template = f'{{{{ with printf "{query}" $labels.cluster | query }}}}{{{{ . | first | value }}}}{{{{ end }}}}'
    assert problems(template) == [
        "A: annotation description queries a threshold alone (fill_target_ratio): name the option"
    ]


def test_a_threshold_query_built_in_a_variable_is_refused():
    template = f'{{{{ $q := printf "{THRESHOLD}" $labels.cluster }}}}{{{{ with query $q }}}}{{{{ . }}}}{{{{ end }}}}'
    assert problems(template) == [
        "A: annotation description queries a threshold alone (fill_target_ratio): name the option"
    ]


def test_a_threshold_used_as_a_filter_is_not_refused():
    template = (
        "{{ range printf \"topk(3, ceph_scale_hdd_osd_hotspot_ratio{cluster='%s'} > scalar("
        + THRESHOLD
        + '))" $labels.cluster | query }}{{ . }}{{ end }}'
    )
    assert problems(template) == []


def test_comments_do_not_count_and_template_definitions_are_refused():
    assert problems("{{/* a query here would cost */}}{{ $value }}", "summary") == []
    assert "A: annotation description uses `define`, whose queries cannot be counted" in problems(
        '{{ define "t" }}{{ query "x" }}{{ end }}{{ template "t" . }}'
    )


def test_actions_keep_string_literals_apart_from_code():
    assert actions('a {{- with printf "x}}y" | query -}} b') == [('with printf "" | query', ["x}}y"])]
