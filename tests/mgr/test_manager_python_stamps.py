"""Pacific's stamps read by each newer release manager's own Python.

The module parses `pg dump` in the manager's interpreter: Python 3.13 on Debian's Reef, 3.14 on
Tentacle's, whose `datetime.fromisoformat` reads more than this machine's 3.11 ("24:00", for one:
without the fast path's hour guard this test fails on Tentacle).
The stamp fast path takes fromisoformat where the Python reads Pacific's format; on every stamp it
must still give what strptime gives, or refuse what strptime refuses.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"

# Run by the release's python3 from the checkout: each stamp's outcome through the fast path and
# through strptime alone, and the stamps where they differ.
COMPARE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from ceph_scale.core.parse_base import _ISO_READS_PACIFIC, InputError, parse_stamp, stamp_by_formats

def outcome(read, s):
    try:
        return ["ok", read(s)]
    except InputError as e:
        return ["error", str(e)]

stamps = json.load(sys.stdin)
differ = [s for s in stamps
          if outcome(lambda v: parse_stamp(v, "x"), s) != outcome(lambda v: stamp_by_formats(v.strip(), "x"), s)]
print(json.dumps({"python": sys.version.split()[0], "iso": _ISO_READS_PACIFIC, "differ": differ[:10]}))
"""

EDGES = [
    "2026-11-22T24:00:00.000000+0000",  # 3.14 reads the next day's midnight; strptime refuses it
    "2026-11-22T23:59:60.000000+0000",
    "2026-W47-1T21:13:27.243640+0000",
    "2026-11-22x21:13:27.243640+0000",
    "2026-11-22T21:13:27.243640+0060",
    "2026-11-22T21:13:27.243640+2400",
    "2026-11-22T21:13:27.243640+00:0",
    "2026-11-22T21:13:27.243640+00,0",
    "2026-11-22T21:13:27.243640Z0000",
    "2026-11-22T21:13:27.２43640+0000",
    "0000-01-01T00:00:00.000000+0000",
    "9999-12-31T23:59:59.999999-0130",
]


def stamps_to_compare() -> list[str]:
    """The captured dumps' stamps, and each changed at one to three places, 20,000 of them."""
    captured = set()
    for path in FIXTURES.glob("*/pg_dump_pgs*.json"):
        for pg in json.loads(path.read_text())["pg_stats"]:
            captured |= {v for k, v in pg.items() if k.endswith("_stamp") and isinstance(v, str)}
    rnd = random.Random(29)
    base = sorted(captured)
    changed = []
    for _ in range(20_000):
        chars = list(rnd.choice(base))
        for _ in range(rnd.randint(1, 3)):
            chars[rnd.randrange(len(chars))] = rnd.choice("0123456789-:T.+ZtWx,２ 5")
        changed.append("".join(chars))
    return EDGES + base + changed


@pytest.mark.parametrize("release_name", ["reef", "tentacle"])
def test_the_managers_python_reads_every_stamp_as_strptime_does(release_name):
    from cluster.mgr_modules import show_checkout_in_root
    from cluster.releases import release

    r = release(release_name)
    show_checkout_in_root(r, REPO)
    run = subprocess.run(
        [*r.python, "-c", COMPARE, str(REPO)],
        input=json.dumps(stamps_to_compare()),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["python"].startswith("3.1") and out["iso"], out  # the fromisoformat path is the one taken
    assert out["differ"] == [], out
