"""The one public namespace: ``__all__`` is exactly what ``skilldeck`` offers."""

from __future__ import annotations

import inspect
import subprocess
import sys

import skilldeck

_EAGER_MODULES = ("skilldeck._errors", "skilldeck._diagnostics", "skilldeck._version")


def test_every_public_name_resolves_and_nothing_private_leaks() -> None:
    assert len(set(skilldeck.__all__)) == len(skilldeck.__all__)
    assert set(skilldeck._LAZY) <= set(skilldeck.__all__)
    for name in skilldeck.__all__:
        value = getattr(skilldeck, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__module__.startswith("skilldeck."), (name, value.__module__)
        if name not in skilldeck._LAZY:  # the few names imported eagerly
            origin = getattr(value, "__module__", None)
            assert origin is None or origin in _EAGER_MODULES or name in {"CODES"}, name


def test_unknown_names_raise_attribute_error() -> None:
    try:
        skilldeck.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def test_star_import_and_a_light_start() -> None:
    code = (
        "import sys\n"
        "import skilldeck\n"
        "assert 'skilldeck._catalog' not in sys.modules, 'import skilldeck stays light'\n"
        "ns = {}\n"
        "exec('from skilldeck import *', ns)\n"
        "missing = [n for n in skilldeck.__all__ if n not in ns]\n"
        "assert not missing, missing\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
