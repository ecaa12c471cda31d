"""Exit 0 when the manager needs the bcrypt stand-in, else 1.

Needed when both hold:
- the manager runs modules in sub-interpreters: every release before Tentacle. Tentacle runs
  them in the main interpreter unless listed in `mgr_subinterpreter_modules`, an option the
  older releases do not know (`ceph-conf -D` lists the options this Ceph knows, offline);
- this Python's bcrypt cannot be imported in a sub-interpreter (a PyO3 build: Debian 13,
  Ubuntu 24.04). Debian 12's cffi bcrypt 3.x loads.

Run with the manager's own Python: `python3 needs_bcrypt_stand_in.py`.
"""

import subprocess
import sys


def main_interpreter_by_default() -> bool:
    try:
        options = subprocess.run(["ceph-conf", "-D"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False  # cannot tell: assume sub-interpreters, as every release before Tentacle
    return any(line.startswith("mgr_subinterpreter_modules") for line in options.splitlines())


def bcrypt_fails_in_a_subinterpreter() -> bool:
    try:
        import _interpreters as interpreters  # Python 3.13+
    except ImportError:
        try:
            import _xxsubinterpreters as interpreters  # Python 3.8-3.12
        except ImportError:
            return False
    try:
        import bcrypt  # noqa: F401
    except ImportError:
        return False  # no bcrypt at all: nothing to stand in for
    interp = interpreters.create()
    try:
        failure = interpreters.run_string(interp, "import bcrypt")
    except Exception:  # Python 3.12 and older raise; 3.13 returns the failure
        failure = True
    finally:
        interpreters.destroy(interp)
    return bool(failure)


if __name__ == "__main__":
    sys.exit(0 if not main_interpreter_by_default() and bcrypt_fails_in_a_subinterpreter() else 1)
