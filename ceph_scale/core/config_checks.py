"""The checks of one setting's value, from a config file, an option or the command line: the
thresholds (core/config.py) and the producers' own options use the same ones."""

from __future__ import annotations

import re
from typing import Any

NAME_LIST = re.compile(r"[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*")


class ConfigError(ValueError):
    pass


def check_names(name: str, raw: Any) -> str:
    """A comma-separated list of names, given as text or a list; spaces are dropped."""
    items = raw if isinstance(raw, (list, tuple)) else str(raw).split(",")
    text = ",".join(str(i).strip() for i in items if str(i).strip())
    if not NAME_LIST.fullmatch(text):
        raise ConfigError(f"{name}: expected comma-separated names (letters, digits, _ . -), got {raw!r}")
    return text


def check_number(name: str, raw: Any, whole: bool, minimum: float | None, maximum: float | None) -> float | int:
    """A number from a config file, an option or the command line: whole where `whole`, within
    [minimum, maximum] where given. The one check of every numeric threshold and module option."""
    if isinstance(raw, bool):
        raise ConfigError(f"{name}: expected a number, got {raw!r}")
    try:
        value = float(raw) if not isinstance(raw, (int, float)) else raw
    except (TypeError, ValueError):
        raise ConfigError(f"{name}: expected a number, got {raw!r}") from None
    if value != value:  # NaN
        raise ConfigError(f"{name}: NaN is not a valid value")
    if value in (float("inf"), float("-inf")):
        raise ConfigError(f"{name}: expected a finite number, got {raw!r}")
    if whole:
        if float(value) != int(value):
            raise ConfigError(f"{name}: expected a whole number, got {raw!r}")
        value = int(value)
    else:
        value = float(value)
    if minimum is not None and value < minimum or maximum is not None and value > maximum:
        raise ConfigError(f"{name}: {value} is outside [{minimum}, {maximum}]")
    return value
