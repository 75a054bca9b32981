"""Gates read /proc/stat, /proc/meminfo and /proc/pressure/memory; a failure is retried a
bounded number of times and then reported with its reason."""
import pytest

import plan as plans
from gates import Gates

MEMINFO = "MemTotal:       1000000 kB\nMemFree:  100000 kB\nMemAvailable:   600000 kB\n"
PRESSURE = "some avg10=0.50 avg60=0.10 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 " \
           "avg300=0.00 total=0\n"


def stat_line(user, idle, steal=0):
    return f"cpu  {user} 0 0 {idle} 0 0 0 {steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n"


class FakeProc:
    """/proc files whose CPU counters advance by (busy, idle, steal) jiffies per sample."""

    def __init__(self, steps, meminfo=MEMINFO, pressure=PRESSURE, oom_kills=None):
        self.steps = list(steps)
        self.oom_kills = list(oom_kills or [])
        self.user = self.idle = self.steal = 0
        self.samples = 0
        self.meminfo, self.pressure = meminfo, pressure

    def read(self, path):
        if path == "/proc/stat":
            busy, idle, steal = self.steps[min(self.samples, len(self.steps) - 1)]
            self.samples += 1
            self.user += busy
            self.idle += idle
            self.steal += steal
            return stat_line(self.user, self.idle, self.steal)
        if path == "/proc/meminfo":
            return self.meminfo
        if path == "/proc/pressure/memory":
            if self.pressure is None:
                raise FileNotFoundError(path)
            return self.pressure
        if path == "/proc/vmstat" and self.oom_kills:
            return f"nr_free_pages 1\noom_kill {self.oom_kills.pop(0)}\n"
        raise FileNotFoundError(path)


def gates(proc, **config):
    return Gates(dict(plans.DEFAULT_GATES, **config), read=proc.read, sleep=lambda s: None)


def test_quiet_machine_passes():
    g = gates(FakeProc([(5, 95, 0)]))
    passed, tries, failures = g.check()
    assert passed and failures == [] and len(tries) == 1
    assert tries[0]["cpu_idle"] == pytest.approx(0.95)
    assert tries[0]["mem_available"] == pytest.approx(0.6)
    assert tries[0]["mem_pressure"] == pytest.approx(0.5)


def test_busy_cpu_fails_after_bounded_retries():
    proc = FakeProc([(60, 40, 0)])
    passed, tries, failures = gates(proc, retries=3).check()
    assert not passed and len(tries) == 4
    assert proc.samples == 8  # two samples a try
    assert failures == ["CPU idle 40% < 80%"]


def test_retry_succeeds_when_the_machine_quiets():
    proc = FakeProc([(60, 40, 0), (60, 40, 0), (1, 99, 0)])
    passed, tries, _ = gates(proc, retries=3).check()
    assert passed and len(tries) == 2


def test_steal_memory_and_pressure():
    g = gates(FakeProc([(5, 85, 10)], meminfo="MemTotal: 100 kB\nMemAvailable: 5 kB\n",
                       pressure="some avg10=30.00 avg60=0 avg300=0 total=9\n"), retries=0)
    passed, _, failures = g.check()
    assert not passed
    assert failures == ["CPU steal 10.0% > 5.0%", "memory available 5% < 10%",
                        "memory pressure 30.0% > 5.0%"]


def test_kernel_without_pressure_information():
    passed, tries, _ = gates(FakeProc([(5, 95, 0)], pressure=None)).check()
    assert passed and "mem_pressure" not in tries[0]


def test_reads_this_machine():
    reading = Gates(dict(plans.DEFAULT_GATES, cpu_window=0.05)).measure()
    assert 0.0 <= reading["cpu_idle"] <= 1.0
    assert 0.0 < reading["mem_available"] <= 1.0


def test_an_oom_kill_since_the_last_run_fails_the_gate():
    g = gates(FakeProc([(5, 95, 0)], oom_kills=[3, 3, 4, 4]), retries=0)
    assert g.check()[0]  # the first reading only sets the count
    assert g.check()[0]  # no new kill
    passed, tries, failures = g.check()
    assert not passed and failures == ["1 process(es) killed out of memory since the last run"]
    assert g.check()[0]  # and the next run's gate passes again
