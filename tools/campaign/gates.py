"""Gates checked before each run: the machine is quiet enough to measure on.

- CPU: over `cpu_window` seconds (two samples of /proc/stat's "cpu" line) the idle share of
  all CPUs (idle + iowait) is at least `cpu_idle_min` and the stolen share at most
  `cpu_steal_max`;
- memory: MemAvailable / MemTotal (/proc/meminfo) at least `mem_available_min`, and where the
  kernel reports pressure (/proc/pressure/memory) its "some avg10" at most
  `mem_pressure_max` percent; and no process killed for want of memory (/proc/vmstat's
  oom_kill) since the previous check.

A failed gate is measured again up to `retries` times, `retry_wait` seconds apart; if it still
fails the runner excludes the case whole and the report gives the reason.
"""
import time


def _read(path):
    with open(path) as f:
        return f.read()


class Gates:
    def __init__(self, config, read=_read, sleep=time.sleep):
        self.config = config
        self.read = read
        self.sleep = sleep
        self.oom_kills = None  # /proc/vmstat's oom_kill at the previous reading

    def _cpu_sample(self):
        for line in self.read("/proc/stat").splitlines():
            if line.startswith("cpu "):
                fields = [int(x) for x in line.split()[1:]]
                fields += [0] * (8 - len(fields))
                total = sum(fields[:8])  # guest time is already counted in user
                idle = fields[3] + fields[4]
                steal = fields[7]
                return total, idle, steal
        raise RuntimeError("/proc/stat has no 'cpu' line")

    def measure(self):
        """The gate readings now: {cpu_idle, cpu_steal, mem_available, mem_pressure}."""
        t0, i0, s0 = self._cpu_sample()
        self.sleep(self.config["cpu_window"])
        t1, i1, s1 = self._cpu_sample()
        dt = max(t1 - t0, 1)
        reading = {"cpu_idle": (i1 - i0) / dt, "cpu_steal": (s1 - s0) / dt}
        mem = {}
        for line in self.read("/proc/meminfo").splitlines():
            parts = line.split()
            if len(parts) >= 2:
                mem[parts[0].rstrip(":")] = int(parts[1])
        if mem.get("MemTotal"):
            reading["mem_available"] = mem.get("MemAvailable", 0) / mem["MemTotal"]
        try:
            for line in self.read("/proc/pressure/memory").splitlines():
                if line.startswith("some "):
                    fields = dict(kv.split("=") for kv in line.split()[1:])
                    reading["mem_pressure"] = float(fields["avg10"])
        except OSError:
            pass  # no pressure stall information on this kernel
        try:
            for line in self.read("/proc/vmstat").splitlines():
                if line.startswith("oom_kill "):
                    kills = int(line.split()[1])
                    if self.oom_kills is not None:
                        reading["oom_kills"] = kills - self.oom_kills
                    self.oom_kills = kills
        except OSError:
            pass
        return reading

    def failures(self, reading):
        """What `reading` fails, as sentences (empty when it passes)."""
        c = self.config
        out = []
        if reading["cpu_idle"] < c["cpu_idle_min"]:
            out.append(f"CPU idle {reading['cpu_idle']:.0%} < {c['cpu_idle_min']:.0%}")
        if reading["cpu_steal"] > c["cpu_steal_max"]:
            out.append(f"CPU steal {reading['cpu_steal']:.1%} > {c['cpu_steal_max']:.1%}")
        if "mem_available" in reading and reading["mem_available"] < c["mem_available_min"]:
            out.append(f"memory available {reading['mem_available']:.0%} < "
                       f"{c['mem_available_min']:.0%}")
        if "mem_pressure" in reading and reading["mem_pressure"] > c["mem_pressure_max"]:
            out.append(f"memory pressure {reading['mem_pressure']:.1f}% > "
                       f"{c['mem_pressure_max']:.1f}%")
        if reading.get("oom_kills", 0) > 0:
            out.append(f"{reading['oom_kills']} process(es) killed out of memory since the "
                       f"last run")
        return out

    def check(self):
        """(passed, readings of every try, the last failures)."""
        tries = []
        for attempt in range(self.config["retries"] + 1):
            if attempt:
                self.sleep(self.config["retry_wait"])
            reading = self.measure()
            failed = self.failures(reading)
            tries.append(reading)
            if not failed:
                return True, tries, []
        return False, tries, failed
