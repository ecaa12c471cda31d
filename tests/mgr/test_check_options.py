"""The health checks' options: declared once with the checks (core/signals/check_options.py),
offered by the module under the same names, and read back into the checks unchanged."""

from __future__ import annotations

import math

from scale import options

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import OPTION_FIELDS, CheckOptions


def test_each_check_option_is_a_module_option_as_the_checks_declare_it():
    specs = {s.name: s for s in options.all_specs()}
    assert OPTION_FIELDS and "history_seconds" not in {f.name for f in OPTION_FIELDS}
    for field in OPTION_FIELDS:
        spec = specs[field.name]
        assert (spec.default, spec.desc) == (field.default, field.metadata["doc"])
        assert (spec.min, spec.max) == (field.metadata["min"], field.metadata["max"])


def test_the_modules_settings_become_the_checks_options():
    settings = options.read_module_settings(lambda name: {"load_warn_ratio": "2.5"}.get(name))
    opts = CheckOptions.from_settings(settings, history_seconds=60.0)
    assert opts == CheckOptions(load_warn_ratio=2.5, history_seconds=60.0)
    assert CheckOptions.from_settings(options.read_module_settings(lambda name: None)) == CheckOptions()


def test_forecasts_wait_for_the_span_a_forecast_is_fitted_over():
    th = Thresholds()
    assert not CheckOptions(history_seconds=th.forecast_min_span_seconds - 1).forecasts(th)
    assert CheckOptions(history_seconds=th.forecast_min_span_seconds).forecasts(th)
    assert CheckOptions(history_seconds=math.inf).forecasts(Thresholds(forecast_min_span_seconds=0))
