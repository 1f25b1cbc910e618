"""The public namespace: a small top level derived from one table, public
sub-module facades for the rest, and the type-checking imports in step."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import skilldeck

INIT = Path(skilldeck.__file__)
FACADES = (
    "events",
    "adapters",
    "dist",
    "execution",
    "format",
    "tools",
    "catalog",
    "config",
    "disclosure",
    "search",
    "security",
    "inline",
)


def _type_checking_imports(path: Path) -> dict[str, str]:
    """name -> module of every ``from M import X as X`` under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text("utf-8"))
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module != "typing":
                    for alias in stmt.names:
                        assert alias.asname == alias.name, alias.name  # explicit re-export
                        out[alias.name] = str(stmt.module)
    return out


def test_top_level_is_small_and_comes_from_one_table() -> None:
    assert skilldeck.__all__ == ["__version__", *skilldeck._EXPORTS]
    assert len(set(skilldeck.__all__)) == len(skilldeck.__all__)


def test_type_checking_imports_agree_with_the_table() -> None:
    assert _type_checking_imports(INIT) == skilldeck._EXPORTS


def test_every_public_name_resolves_and_nothing_private_leaks() -> None:
    for name in skilldeck.__all__:
        value = getattr(skilldeck, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__module__.startswith("skilldeck."), (name, value.__module__)
            private = [p for p in value.__module__.split(".")[1:] if p.startswith("_")]
            assert private, ("defined privately", name, value.__module__)


@pytest.mark.parametrize("facade", FACADES)
def test_each_facade_exports_what_type_checkers_see(facade: str) -> None:
    module = importlib.import_module(f"skilldeck.{facade}")
    seen = _type_checking_imports(Path(str(module.__file__)))
    assert set(module.__all__) <= set(seen)
    for name in seen:
        assert getattr(module, name) is not None
    assert set(seen) <= set(dir(module))


def test_names_of_the_old_top_level_are_gone() -> None:
    for name in ("install", "render_xml", "Scan", "config_path", "MemoryApprovalStore"):
        assert not hasattr(skilldeck, name), name


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchThing"):
        skilldeck.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018


def test_star_import_and_a_light_start() -> None:
    code = (
        "import sys\n"
        "import skilldeck\n"
        "assert 'skilldeck.catalog._catalog' not in sys.modules, 'import skilldeck stays light'\n"
        "import skilldeck.events\n"
        "assert 'skilldeck.catalog._catalog' not in sys.modules, 'a facade loads only its part'\n"
        "ns = {}\n"
        "exec('from skilldeck import *', ns)\n"
        "missing = [n for n in skilldeck.__all__ if n not in ns]\n"
        "assert not missing, missing\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_facades_are_attributes_after_a_bare_import() -> None:
    assert set(FACADES) == set(skilldeck._FACADES)
    code = (
        "import sys, skilldeck\n"
        f"for name in {FACADES!r}:\n"
        "    assert f'skilldeck.{name}' not in sys.modules or name == 'events', name\n"
        "    module = getattr(skilldeck, name)\n"
        "    assert module is sys.modules[f'skilldeck.{name}'], name\n"
        "assert skilldeck.dist.install is sys.modules['skilldeck.dist'].install\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
