"""Exit 0 when this Python's bcrypt cannot be imported in a sub-interpreter (a PyO3 build), else 1.

Run with the manager's own Python: `python3 needs_bcrypt_stand_in.py`. Python 3.12+ can make a
sub-interpreter from Python code (Pacific's Debian 12 ships the cffi bcrypt 3.x, which loads).
"""

import sys

try:
    import _interpreters as interpreters  # Python 3.13+
except ImportError:
    try:
        import _xxsubinterpreters as interpreters  # Python 3.8-3.12
    except ImportError:
        sys.exit(1)

try:
    import bcrypt  # noqa: F401
except ImportError:
    sys.exit(1)  # no bcrypt at all: nothing to stand in for

interp = interpreters.create()
try:
    failure = interpreters.run_string(interp, "import bcrypt")
except Exception:  # Python 3.12 raises; 3.13 returns the failure
    failure = True
finally:
    interpreters.destroy(interp)
sys.exit(0 if failure else 1)
