"""The import graph keeps the layers of docs/architecture.md: packages reach each
other only through their facades, and no layer imports a layer above it."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import skilldeck

PKG = Path(skilldeck.__file__).parent
PACKAGES = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}

# lowest first; a module may import only from its own layer or lower ones
LAYERS: list[set[str]] = [
    {
        "_version",
        "_errors",
        "_diagnostics",
        "_atomic",
        "_paths",
        "_tree",
        "_digest",
        "_statedir",
        "_ownstate",
        "_extras",
        "_json",
        "_facade",
        "_names",
        "_gc",
        "_frozen",
    },
    {"events", "config"},
    {"format"},
    {"catalog"},
    {"disclosure", "search", "execution", "dist", "security"},
    {"tools"},
    {"inline", "adapters"},
]

FRONT_ENDS = ("cli", "mcp", "postgres", "integrations")

#: foundation modules a front end may import: process plumbing with no library meaning
#: (the cycle collector's pause during start-up and bulk builds; where and how a cache
#: file is written; how JSON from outside is read), one policy for all
FRONT_END_PLUMBING = {"skilldeck._gc", "skilldeck._atomic", "skilldeck._json"}

#: the public packages whose ``__init__`` is a lazy facade (``skilldeck._facade``)
FACADES = sorted(set().union(*LAYERS[1:]))


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
    """The package or top-level module a file belongs to (``catalog``, ``_errors``)."""
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


def _private_owner(module: str) -> str | None:
    """The package whose private part ``module`` names (``skilldeck.config._config`` ->
    ``skilldeck``; ``skilldeck.mcp._wire`` -> ``skilldeck.mcp``), or None: public."""
    parts = module.split(".")
    for i, part in enumerate(parts[1:], 1):
        if part.startswith("_") and part != "__init__":
            return ".".join(parts[:i])
    return None


def test_no_module_outside_a_package_imports_its_private_modules() -> None:
    """A package's private modules are imported from inside it only. The front ends
    (cli/, mcp/, postgres/, integrations/) count as outside the core: they use the
    top level and the public facades, as a host would."""
    found = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        if rel.parts[0] == "_bundled":
            continue
        here = "skilldeck." + ".".join(rel.with_suffix("").parts)
        front = rel.parts[0] in FRONT_ENDS
        for line, module in _imports(path):
            owner = _private_owner(module)
            if owner is None:
                continue
            inside = here == owner or here.startswith(owner + ".")
            if front and module in FRONT_END_PLUMBING:
                continue
            if not inside or (front and owner == "skilldeck"):
                found.append(f"{rel}:{line}: {module}")
    assert found == []


_FACADE_FILES = {PKG / name / "__init__.py" for name in FACADES}


def _facade_tables(name: str) -> tuple[dict[str, str], dict[str, str]]:
    """What a facade's ``__init__`` imports under ``TYPE_CHECKING`` and what its
    tables give at run time, each as name -> module."""
    tree = ast.parse((PKG / name / "__init__.py").read_text("utf-8"))
    checked: dict[str, str] = {}
    tables: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.ImportFrom) and node.module == "skilldeck._facade":
            continue
        if isinstance(node, ast.Assign) and ast.unparse(node) == "TYPE_CHECKING = False":
            continue
        assert isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING", (
            f"{name}/__init__.py holds only its facade: {ast.unparse(node)[:60]}"
        )
        for imp in node.body:
            assert isinstance(imp, ast.ImportFrom) and imp.module, ast.unparse(imp)
            for alias in imp.names:
                assert alias.asname == alias.name, f"{name}: import {alias.name} as itself"
                checked[alias.name] = imp.module
        for stmt in node.orelse:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Dict):
                for key, value in zip(stmt.value.keys, stmt.value.values, strict=True):
                    assert isinstance(key, ast.Constant) and isinstance(value, ast.Constant)
                    module = str(value.value)
                    full = f"skilldeck.{name}{module}" if module.startswith(".") else module
                    assert str(key.value) not in tables, f"{name}: {key.value} twice"
                    tables[str(key.value)] = full
    return checked, tables


def test_every_facade_is_its_table() -> None:
    """The names type checkers see are the names the lazy tables serve, from the
    same modules, and nothing else lives in a facade."""
    for name in FACADES:
        checked, tables = _facade_tables(name)
        assert checked == tables, name
        assert tables, name


def _is_module(package: str, name: str) -> bool:
    return importlib.util.find_spec(f"{package}.{name}") is not None


def test_front_ends_import_only_public_names() -> None:
    """cli/, mcp/, postgres/ and integrations/ use what a host can use: the names in
    ``__all__`` of the top level and of the public packages."""
    found = []
    for front in FRONT_ENDS:
        for path in sorted((PKG / front).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if not isinstance(node, ast.ImportFrom) or node.module is None:
                    continue
                parts = node.module.split(".")
                if parts[0] != "skilldeck" or (len(parts) > 1 and parts[1] == front):
                    continue
                module = importlib.import_module(node.module)
                found += [
                    f"{path.relative_to(PKG)}:{node.lineno}: {node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name not in module.__all__
                    and (alias.name.startswith("_") or not _is_module(node.module, alias.name))
                ]
    assert found == []


def test_no_layer_imports_a_layer_above_it() -> None:
    found = []
    for path in sorted(PKG.rglob("*.py")):
        mine = _layer(_unit(path))
        if mine is None or path in _FACADE_FILES:
            continue  # a facade's imports are read by type checkers only (see below)
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


# --- the tests themselves go through the public API --------------------------------

TESTS = Path(__file__).resolve().parent

#: test files that may import a private module of skilldeck, each with the reason it
#: is a unit test of an internal rather than a test of public behaviour. Keep it short:
#: a test about what a host, a user or a model sees uses the top level, the public
#: facades (skilldeck.events, .tools, .config, ...), the CLI or the MCP server.
PRIVATE_IMPORTS_ALLOWED: dict[str, str] = {
    "test_public_api.py": "pins the top level's own table (_EXPORTS)",
    "test_cli_lazy.py": "the CLI's lazy command map (cli._lazy), and its click-free path (_plain)",
    "exec/test_launch_helper.py": "the launch helper's argv protocol, native and Python twin",
    "exec/test_program_lookup.py": "the program look-up's kept answers (_programs) per file",
    "exec/test_policy_rules.py": "the env allowlist and approval decision table, row by row",
    "exec/test_probe_memo.py": "the remembered probes' stamps and lapses (_probe_memo), per cause",
    "exec/test_run_cost.py": "removing a run's folders by what was made (_executor._remove), "
    "with what a program may have left in them",
    "format/test_yaml_fastpath.py": "the YAML fast path agrees with the full loader",
    "foundation/conftest.py": "runs each foundation test under both resolvers of _tree",
    "foundation/test_tree.py": "unit tests of the one walker and contained reader (_tree)",
    "foundation/test_race.py": "races the contained reader alone, beside the tool and MCP",
    "foundation/test_names.py": "the one parameter-name rule (_names) on hostile values",
    "foundation/test_real_path.py": "the kernel's real path (_paths) against os.path.realpath",
    "catalog/test_cache.py": "the persisted catalog index (_catalog._cache), its format and caps",
    "catalog/test_pool.py": "the worker pool's parsing and sizing (_catalog._pool)",
    "foundation/test_gc_pause.py": "the collector pause of scans and index builds (_gc)",
    "foundation/test_frozen.py": "value classes made dataclasses on first use (_frozen)",
    "foundation/test_cache_folders.py": "one folder rule and writer (_atomic) for every cache",
    "postgres/test_router.py": "the replica's tenant router (postgres._serve) on its own",
    "postgres/test_store.py": "builds a first-schema store from the migrations (postgres._db)",
    "postgres/test_rules.py": "a store at each schema, built from the migrations (postgres._db)",
    "postgres/test_file_facts.py": "builds a schema-2 store from the migrations (postgres._db)",
    "routing/test_search_routing.py": "the evidence index's arithmetic on tokenized words",
    "routing/test_search_store.py": "the saved search index's file format (search._store)",
    "runtime/test_tool_names.py": "each front end in step with the one tool-name rule (_names)",
    "foundation/test_within.py": "the one containment rule (_paths.within)",
    "foundation/test_dirs.py": "the folders' answer kept per value of its variables (_paths.dirs)",
    "catalog/test_depth.py": "the walker's depth (_tree.WALK_DEPTH) against the file index",
}

# an import of a private module inside code a test runs in a subprocess
_IMPORT_IN_TEXT = re.compile(r"^\s*(?:from|import)\s+skilldeck(?:\.\w+)*\._\w", re.MULTILINE)


def _private(dotted: str) -> bool:
    """``skilldeck._x``, ``skilldeck.cli._app``: a single-underscore part past the root."""
    parts = dotted.split(".")
    return parts[0] == "skilldeck" and any(
        p.startswith("_") and not p.startswith("__") for p in parts[1:]
    )


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def private_uses(path: Path) -> list[str]:
    """Where a file reaches a private module or name of skilldeck: imports, attribute
    access (``skilldeck._paths.dirs``) and imports in code it runs in a subprocess."""
    tree = ast.parse(path.read_text("utf-8"))
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("skilldeck"):
            names = [f"{node.module}.{a.name}" for a in node.names]
            found += [f"{line}: {n}" for n in names if _private(n)][:1]
        elif isinstance(node, ast.Import):
            found += [f"{line}: {a.name}" for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            dotted = _dotted(node)
            if dotted and _private(dotted) and not _private(dotted.rsplit(".", 1)[0]):
                found.append(f"{line}: {dotted}")
        elif isinstance(node, ast.Constant) and _IMPORT_IN_TEXT.search(str(node.value)):
            found.append(f"{line}: an import of a private module in a string")
    return sorted(found, key=lambda use: int(use.split(":")[0]))


def test_tests_use_the_public_api() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        rel = path.relative_to(TESTS).as_posix()
        if rel not in PRIVATE_IMPORTS_ALLOWED:
            offenders += [f"tests/{rel}:{use}" for use in private_uses(path)]
    assert offenders == [], "use the public API, or add the file with a reason above"


def test_the_allowlist_stays_well_under_a_third_of_the_test_files() -> None:
    files = [p for p in TESTS.rglob("*.py") if p.name.startswith(("test_", "conftest"))]
    allowed = len(PRIVATE_IMPORTS_ALLOWED)
    assert allowed * 4 <= len(files), (allowed, len(files))
    assert all(reason for reason in PRIVATE_IMPORTS_ALLOWED.values())


def test_the_private_use_finder_can_fail(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    text = (
        "import skilldeck\n"
        "import skilldeck.events\n"
        "from skilldeck import __version__, Catalog\n"
        "from skilldeck.config import dirs\n"
        "from skilldeck.~paths import dirs as d\n"
        "from skilldeck.cli import ~lazy\n"
        "import skilldeck.~tree.~reader\n"
        "x = skilldeck.~paths.dirs()\n"
        "y = skilldeck.__file__\n"
        'CODE = "import sys\\nfrom skilldeck.~events import ListSink\\n"\n'
    )
    sample.write_text(text.replace("~", "_"))  # so this file itself stays clean
    assert [use.split(":")[0] for use in private_uses(sample)] == ["5", "6", "7", "8", "10"]
