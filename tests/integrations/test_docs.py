"""docs/integrations.md is true: its checked examples run, in order, as written.

``<!-- file: PATH -->`` blocks are written first; ``<!-- check -->`` python blocks
run in one namespace in a temporary folder; a ``text`` block right after a
checked block is the exact output it must print.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai")
pytest.importorskip("langchain_core")

DOC = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"

_BLOCK = re.compile(
    r"^(?:<!-- (?P<marker>check|file: [^>]+?) -->\n)?```(?P<lang>[\w-]*)\n(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


def test_the_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = [(m["marker"], m["lang"], m["body"]) for m in _BLOCK.finditer(DOC.read_text())]
    checked = [b for b in blocks if b[0] == "check"]
    assert len(checked) >= 4
    monkeypatch.chdir(tmp_path)
    for marker, _, body in blocks:
        if marker and marker.startswith("file: "):
            target = tmp_path / marker.removeprefix("file: ").strip()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body, encoding="utf-8")

    # run_sync uses the current event loop: give it one we close afterwards
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    namespace: dict[str, object] = {"__name__": "docs_integrations"}
    try:
        for i, (marker, lang, body) in enumerate(blocks):
            if marker != "check":
                continue
            assert lang == "python"
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(body, f"{DOC.name} block {i}", "exec"), namespace)
            following = blocks[i + 1] if i + 1 < len(blocks) else None
            if following is not None and following[0] is None and following[1] == "text":
                assert out.getvalue() == following[2], f"output of block {i}"
    finally:
        loop.close()
        asyncio.set_event_loop(None)
