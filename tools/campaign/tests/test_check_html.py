"""check_html: a page that is not self-contained, lacks a plot, or logs to the console fails;
a generated report passes (in Chromium when it is installed)."""
import base64
import importlib.machinery
import importlib.util
import os
import struct
import zlib

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader("check_html",
                                               os.path.join(HERE, "..", "check_html"))
_spec = importlib.util.spec_from_loader("check_html", _loader)
check_html = importlib.util.module_from_spec(_spec)
_loader.exec_module(check_html)


def png(width=2, height=2):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                               0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def page(extra=""):
    data = base64.b64encode(png()).decode()
    return (f'<html><body><img id="forest" src="data:image/png;base64,{data}">'
            f'<img id="blocks" src="data:image/png;base64,{data}">{extra}</body></html>')


def test_static_checks():
    assert check_html.static_checks(page()) == []
    assert check_html.static_checks(page('<script src="https://cdn.example/x.js"></script>')) \
        == ["an external URL: https://cdn.example/x.js"]
    assert check_html.static_checks(page('<link href="//fonts.example/f.css">')) == \
        ["an external URL: //fonts.example/f.css"]
    assert check_html.static_checks("<html></html>") == ["no 'forest' plot in the page",
                                                         "no 'blocks' plot in the page"]
    broken = page().replace(base64.b64encode(png()).decode(),
                            base64.b64encode(b"not a png").decode(), 1)
    assert check_html.static_checks(broken) == ["the 'forest' plot is not a PNG picture"]


@pytest.mark.skipif(check_html.chromium() is None, reason="no chromium installed")
def test_in_chromium(tmp_path):
    good = tmp_path / "good.html"
    good.write_text(page("<p>text</p>"))
    assert check_html.browser_checks(str(good), check_html.chromium(),
                                     str(tmp_path / "good.png")) == []
    assert os.path.getsize(tmp_path / "good.png") > 0
    bad = tmp_path / "bad.html"
    bad.write_text(page('<script>console.error("boom")</script>'))
    problems = check_html.browser_checks(str(bad), check_html.chromium(),
                                         str(tmp_path / "bad.png"))
    assert any("console" in p and "boom" in p for p in problems)


def test_png_size():
    assert check_html.png_size(png(3, 5)) == (3, 5)
    assert check_html.png_size(b"GIF89a") is None
