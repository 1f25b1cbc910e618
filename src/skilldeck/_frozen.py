"""Frozen slotted dataclasses: made when first used, and built as fast as plain objects.

``value`` stands for ``@dataclasses.dataclass(frozen=True, slots=True)``. Making a
dataclass compiles its generated methods (about 1 ms of CPU for a class of twenty
fields) and needs ``dataclasses``, which imports ``inspect``, ``ast`` and ``dis``:
together about a fifth of a warm listing of 10,000 skills in a new process, which
uses none of those methods. So ``value`` makes at once only the slotted class (the
same slots, in the same order, as the dataclass would have) and leaves in place of
each method and attribute the dataclass adds (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, ``__setattr__``, ``__dataclass_fields__``, ...) a stand-in that, on the
first look-up of any of them, lets ``dataclasses.dataclass`` make the class from the
very same definition and copies what it added. From then on the class holds exactly
the dataclass's methods and fields (``fields``, ``replace``, ``asdict``,
``is_dataclass``, pickling and pattern matching see a dataclass, before and after).
A definition ``value`` cannot stand for (no docstring, a base class, a method or
annotation the dataclass would treat specially) is made a dataclass at once.

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

import threading
from types import MethodType

__all__ = ["field", "field_names", "made", "new", "replace", "slots_twin", "value"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _T = TypeVar("_T")

new = object.__new__

_MADE_ON_USE = (
    "__init__",
    "__repr__",
    "__eq__",
    "__hash__",
    "__setattr__",
    "__delattr__",
    "__getstate__",
    "__setstate__",
    "__replace__",
    "__match_args__",
    "__dataclass_fields__",
    "__dataclass_params__",
)
"""What ``dataclass(frozen=True, slots=True)`` adds to a class (``__replace__``: from
Python 3.13), each a stand-in until the first look-up of one of them."""

_SPECIAL = ("ClassVar", "InitVar", "KW_ONLY")
"""Words of annotations the dataclass may read as more than a field (a class with one
is made at once)."""

_lock = threading.RLock()  # making one class may need another made (a default value)
_pending: dict[type, type] = {}  # a class made by ``value`` -> its definition, until used


class _Field:
    """``field(...)``'s arguments, until the class is made a dataclass."""

    __slots__ = ("kwargs",)

    def __init__(self, kwargs: dict[str, Any]) -> None:
        self.kwargs = kwargs


class _OnUse:
    """A stand-in for one attribute the dataclass adds (``_MADE_ON_USE``)."""

    __slots__ = ("name", "owner")

    def __init__(self, name: str) -> None:
        self.name = name
        self.owner: type | None = None

    def __set_name__(self, owner: type, name: str) -> None:
        self.owner = owner

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        owner = self.owner
        assert owner is not None
        _make(owner)
        got = owner.__dict__.get(self.name, self)
        if got is self:  # the dataclass adds no such attribute: the inherited one
            return getattr(super(owner, obj if obj is not None else objtype), self.name)
        get = getattr(type(got), "__get__", None)
        return got if get is None else get(got, obj, objtype if objtype is not None else owner)


_NONE: Any = object()  # no default (and no default factory)

_BUILT_OFTEN = 100
"""Objects of a class ``_Init`` builds before the class is made a dataclass (each costs
about 2 us more than through the dataclass's ``__init__``; making the class about 1 ms,
and importing ``dataclasses`` first about 6 ms)."""

#: a field's name, its default and its default factory (``_NONE`` when it has none)
if TYPE_CHECKING:
    _Spec = tuple[str, Any, Any]


class _Init(_OnUse):
    """The stand-in for ``__init__``: building an object does not make the class a
    dataclass (a listing builds a few roots, sources and a configuration). A call the
    dataclass's ``__init__`` would accept sets every field, in order, to the value
    given or else its default (or what its factory makes), through
    ``object.__setattr__`` as that ``__init__`` does, then calls ``__post_init__``
    when the class has one; any other call (a missing, unknown or repeated argument)
    goes to the dataclass's own ``__init__``, and so does a look-up on the class (its
    signature). A class built more than ``_BUILT_OFTEN`` times is made a dataclass
    then: its generated ``__init__`` is several times as fast as this one (a cold
    listing builds a ``Requirements`` for every skill)."""

    __slots__ = ("calls", "fields", "names", "post_init")

    def __init__(self, fields: tuple[_Spec, ...], post_init: bool) -> None:
        super().__init__("__init__")
        self.fields = fields
        self.names = frozenset(name for name, _default, _factory in fields)
        self.post_init = post_init
        self.calls = 0

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        if obj is None:
            return super().__get__(obj, objtype)
        return MethodType(self, obj)

    def __call__(self, obj: Any, *args: Any, **kwargs: Any) -> None:
        self.calls += 1
        if self.calls > _BUILT_OFTEN:
            return self._own(obj, args, kwargs)
        fields = self.fields
        given = dict(zip([name for name, _d, _f in fields], args, strict=False))
        if len(args) > len(fields) or not all(
            name in self.names and name not in given for name in kwargs
        ):
            return self._own(obj, args, kwargs)
        given.update(kwargs)
        for name, default, factory in fields:
            if name not in given and default is _NONE and factory is _NONE:
                return self._own(obj, args, kwargs)  # the dataclass's error
        set_ = object.__setattr__
        for name, default, factory in fields:
            if name in given:
                set_(obj, name, given[name])
            else:
                set_(obj, name, default if factory is _NONE else factory())
        if self.post_init:
            obj.__post_init__()
        return None

    def _own(self, obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        owner = self.owner
        assert owner is not None
        _make(owner)
        owner.__dict__["__init__"](obj, *args, **kwargs)


def _make(cls: type) -> None:
    """Make ``cls`` (from ``value``) the dataclass its definition describes."""
    with _lock:
        definition = _pending.pop(cls, None)
        if definition is None:
            return
        try:
            made: type = _dataclass(definition)
        except BaseException:
            _pending[cls] = definition
            raise
        fields = made.__dict__["__slots__"]
        for name, attr in made.__dict__.items():
            if name in _MADE_ON_USE or (name not in cls.__dict__ and name not in fields):
                setattr(cls, name, attr)
        for name in _MADE_ON_USE:
            if name not in made.__dict__:
                delattr(cls, name)


def made(cls: type[_T]) -> type[_T]:
    """``cls`` (from ``value``) made its dataclass now: before forking processes that
    would each make it on first use."""
    _make(cls)
    return cls


def field_names(cls: type) -> tuple[str, ...]:
    """The names of the fields of ``cls`` (from ``value``), in order: what
    ``dataclasses.fields`` names, read from the slots the class was made with (one a
    field, in the fields' order), so asking does not make the class."""
    names: tuple[str, ...] = cls.__dict__["__slots__"]
    return names


def replace(obj: _T, /, **changes: Any) -> _T:
    """``dataclasses.replace(obj, **changes)`` for an object of a ``value`` class: a new
    object of its class with ``changes`` and every other field as ``obj`` has it, built
    by the class's ``__init__`` (its checks and ``__post_init__`` run), so a class not
    yet made a dataclass is not made one by a copy (an unknown name is the
    ``TypeError`` of that ``__init__``, as in ``dataclasses.replace``)."""
    cls = type(obj)
    if cls not in _pending:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    given = {name: getattr(obj, name) for name in field_names(cls)}
    given.update(changes)
    return cls(**given)


def _dataclass(cls: type[_T]) -> type[_T]:
    """``dataclass(frozen=True, slots=True)`` of a definition, its ``field``s made real."""
    import dataclasses

    for name, spec in list(cls.__dict__.items()):
        if isinstance(spec, _Field):
            setattr(cls, name, dataclasses.field(**spec.kwargs))
    return dataclasses.dataclass(frozen=True, slots=True)(cls)


def _value(cls: type[_T]) -> type[_T]:
    """``@dataclass(frozen=True, slots=True)``, its methods made on first use."""
    ns = dict(cls.__dict__)
    notes: dict[str, Any] = ns.get("__annotations__", {})
    fields = _fields_of(ns, notes)
    if (
        fields is None
        or not cls.__doc__
        or cls.__bases__ != (object,)
        or type(cls) is not type
        or any(name in ns for name in _MADE_ON_USE)
        or "__slots__" in ns
    ):
        return _dataclass(cls)  # the dataclass now (or its error)
    for name in (*notes, "__dict__", "__weakref__"):
        ns.pop(name, None)
    ns["__slots__"] = tuple(notes)
    for name in _MADE_ON_USE:
        ns[name] = _OnUse(name)
    ns["__init__"] = _Init(fields, "__post_init__" in ns)
    made: Any = type(cls.__name__, cls.__bases__, ns)
    made.__qualname__ = cls.__qualname__
    _pending[made] = cls
    return made  # type: ignore[no-any-return]


def _fields_of(ns: dict[str, Any], notes: dict[str, Any]) -> tuple[_Spec, ...] | None:
    """The fields ``_Init`` sets, from a definition's annotations and defaults;
    ``None`` for one that ``value`` leaves to the dataclass at once: an annotation that
    may be more than a field (``_SPECIAL``, or not a string), a ``field`` with more
    than a default or factory and what only comparisons and ``repr`` read, a default
    the dataclass refuses (mutable), a field without a default after one with."""
    out: list[_Spec] = []
    defaulted = False
    for name, note in notes.items():
        if not isinstance(note, str) or any(word in note for word in _SPECIAL):
            return None
        default, factory = ns.get(name, _NONE), _NONE
        if isinstance(default, _Field):
            kwargs = default.kwargs
            if not kwargs.keys() <= _PLAIN_FIELD or kwargs.keys() >= _BOTH:
                return None
            default = kwargs.get("default", _NONE)
            factory = kwargs.get("default_factory", _NONE)
        elif default is not _NONE and _unhashable(default):
            return None
        if default is _NONE and factory is _NONE:
            if defaulted:
                return None
        else:
            defaulted = True
        out.append((name, default, factory))
    return tuple(out)


_PLAIN_FIELD = frozenset({"default", "default_factory", "repr", "hash", "compare", "metadata"})
_BOTH = frozenset({"default", "default_factory"})


def _unhashable(default: Any) -> bool:
    """Would the dataclass refuse ``default`` as mutable (its class sets ``__hash__``
    to ``None``)? Read from the classes' own namespaces: a look-up on a ``value``
    class would make it."""
    for klass in type(default).__mro__:
        if "__hash__" in klass.__dict__:
            return klass.__dict__["__hash__"] is None
    return False


def _field(**kwargs: Any) -> Any:
    """``dataclasses.field``, for a class made by ``value``."""
    return _Field(kwargs)


if TYPE_CHECKING:
    from dataclasses import field

    from typing_extensions import dataclass_transform

    @dataclass_transform(frozen_default=True, field_specifiers=(field,))
    def value(cls: type[_T]) -> type[_T]:
        """``@dataclass(frozen=True, slots=True)``, its methods made on first use."""
        ...

else:
    value, field = _value, _field


def slots_twin(cls: type) -> Any:
    """A class with the slots of ``cls`` (a slotted dataclass) in the same order and
    nothing else, whose objects become ``cls`` objects by ``obj.__class__ = cls``."""
    return type(f"_{cls.__name__}Slots", (), {"__slots__": cls.__dict__["__slots__"]})
