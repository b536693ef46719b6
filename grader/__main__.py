"""`python -m grader` is the `grade` command."""
# PYTHON_ARGCOMPLETE_OK: argcomplete's mark for a script
# that answers completion requests (grader.cli_complete)

from __future__ import annotations

import os
import sys
from typing import NoReturn

from grader.cli import main


def run() -> NoReturn:
    """`grade`: main(), then, where torch was imported
    here, leave without the interpreter's teardown.

    Tearing torch down costs about 0.4 s, as much as the rest of grading a torch exercise
    beyond its own `import torch`; by then every report is written and every zygote closed,
    and nothing here registers work for exit time, so only the output buffers need flushing.
    """
    code = main()
    if "torch" not in sys.modules:
        raise SystemExit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            # a closed pipe (grade ... | head): that output is gone either way
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
