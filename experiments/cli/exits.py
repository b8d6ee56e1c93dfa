"""How the console script ends: the same way every time."""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

# Every code a villagelab command ends with: (name, when). The README, docs/design.md and the
# site's reference page (docs/hooks/reference.py) say these; a test holds every literal exit
# in experiments/ and the gate's verdict codes to this table.
EXIT_CODES: dict[int, tuple[str, str]] = {
    0: ("ok", "done; search, sweep and report also when they meet broken guardrails"),
    1: ("regression", "the gate found a regression, or a guardrail broke (gate, run, score)"),
    2: ("bad input or error", "a wrong file or option, an unfinished episode, or a bug"),
    3: ("incompatible baseline", "missing, or made with another instrument or agent"),
    130: ("interrupted", "Ctrl-C; what the command started is stopped first"),
    143: ("terminated", "SIGTERM; what the command started is stopped first"),
}


def entry() -> None:
    """The console script: `main`, then an exit that is the same every time. Whatever the
    command started is stopped first (threads joined, exit hooks run: the Ray cluster, the
    process records), the output flushed, and then the process ends with the command's code
    at once (os._exit). Left to the interpreter's own teardown, native thread pools still alive
    (pyarrow's, Ray's) could be destroyed while running, and a loaded machine turned a refusal
    (exit 2) into "terminate called without an active exception" (SIGABRT)."""
    from experiments.cli.main import main

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminated)
    try:
        main()
        code = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:  # as the interpreter does with a message
            print(exc.code, file=sys.stderr)
            code = 1
    finish(TERMINATED if _sigterm_received else code)


TERMINATED = 143  # 128 + SIGTERM, as a shell reports it
_sigterm_received: list[int] = []


def terminated(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (kill, a scheduler, a CI runner's timeout) ends a command as Ctrl-C does: what
    it started is stopped first, and it exits 143 — whatever the exit was turned into on the
    way out (inside ray.get, Ray makes any SystemExit an exit 1)."""
    _sigterm_received.append(signum)
    sys.exit(TERMINATED)


def finish(code: int) -> None:
    """Stop what was started, flush, and end the process with `code`."""
    import atexit
    import logging
    import threading

    try:
        threading._shutdown()  # type: ignore[attr-defined]  # the interpreter's own first step
        atexit._run_exitfuncs()
        logging.shutdown()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
