"""Headless Chromium for the tests that check pages in a real browser.

A page under test carries a script that writes what it measured, as JSON, into
``<pre id="browser-check">``; :func:`browser_check` loads the page at
:data:`WIDTH` x :data:`HEIGHT` and returns that JSON.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

WIDTH, HEIGHT = 1280, 900


def chromium() -> str:
    """Chromium's executable; fails under CI (which installs it), skips elsewhere."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (apt-get install chromium)")
        pytest.skip("chromium is not installed")
    return exe


def browser_check(
    page: Path, tmp: Path, width: int = WIDTH, height: int = HEIGHT
) -> dict[str, Any]:
    """Load ``page`` in headless Chromium (profile in ``tmp``) in a ``width`` x ``height``
    window and return the JSON its check script wrote into ``<pre id="browser-check">``."""
    cmd = [
        chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--hide-scrollbars", f"--user-data-dir={tmp / 'profile'}",
        f"--window-size={width},{height}", "--virtual-time-budget=10000", "--dump-dom",
        page.as_uri(),
    ]  # fmt: skip
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=180).stdout
    found = re.search(r"<pre id=\"browser-check\">(.*?)</pre>", dom, re.S)
    assert found, f"{page}: the check did not run; chromium printed: {dom[:300]!r}"
    result: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return result
