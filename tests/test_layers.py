"""The import graph keeps the layers of docs/architecture.md: packages reach each
other only through their facades, and no layer imports a layer above it."""

from __future__ import annotations

import ast
from pathlib import Path

import skilldeck

PKG = Path(skilldeck.__file__).parent
PACKAGES = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}

# lowest first; a module may import only from its own layer or lower ones
LAYERS: list[set[str]] = [
    {"_version", "_errors", "_diagnostics", "_atomic", "_paths", "_tree", "_digest", "_statedir"},
    {"_events", "_lifecycle", "_configtrust", "_configschema", "_config"},
    {"_format"},
    {"_catalog"},
    {
        "_disclosure",
        "_search",
        "_search_store",
        "_semantic",
        "_suggest",
        "_exec",
        "_dist",
        "_scan",
        "_compact",
        "_quality",
        "_routing",
    },
    {"_runtime"},
    {"_inline"},
]


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text("utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("skilldeck."):
            out.append((node.lineno, str(node.module)))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("skilldeck.")]
    return out


def _unit(path: Path) -> str:
    """The package or top-level module a file belongs to (``_catalog``, ``_events``)."""
    rel = path.relative_to(PKG).with_suffix("").parts
    return rel[0]


def _layer(unit: str) -> int | None:
    for i, layer in enumerate(LAYERS):
        if unit in layer:
            return i
    return None  # front ends and public facades sit above every layer


def test_no_module_imports_a_private_module_of_a_sibling_package() -> None:
    found = []
    for path in sorted(PKG.rglob("*.py")):
        mine = _unit(path)
        if mine == "_bundled":
            continue
        for line, module in _imports(path):
            parts = module.split(".")
            sibling = len(parts) >= 3 and parts[1] in PACKAGES and parts[1] != mine
            if sibling and parts[2].startswith("_"):
                found.append(f"{path.relative_to(PKG)}:{line}: {module}")
    assert found == []


def test_no_layer_imports_a_layer_above_it() -> None:
    found = []
    for path in sorted(PKG.rglob("*.py")):
        mine = _layer(_unit(path))
        if mine is None:
            continue
        for line, module in _imports(path):
            theirs = _layer(module.split(".")[1])
            if theirs is not None and theirs > mine:
                found.append(f"{path.relative_to(PKG)}:{line}: imports {module}")
    assert found == []


def test_every_private_unit_has_a_layer() -> None:
    # _bundled holds the example skills shipped as data, not package code
    units = {_unit(p) for p in PKG.rglob("*.py")} - {"__init__", "__main__", "_bundled"}
    private = {u for u in units if u.startswith("_")}
    assert private <= set().union(*LAYERS), private - set().union(*LAYERS)


def test_distribution_does_not_call_into_execution() -> None:
    # retired content reaches the approval store through skilldeck._lifecycle
    found = [
        f"{path.relative_to(PKG)}:{line}: {module}"
        for path in sorted((PKG / "_dist").rglob("*.py"))
        for line, module in _imports(path)
        if module.split(".")[1] == "_exec"
    ]
    assert found == []


_FILE_CALLS = {
    "open", "stat", "lstat", "scandir", "listdir", "walk", "readlink", "fdopen",
    "read_bytes", "read_text", "iterdir", "rglob", "glob", "exists", "is_file", "is_dir",
}  # fmt: skip


def test_mcp_reads_no_skill_file_itself() -> None:
    """``mcp/`` maps the catalog's snapshot: every listing, stat, read and digest of a
    skill's files goes through the catalog. Only ``_store.py`` touches files: the
    server's own snapshot cache in the user cache folder."""
    found = []
    for path in sorted((PKG / "mcp").glob("*.py")):
        if path.name == "_store.py":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in _FILE_CALLS:
                    found.append(f"mcp/{path.name}:{node.lineno}: {name}()")
    assert found == []
