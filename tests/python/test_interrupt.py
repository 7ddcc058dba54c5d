"""Ctrl-C during kktdae.simulate: KeyboardInterrupt in the caller within 0.5 s of SIGINT, for every kind of
run (a C++ model with the GIL released, a Python model, Python called rarely or every step; fixed-step,
CVODE and IDA with one output interval as long as the run; kktdae.sweep on two threads), with the partial result
on the exception.
Each case runs in its own process (interrupt_case.py), which gets the signal 1 s after it starts its
run; runs that would take 8-30 s end about then."""
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interrupt_case import CASES

HERE = Path(__file__).resolve().parent
SIGNAL_AFTER = 1.0  # [s] after the run starts, as the acceptance runs
# The bound. The polling itself answers within microseconds (a step, or one right-hand side);
# what is left is the scheduler on a loaded machine.
MAX_LATENCY = 0.5


def run_case(case):
    child = subprocess.Popen([sys.executable, str(HERE / "interrupt_case.py"), case], cwd=HERE, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        time.sleep(SIGNAL_AFTER)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=180)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    if "caught" in report:
        report["latency"] = report["caught"] - sent
    return report


@pytest.mark.parametrize("case", sorted(CASES))
def test_sigint_raises_keyboard_interrupt_in_the_caller_promptly_with_the_partial_result(case):
    report = run_case(case)
    assert report["raised"] == "KeyboardInterrupt", report
    assert report["latency"] < MAX_LATENCY, report
    # The run stopped where the signal found it: INTERRUPTED, t_final well before the end.
    assert report["status"] == "interrupted", report
    assert report["t_final"] < 100.0, report
    assert "interrupted" in report["message"], report
    if "statuses" in report:  # a sweep: two runs were going, two had not begun; all four end interrupted
        assert report["statuses"] == ["interrupted"] * 4, report

