"""Reading the families a derivation returns: one family's samples by their labels."""

from __future__ import annotations


def samples(families, name):
    """{label dict as sorted tuple: value} of one family (labels without cluster)."""
    for f in families:
        if f.name == name:
            return {
                tuple((n, v) for n, v in zip(f.label_names, lv) if n != "cluster")
                + ((("suffix", s),) if s else ()): val
                for s, lv, val in f.samples
            }
    return None
