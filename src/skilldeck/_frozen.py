"""Frozen slotted dataclasses built as fast as plain objects.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``
(about 0.3 us a field). Where thousands are built (a cold listing makes a manifest,
a parse result and most often a diagnostic per skill; a warm one a metadata and an
entry object), an object of the class's *twin* (``slots_twin``: the same slots in
the same order and nothing else) is made with ``new``, its slots set by plain
assignment, and then given the dataclass as its ``__class__``, which CPython allows
between classes of one layout. The caller sets every slot: one left unset raises
``AttributeError`` when it is read, as it would on a half-built object.
"""

from __future__ import annotations

from typing import Any

__all__ = ["new", "slots_twin"]

new = object.__new__


def slots_twin(cls: type) -> Any:
    """A class with the slots of ``cls`` (a slotted dataclass) in the same order and
    nothing else, whose objects become ``cls`` objects by ``obj.__class__ = cls``."""
    return type(f"_{cls.__name__}Slots", (), {"__slots__": cls.__dict__["__slots__"]})
