"""What `runner report` and `runner compare` exit with when they themselves fail.

README's exit codes are the runner's: 1 means "a point failed" (or compare's gate failed), 2 a
usage error, 3 the environment. A report that crashes is none of these, and a script that runs a
study and then its report must tell a crashed report from a failed point: an uncaught exception
(a bug, or records this release cannot read) prints its traceback and exits 5.
"""

from __future__ import annotations

import os
import sys
import traceback

ANALYSIS_FAILED = 5


def exit_5_on_crash(command: str) -> None:
    """From here on, an exception nobody caught ends the process with exit code 5, after its
    traceback and a line saying what failed (Ctrl-C stays 130, as for the runner)."""

    def hook(kind, value, tb):
        if issubclass(kind, KeyboardInterrupt):
            code = 130
        else:
            traceback.print_exception(kind, value, tb)
            print(f"error: {command} failed ({kind.__name__}: {value}); the traceback above "
                  f"says where. Exit code {ANALYSIS_FAILED}: the {command.split()[-1]} itself "
                  "failed, not a point of the run", file=sys.stderr)
            code = ANALYSIS_FAILED
        sys.stdout.flush()
        sys.stderr.flush()
        # The hook runs as the interpreter gives up, which would exit 1 after it.
        os._exit(code)

    sys.excepthook = hook
