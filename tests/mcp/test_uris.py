"""``skill://`` URIs: each segment of the skill and file path quoted, ``/`` between them."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import skilldeck
from skilldeck.mcp import create_server

_SAFE = "-._~!$&'()*+,;=:@"  # RFC 3986 pchar minus "/" and "%"

NAMES = [
    "SKILL.md",
    "a b.md",
    "r x/100%?#é.md",
    "r x/deep/x@:~!$&'()*+,;=.txt",  # not "x:...": a drive letter is never served
    "ü/日本.md",
    "q/a%20b.md",
]


def test_file_uris_quote_each_segment(tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "odd"
    for name in NAMES:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "---\nname: odd\ndescription: Odd names.\n---\n" if name == "SKILL.md" else name
        )
    catalog = skilldeck.Catalog.from_roots([tmp_path / "skills"], cache=False)
    index = create_server(catalog, tools=False, snapshot_cache=False).index
    expected = {
        "skill://odd/" + "/".join(quote(p, safe=_SAFE) for p in n.split("/")) for n in NAMES
    }
    assert set(index.files) == expected
    assert "skill://odd/r%20x/100%25%3F%23%C3%A9.md" in index.files
    assert {r.relpath for r in index.files.values()} == set(NAMES)
