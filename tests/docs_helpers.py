"""What the docs tests share: the MkDocs hooks module (``docs/hooks.py``, not a package)
and the Markdown sources of the README and the docs."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def hooks() -> ModuleType:
    """``docs/hooks.py``, loaded from its file (it renders the generated pages)."""
    spec = importlib.util.spec_from_file_location("haggis_docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def code_blocks(page: Path, lang: str = "") -> list[str]:
    """The fenced code blocks of a Markdown file in language ``lang`` (``""``: none)."""
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", page.read_text(), flags=re.S | re.M)
    return [body for language, body in blocks if language == lang]


def with_games(toml_text: str, games: int) -> str:
    """An experiment file's text with every ``games = N`` (top level and populations) set
    to ``games``: the same experiment, played small, through the same code path."""
    text, count = re.subn(r"^games = \d+", f"games = {games}", toml_text, flags=re.M)
    assert count, "no games key"
    return text
