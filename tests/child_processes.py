"""Starting the processes that interrupt tests send Ctrl-C to."""

import signal
import subprocess


def start_interruptible(args, **kwargs) -> subprocess.Popen:
    """``subprocess.Popen(args, **kwargs)`` for a child that will be sent SIGINT.

    A child inherits an ignored SIGINT, and the test process has one when a shell without job
    control started it in the background (``bash -c '... &'``): Python then leaves SIGINT
    ignored, the child runs to its end and the test fails. A handled signal is reset to its
    default by ``exec``, so the child is started while this process handles SIGINT (in the
    main thread, unlike a ``preexec_fn``, which is unsafe with threads)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(args, **kwargs)
    finally:
        signal.signal(signal.SIGINT, previous)
