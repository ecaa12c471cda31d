"""Exit 0 when the manager needs the bcrypt stand-in, 1 when it does not, 2 when this cannot tell.

Needed when both hold:
- the manager runs modules in sub-interpreters: every release before Tentacle. Tentacle runs
  them in the main interpreter unless listed in `mgr_subinterpreter_modules`, an option the
  older releases do not know (`ceph-conf -D` lists the options this Ceph knows, offline);
- this Python's bcrypt cannot be imported in a sub-interpreter (a PyO3 build: Debian 13,
  Ubuntu 24.04). Debian 12's cffi bcrypt 3.x loads.

Run with the manager's own Python, isolated: `python3 -I needs_bcrypt_stand_in.py`. The
question is about the system's bcrypt: -I keeps the script's directory, the working directory,
PYTHONPATH and the user's site out of the path, so no other `bcrypt` (the stand-in in a module
directory, say) can answer for it; one that does all the same is refused (exit 2).
"""

import subprocess
import sys

STAND_IN_VERSION = "0+ceph-scale"  # stand_in/bcrypt's __version__ starts so


class StandInOnPath(Exception):
    """The `bcrypt` this Python imports is the stand-in, not the system's."""


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
        import bcrypt
    except ImportError:
        return False  # no bcrypt at all: nothing to stand in for
    if str(getattr(bcrypt, "__version__", "")).startswith(STAND_IN_VERSION):
        raise StandInOnPath(bcrypt.__file__)
    interp = interpreters.create()
    try:
        failure = interpreters.run_string(interp, "import bcrypt")
    except Exception:  # Python 3.12 and older raise; 3.13 returns the failure
        failure = True
    finally:
        interpreters.destroy(interp)
    return bool(failure)


def main() -> int:
    if main_interpreter_by_default():
        return 1
    try:
        return 0 if bcrypt_fails_in_a_subinterpreter() else 1
    except StandInOnPath as e:
        print(f"needs_bcrypt_stand_in.py: the bcrypt on this path is the stand-in ({e}), not the system's:"
              " run it as python3 -I needs_bcrypt_stand_in.py", file=sys.stderr)  # fmt: skip
        return 2


if __name__ == "__main__":
    sys.exit(main())
