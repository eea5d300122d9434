"""Tests of graceful interruption: the first signal asks to stop, the second aborts."""

from __future__ import annotations

import os
import signal

import pytest

from evosoko.experiment.interrupts import GracefulInterrupts


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_first_signal_requests_a_stop_and_the_second_aborts(number):
    before = signal.getsignal(number)
    with GracefulInterrupts() as interrupts:
        assert not interrupts.should_stop()
        os.kill(os.getpid(), number)
        assert interrupts.should_stop() and interrupts.signal_number == number
        assert interrupts.exit_code == 128 + number
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), number)
    assert signal.getsignal(number) is before


def test_request_without_a_signal_counts_as_ctrl_c():
    interrupts = GracefulInterrupts()
    interrupts.request()
    interrupts.request(signal.SIGTERM)  # the first request wins
    assert interrupts.requested and interrupts.exit_code == 130


def test_the_first_signal_alone_calls_on_request():
    calls = []
    with GracefulInterrupts(on_request=lambda: calls.append("stop")) as interrupts:
        os.kill(os.getpid(), signal.SIGINT)
        assert calls == ["stop"] and interrupts.requested
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    assert calls == ["stop"]


def test_a_request_without_a_signal_does_not_call_on_request():
    calls = []
    GracefulInterrupts(on_request=lambda: calls.append("stop")).request()
    assert calls == []
