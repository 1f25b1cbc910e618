"""The facade of a package: its names imported on first use (PEP 562).

Each public package's ``__init__`` lists its names once, in two tables (name ->
the module defining it; relative names are the package's own modules) and
calls ``lazy``, so ``import skilldeck.catalog`` or ``import
skilldeck.catalog._fs`` loads no more than it needs. The same names are
imported under ``TYPE_CHECKING`` for type checkers; a test checks the two agree.
"""

import importlib

TYPE_CHECKING = False  # typing itself costs start-up time; type checkers see True
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def lazy(
    package: str,
    namespace: dict[str, "Any"],
    public: "Mapping[str, str]",
    internal: "Mapping[str, str]",
) -> None:
    """Give the module ``package`` (its globals: ``namespace``) ``__all__`` (the
    public names), and a ``__getattr__`` and ``__dir__`` over both tables."""
    table = {**public, **internal}

    def __getattr__(name: str) -> "Any":
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    namespace["__all__"] = list(public)
    namespace["__getattr__"] = __getattr__
    namespace["__dir__"] = __dir__
