"""The progress line: runs done of all, what runs now, the time left."""
import io

from progress import Progress


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_lines():
    clock = Clock()
    stream = io.StringIO()
    p = Progress(4, stream=stream, width=8, clock=clock)
    p.update("block 1/2 rows10 / scan")
    clock.now = 10.0
    p.advance()
    p.update("block 1/2 rows10 / remote")
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[........] 0/4 block 1/2 rows10 / scan | left ?"
    assert lines[1] == "[##......] 1/4 block 1/2 rows10 / remote | left 30s"
    clock.now = 200.0
    p.advance()
    assert "left 3m20s" in p.line("x")
