"""docs/architecture.md names every module of the package, so it cannot drift."""

from __future__ import annotations

from pathlib import Path

import skilldeck

PKG = Path(skilldeck.__file__).parent
DOC = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text("utf-8")


def test_every_module_is_named() -> None:
    missing = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        if rel.parts[0] == "_bundled" or path.name in ("__init__.py", "__main__.py"):
            continue
        names = (f"`{path.name}`", f"`{path.stem}`", f"`skilldeck.{path.stem}`")
        if not any(n in DOC for n in names):
            missing.append(str(rel))
    assert missing == [], "add these modules to docs/architecture.md"


def test_every_package_is_named() -> None:
    packages = [p.name for p in PKG.iterdir() if (p / "__init__.py").is_file()]
    assert [p for p in packages if f"{p}/" not in DOC] == []
