"""A progress bar on a terminal: runs done of all, the current arm and case, and the time
left estimated from the runs so far. Off a terminal, one line per run."""
import sys
import time


def _duration(seconds):
    seconds = int(max(seconds, 0))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


class Progress:
    def __init__(self, total, stream=None, width=28, clock=time.monotonic):
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.width = width
        self.clock = clock
        self.start = clock()

    def line(self, what):
        elapsed = self.clock() - self.start
        left = elapsed / self.done * (self.total - self.done) if self.done else None
        filled = int(self.width * self.done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        eta = _duration(left) if left is not None else "?"
        return f"[{bar}] {self.done}/{self.total} {what} | left {eta}"

    def update(self, what):
        """Shows the run about to start."""
        text = self.line(what)
        if self.tty:
            self.stream.write("\r\x1b[K" + text[:200])
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def advance(self, n=1):
        self.done += n

    def message(self, text):
        if self.tty:
            self.stream.write("\r\x1b[K")
        self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self):
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line("done") + "\n")
            self.stream.flush()
