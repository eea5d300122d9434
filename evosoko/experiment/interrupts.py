"""Graceful stopping on Ctrl-C (SIGINT) and SIGTERM.

The first signal only sets a flag (and calls ``on_request``, so that the display can say the run
is stopping: until the current generation or a first run's kernel compilation ends, nothing else
shows it): the engine sees it through ``should_stop`` after the current
generation, writes a checkpoint and returns, and the run is marked interrupted. A second signal
raises :class:`KeyboardInterrupt` at once; the checkpoints on disk stay intact because every
file is replaced atomically.

Worker processes forked while the handlers are installed inherit them; there the handler does
nothing, so only the process that owns the run reacts (the terminal sends Ctrl-C to the whole
process group).

Every other command takes SIGTERM as Ctrl-C too (:func:`terminate_as_interrupt`, installed by
the command line): it raises :class:`Terminated`, a ``KeyboardInterrupt``, wherever Ctrl-C
would raise one, so that what a command does on Ctrl-C (keep what finished, end its workers,
print how to resume) it does on SIGTERM, and exits with 143 (128 + the signal) instead of 130.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Self

HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM)
REDELIVERY_SECONDS = 0.05
"""How long after a SIGTERM lost in a finalizer it is sent again."""


class GracefulInterrupts:
    """Context manager that turns SIGINT/SIGTERM into a stop request (see the module docstring).

    Outside the main thread signal handlers cannot be installed; then it only offers
    :meth:`request` (for callers that stop a run themselves).
    """

    def __init__(self, on_request: Callable[[], None] | None = None) -> None:
        self.signal_number: int | None = None
        self.on_request = on_request
        self._owner = os.getpid()
        self._previous: dict[int, object] = {}

    @property
    def requested(self) -> bool:
        """True once a stop was requested."""
        return self.signal_number is not None

    def should_stop(self) -> bool:
        """The engine's ``should_stop`` callback."""
        return self.requested

    def request(self, signal_number: int = signal.SIGINT) -> None:
        """Ask the run to stop after the current generation (as the first signal does)."""
        if self.signal_number is None:
            self.signal_number = signal_number

    @property
    def exit_code(self) -> int:
        """The conventional exit status for the signal received: 128 + its number."""
        return 128 + (self.signal_number or signal.SIGINT)

    def _handle(self, signal_number: int, frame: FrameType | None) -> None:
        if os.getpid() != self._owner:
            return  # an inherited handler in a worker process: the parent decides
        if self.signal_number is not None:
            raise KeyboardInterrupt
        self.signal_number = signal_number
        if self.on_request is not None:
            self.on_request()

    def __enter__(self) -> Self:
        if threading.current_thread() is threading.main_thread():
            for number in HANDLED_SIGNALS:
                self._previous[number] = signal.signal(number, self._handle)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]
        self._previous.clear()


class Terminated(KeyboardInterrupt):
    """SIGTERM received: raised where Ctrl-C raises ``KeyboardInterrupt`` (see
    :func:`terminate_as_interrupt`)."""

    signal_number = signal.SIGTERM


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Inside the block SIGTERM raises :class:`Terminated` in this process's main thread, as
    SIGINT raises ``KeyboardInterrupt``; a forked worker that inherits the handler ends at
    once, as it would without it. A SIGTERM that lands in a finalizer is sent again, so it is
    never lost with a printed traceback. Does nothing outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()

    def terminated(signal_number: int, frame: FrameType | None) -> None:
        if os.getpid() != owner:  # a forked worker: end as SIGTERM ends a process
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise Terminated

    def redeliver(unraisable: sys.UnraisableHookArgs) -> None:
        # Terminated raised inside a finalizer (a __del__, a weakref callback) cannot leave it,
        # and Python would print it and carry on: send SIGTERM again a moment later, from a
        # thread, for the handler to run in the code the finalizer interrupted
        if isinstance(unraisable.exc_value, Terminated):
            threading.Timer(REDELIVERY_SECONDS, os.kill, (owner, signal.SIGTERM)).start()
        else:
            previous_hook(unraisable)

    previous, previous_hook = signal.signal(signal.SIGTERM, terminated), sys.unraisablehook
    sys.unraisablehook = redeliver
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        sys.unraisablehook = previous_hook


def interrupt_exit_code(interrupt: BaseException) -> int:
    """128 + the signal that raised ``interrupt``: 130 for Ctrl-C, 143 for SIGTERM."""
    return 128 + int(getattr(interrupt, "signal_number", signal.SIGINT))


def interrupt_name(interrupt: BaseException) -> str:
    """How a message names what stopped a command: ``interrupted`` or ``terminated``."""
    return "terminated" if isinstance(interrupt, Terminated) else "interrupted"
