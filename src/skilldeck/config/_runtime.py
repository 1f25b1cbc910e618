"""``[runtime]``: the runtime's options in a config file, and which values only tighten.

The table's keys are the plain-value fields of ``skilldeck.RuntimeOptions`` (all
but ``embedder``, a function); :func:`check_runtime` validates one file's table
before files are merged, so a wrong value is ``CONFIG_INVALID`` with its line.

A project file is untrusted input, so without trust it may only *tighten*
(:func:`loosening`): each key it sets is compared with the value in effect
without it (the user's file, else the default) and kept only when it is at least
as strict: ``allowed_tools_enforcement`` ``off`` -> ``enforce``,
``allowed_tools_invalid_allowlist`` towards ``error``,
``honor_untrusted_allowed_tools = true``, ``search`` / ``scripts`` /
``declared_tools`` / ``validate_tools`` / ``include_location = false`` (fewer
tools, no local paths shown to the model), a lower ``max_body_bytes``,
``max_file_bytes`` or ``list_limit``, and a ``mode`` when none is set (it only
hides skills). ``search_headings`` changes ranking only and is always allowed.
``tool_prefix``, ``tool_names`` and ``parameter_names`` grant nothing by themselves, but clients and
governance hooks decide by tool name (a client that auto-approves
``skills_list`` must not be handed ``skills_run_script`` under that name), so a
project file must be trusted to rename tools. Anything else is guarded
(``skilldeck.config._trust``): ignored with SK530 until ``skilldeck trust``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from skilldeck._errors import ConfigError
from skilldeck._names import is_parameter_name, is_tool_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["RUNTIME_DEFAULTS", "TOOL_KEYS", "check_runtime", "loosening"]

#: Every ``[runtime]`` key with the default of ``RuntimeOptions`` (``None``: unset).
RUNTIME_DEFAULTS: Mapping[str, Any] = {
    "allowed_tools_enforcement": "off",
    "allowed_tools_invalid_allowlist": "ignore",
    "honor_untrusted_allowed_tools": True,
    "include_location": False,
    "tool_prefix": "",
    "tool_names": {},
    "parameter_names": {},
    "search": True,
    "scripts": True,
    "declared_tools": True,
    "validate_tools": False,
    "max_body_bytes": None,
    "max_file_bytes": 200_000,
    "list_limit": 200,
    "search_headings": True,
    "mode": None,
    "preload": (),
}

#: The runtime's own tools, by key (what ``tool_names`` may rename).
TOOL_KEYS: tuple[str, ...] = (
    "skills_list",
    "skills_load",
    "skills_read_file",
    "skills_search",
    "skills_run_script",
    "skills_validate",
    "skills_lint",
)

#: each value's order, loosest first (a later value is stricter)
_ORDERED: Mapping[str, tuple[object, ...]] = {
    "allowed_tools_enforcement": ("off", "enforce"),
    "allowed_tools_invalid_allowlist": ("ignore", "enforce", "error"),
    "honor_untrusted_allowed_tools": (False, True),
    "include_location": (True, False),
    "search": (True, False),
    "scripts": (True, False),
    "declared_tools": (True, False),
    "validate_tools": (True, False),
}
#: the limits, each with an example for hints (a lower value is stricter)
_LIMITS: Mapping[str, int] = {"max_body_bytes": 20_000, "max_file_bytes": 100_000, "list_limit": 50}
_FREE = frozenset({"search_headings"})
_LONGEST_KEY = max(len(k) for k in TOOL_KEYS)

Fail = Callable[[str, str, str], ConfigError]


def check_runtime(table: dict[str, Any], fail: Fail) -> None:
    """Check one file's ``[runtime]`` table; ``fail(key, message, hint)`` makes the error."""
    for key, value in table.items():
        name = f"runtime.{key}"
        if key not in RUNTIME_DEFAULTS:
            raise fail(name, "unknown key", "known keys: " + ", ".join(sorted(RUNTIME_DEFAULTS)))
        choices = _ORDERED.get(key)
        if key in _FREE or (choices is not None and isinstance(choices[0], bool)):
            if not isinstance(value, bool):
                raise fail(name, "must be true or false", f"{key} = true")
        elif choices is not None:
            if value not in choices:
                shown = ", ".join(f'"{c}"' for c in choices)
                raise fail(name, f"unknown value {value!r}", f"use one of {shown}")
        elif key in _LIMITS:
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise fail(name, "must be a positive whole number", f"e.g. {key} = {_LIMITS[key]}")
        elif key == "mode":
            if not isinstance(value, str) or not value.strip():
                raise fail(name, "must be a mode name", 'e.g. mode = "review"')
        elif key == "preload":
            if not isinstance(value, list | tuple) or not all(
                isinstance(v, str) and v for v in value
            ):
                raise fail(name, "must be a list of skill names", 'e.g. preload = ["pdf-tools"]')
        elif key == "tool_prefix":
            if not isinstance(value, str) or (value and not is_tool_name(value)):
                raise fail(name, "must be letters, digits, _ or -", 'e.g. tool_prefix = "deck_"')
            if len(value) + _LONGEST_KEY > 64:
                raise fail(name, "is too long: tool names have at most 64 characters", "shorten it")
    if "tool_names" in table:
        _check_names(table, fail)
    if "parameter_names" in table:
        _check_parameters(table["parameter_names"], fail)


def _check_parameters(tables: Any, fail: Fail) -> None:
    """``[runtime.parameter_names.skills_load] name = "skill_name"``, per tool."""
    where = "runtime.parameter_names"
    if not isinstance(tables, Mapping):
        raise fail(where, "must be a table", "write it as [runtime.parameter_names.skills_load]")
    for key, renames in tables.items():
        if key not in TOOL_KEYS:
            known = ", ".join(TOOL_KEYS)
            raise fail(f"{where}.{key}", "not a tool of skilldeck", f"one of {known}")
        if not isinstance(renames, Mapping):
            raise fail(f"{where}.{key}", "must be a table", f'e.g. [{where}.{key}] name = "x"')
        for old, new in renames.items():
            if not is_parameter_name(new):
                raise fail(
                    f"{where}.{key}.{old}",
                    "must be a letter or _ then up to 63 letters, digits or _",
                    f'e.g. {old} = "skill_{old}"',
                )
        news = list(renames.values())
        if len(set(news)) != len(news):
            raise fail(f"{where}.{key}", "two parameters would share a name", "give each its own")


def _check_names(table: Mapping[str, Any], fail: Fail) -> None:
    names = table["tool_names"]
    if not isinstance(names, dict):
        raise fail("runtime.tool_names", "must be a table", "write it as [runtime.tool_names]")
    for key, value in names.items():
        name = f"runtime.tool_names.{key}"
        if key not in TOOL_KEYS:
            raise fail(name, "not a tool of skilldeck", "rename one of " + ", ".join(TOOL_KEYS))
        if not is_tool_name(value):
            raise fail(name, "must be 1-64 letters, digits, _ or -", f'e.g. {key} = "my_{key}"')
    prefix = table.get("tool_prefix", "")
    exposed = [names.get(k, f"{prefix}{k}") for k in TOOL_KEYS]
    for key in TOOL_KEYS:
        if key in names and exposed.count(names[key]) > 1:
            raise fail(
                f"runtime.tool_names.{key}",
                f"two tools would be called {names[key]!r}",
                "give each tool its own name",
            )


def loosening(project: Mapping[str, Any], user: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of a project file's ``[runtime]`` that would loosen what is in effect
    without it (``user``: the user's file's table; defaults for keys it leaves out)."""
    out: dict[str, Any] = {}
    for key, value in project.items():
        before = user.get(key, RUNTIME_DEFAULTS.get(key))
        if key in _FREE or (value == before and type(value) is type(before)):
            continue
        if not _tightens(key, value, before):
            out[f"runtime.{key}"] = value
    return out


def _tightens(key: str, value: object, before: object) -> bool:
    order = _ORDERED.get(key)
    if order is not None:
        return value in order and before in order and order.index(value) >= order.index(before)
    if key in _LIMITS:
        if before is None:
            return isinstance(value, int)
        return isinstance(value, int) and isinstance(before, int) and value <= before
    if key == "mode":
        return before is None  # a first mode only hides skills; another one shows others
    return False  # tool_prefix, tool_names, parameter_names, and any key not known here
