"""attnlab/timing.py, the one CUDA-event timer, and the peers' rotation of input sets, without torch:
a stand-in for torch.cuda whose events report the durations a test sets."""

import types
import unittest

from attnlab.peers.measure import cycling
from attnlab.timing import summary, time_calls


class FakeCuda:
    """torch.cuda's Event as the timer uses it: each call() takes the next of `durations_ms`
    between the start and end events recorded around it."""

    def __init__(self, durations_ms):
        self.durations_ms, self.calls, self.log = list(durations_ms), 0, []
        cuda = self

        class Event:
            def __init__(self, enable_timing):
                assert enable_timing
                self.at = None

            def record(self):
                self.at = cuda.calls
                cuda.log.append("record")

            def synchronize(self):
                cuda.log.append("synchronize")

            def elapsed_time(self, end):
                assert end.at == self.at + 1, "one call between the two events"
                return cuda.durations_ms[self.at]

        self.Event = Event

    def call(self):
        self.calls += 1
        self.log.append("call")


def fake_torch(durations_ms):
    cuda = FakeCuda(durations_ms)
    return types.SimpleNamespace(cuda=cuda), cuda


class TimeCalls(unittest.TestCase):
    def test_warmup_then_each_call_between_its_events_and_one_wait_at_the_end(self):
        torch, cuda = fake_torch([9.0, 9.0, 0.010, 0.030, 0.020])
        us = time_calls(torch, cuda.call, warmup=2, reps=3)
        self.assertEqual(us, [10.0, 30.0, 20.0])
        self.assertEqual(cuda.log[:2], ["call", "call"])
        self.assertEqual(cuda.log[2:], ["record", "call", "record"] * 3 + ["synchronize"])
        self.assertEqual(summary(us), (20.0, 10.0, 30.0, 3))

    def test_a_call_slower_than_the_budget_allows_gets_fewer_reps_and_one_warmup(self):
        # One call of 100 ms against a budget of 1 s: 10 reps instead of 30, one warm-up instead of 5.
        torch, cuda = fake_torch([100.0] * 100)
        us = time_calls(torch, cuda.call, warmup=5, reps=30, budget_s=1.0, min_reps=5)
        self.assertEqual(len(us), 10)
        self.assertEqual(cuda.calls, 1 + 1 + 10)  # the probe, one warm-up, the timed calls

    def test_never_fewer_than_min_reps(self):
        torch, cuda = fake_torch([2000.0] * 100)
        self.assertEqual(len(time_calls(torch, cuda.call, warmup=5, reps=30, budget_s=1.0, min_reps=5)), 5)

    def test_a_fast_call_keeps_its_reps_and_warmups(self):
        torch, cuda = fake_torch([0.01] * 100)
        self.assertEqual(len(time_calls(torch, cuda.call, warmup=5, reps=30, budget_s=1.0)), 30)
        self.assertEqual(cuda.calls, 1 + 5 + 30)

    def test_no_timed_call_is_refused(self):
        with self.assertRaisesRegex(ValueError, "no timed calls"):
            summary([])


class Cycling(unittest.TestCase):
    def test_each_call_takes_the_next_input_set(self):
        seen = []
        call = cycling(seen.append, 3)
        for _ in range(7):
            call()
        self.assertEqual(seen, [0, 1, 2, 0, 1, 2, 0])


if __name__ == "__main__":
    unittest.main()
