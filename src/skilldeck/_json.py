"""One conversion of skilldeck's values to what JSON can hold, and one way to read JSON
from outside (``loads``).

Used by the tool envelope, events and the audit log, and every ``--json`` of the
command line, so a value has one JSON form wherever it is shown.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from pathlib import PurePath

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["json_safe", "loads"]


def loads(text: str | bytes) -> Any:
    """``json.loads`` for text from outside (a script's output, a client, a model, a
    file): a document nested deeper than the parser recurses is a
    ``json.JSONDecodeError`` (a ``ValueError``) like any other text that is not JSON,
    where ``json`` raises ``RecursionError``."""
    import json

    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", str(text)[:0], 0) from None


def json_safe(value: Any) -> Any:
    """A copy of ``value`` made of dicts (string keys), lists, strings, numbers,
    booleans and ``None``: dates as ISO text, paths as strings, enums as their
    value, a dataclass as its fields plus its public properties, sets and tuples
    as lists, and anything else as ``str(value)`` (YAML may hold values JSON has
    no form for)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, enum.Enum):
        return json_safe(value.value)
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v) for v in value]
    # the rarer kinds: their modules are imported only when one comes (a run's
    # result, all dicts and lists, needs neither ``datetime`` nor ``dataclasses``)
    import dataclasses
    import datetime as _dt

    if isinstance(value, _dt.date | _dt.time):
        return value.isoformat()
    if isinstance(value, PurePath):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: json_safe(getattr(value, f.name)) for f in dataclasses.fields(value)}
        for name, member in vars(type(value)).items():
            if isinstance(member, property) and not name.startswith("_"):
                out[name] = json_safe(getattr(value, name))
        return out
    return str(value)
