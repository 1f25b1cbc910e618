"""``_frozen.value``: a class whose dataclass methods are made on first use is, before
and after, the class ``dataclass(frozen=True, slots=True)`` makes of the same definition."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import subprocess
import sys
import textwrap
import threading
import time
import types
from itertools import count
from typing import Any

import pytest

from skilldeck import _frozen
from skilldeck._frozen import field, value

_DEFINITION = '''
class Point:
    """A point."""

    x: int
    y: int = 0
    label: str | None = field(default=None, compare=False)
    tags: tuple[str, ...] = ()
    extra: dict[str, int] = field(default_factory=dict, repr=False, hash=False, compare=False)

    @property
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)

    @classmethod
    def origin(cls) -> Point:
        return cls(0)

    def moved(self, dx: int) -> Point:
        return dataclasses.replace(self, x=self.x + dx)
'''


_COUNT = count()


def _pair() -> tuple[type, type]:
    """The definition made by ``value`` and by ``dataclass(frozen=True, slots=True)``."""
    made = []
    for decorate, field_of in ((value, field), (None, dataclasses.field)):
        module = types.ModuleType(f"_frozen_points_{next(_COUNT)}")  # (pickled by name)
        sys.modules[module.__name__] = module
        ns = module.__dict__
        ns |= {"field": field_of, "dataclasses": dataclasses}
        exec(  # (the definition above)
            "from __future__ import annotations\n" + _DEFINITION, ns
        )
        cls = ns["Point"]
        if decorate is None:
            cls = dataclasses.dataclass(frozen=True, slots=True)(cls)
        else:
            cls = decorate(cls)
        module.Point = cls  # type: ignore[attr-defined]
        made.append(cls)
    return made[0], made[1]


def _outline(cls: type) -> dict[str, Any]:
    """What a dataclass shows of itself, to compare a ``value`` class with the real one."""
    fields = [
        (f.name, f.type, f.default, f.init, f.repr, f.hash, f.compare, f.kw_only, dict(f.metadata))
        for f in dataclasses.fields(cls)
    ]
    params = cls.__dict__["__dataclass_params__"]
    return {
        "fields": fields,
        "factories": [f.default_factory is dataclasses.MISSING for f in dataclasses.fields(cls)],
        "params": repr(params),
        "slots": cls.__dict__["__slots__"],
        "names": sorted(cls.__dict__),
        "signature": str(inspect.signature(cls)),
        "match": cls.__match_args__,
        "doc": cls.__doc__,
        "qualname": cls.__qualname__,
        "module": cls.__module__.startswith("_frozen_points_"),
        "mro": len(cls.__mro__),
    }


def test_a_value_class_is_the_dataclass_of_its_definition() -> None:
    lazy, real = _pair()
    assert lazy in _frozen._pending  # nothing made yet
    assert dataclasses.is_dataclass(lazy)  # the first look-up makes it
    assert lazy not in _frozen._pending
    assert _outline(lazy) == _outline(real)
    for name in _frozen._MADE_ON_USE:  # no stand-in is left
        assert not isinstance(lazy.__dict__.get(name), _frozen._OnUse)


@pytest.mark.parametrize(
    "first",
    ["init", "repr", "eq", "hash", "setattr", "delattr", "fields", "replace", "pickle", "match"],
)
def test_every_first_use_behaves_as_the_dataclass(first: str) -> None:
    lazy, real = _pair()

    def use(cls: type) -> Any:
        p = cls(3, 4, "a", ("t",))
        if first == "init":
            return (p.x, p.y, p.label, p.tags, p.extra, p.norm, cls.origin().x)
        if first == "repr":
            return repr(p).replace(cls.__qualname__, "Q")
        if first == "eq":
            return (p == cls(3, 4, "b", ("t",)), p == cls(3, 5), p != cls(3, 4), p == (3, 4))
        if first == "hash":
            return hash(p) == hash(cls(3, 4, "other", ("t",))), hash(p) == hash((3, 4, ("t",)))
        if first in ("setattr", "delattr"):
            with pytest.raises(dataclasses.FrozenInstanceError) as err:
                if first == "setattr":
                    p.x = 5  # type: ignore[misc]
                else:
                    del p.x
            with pytest.raises((AttributeError, TypeError)) as other:
                p.nothing = 1  # not a field of a slotted class
            return str(err.value), type(other.value)
        if first == "fields":
            return [f.name for f in dataclasses.fields(p)], dataclasses.asdict(p)
        if first == "replace":
            return repr(p.moved(1)).replace(cls.__qualname__, "Q")
        if first == "pickle":
            back = pickle.loads(pickle.dumps(p))
            return back == p, copy.copy(p) == p, copy.deepcopy(p) == p, back.label
        match p:
            case cls(x, y):  # type: ignore[misc]
                return x, y
        return None

    assert use(lazy) == use(real)
    assert _outline(lazy) == _outline(real)


def test_the_first_use_in_many_threads_makes_the_class_once() -> None:
    lazy, real = _pair()
    seen: list[Any] = []
    barrier = threading.Barrier(8)

    def first() -> None:
        barrier.wait()
        seen.append(repr(lazy(1, 2)))

    threads = [threading.Thread(target=first) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 1
    assert _outline(lazy) == _outline(real)


def test_a_definition_value_cannot_stand_for_is_made_at_once() -> None:
    class NoDoc:
        x: int

    class Base:
        """A base."""

    class Derived(Base):
        """Derived."""

        x: int

    class OwnRepr:
        """Its own repr."""

        x: int

        def __repr__(self) -> str:
            return "mine"

    made = [value(cls) for cls in (NoDoc, Derived, OwnRepr)]
    for cls in made:
        assert cls not in _frozen._pending
        assert "__init__" in cls.__dict__ and dataclasses.is_dataclass(cls)
    assert repr(made[2](1)) == "mine"


def test_the_catalog_is_listed_without_making_its_dataclasses(tmp_path: Any) -> None:
    """A warm listing imports no ``dataclasses`` (it would import ``inspect``, ``ast``
    and ``dis``) and makes none of the value classes it builds objects of."""
    root = tmp_path / "skills"
    (root / "alpha").mkdir(parents=True)
    (root / "alpha" / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: The first skill.\n---\nBody.\n", encoding="utf-8"
    )
    time.sleep(1.1)  # (a SKILL.md changed within a second of a scan is parsed again)
    cache = str(tmp_path / "cache")
    cold = (
        "import sys\nfrom skilldeck import Catalog\n"
        "Catalog.from_roots([sys.argv[1]], cache=sys.argv[2]).list()"
    )
    subprocess.run([sys.executable, "-c", cold, str(root), cache], check=True)
    script = textwrap.dedent(
        """
        import sys
        from skilldeck import Catalog, _frozen
        metas = Catalog.from_roots([sys.argv[1]], cache=sys.argv[2]).list()
        print(sorted(m for m in ("dataclasses", "inspect", "ast") if m in sys.modules))
        print(metas[0].name, metas[0].description, len(_frozen._pending) > 0)
        print(metas[0] == metas[0], "dataclasses" in sys.modules)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(root), cache],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out == ["[]", "alpha The first skill. True", "True True"]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((1,), {}),
        ((1, 2, "l", ("t",), {"a": 1}), {}),
        ((), {"x": 1, "extra": {"b": 2}}),
        ((1,), {"tags": ("u",), "label": None}),
        ((), {}),  # missing x
        ((1, 2, 3, 4, 5, 6), {}),  # too many
        ((1,), {"x": 2}),  # twice
        ((1,), {"nothing": 2}),  # unknown
        ((), {"y": 1}),  # missing x, with another
    ],
)
def test_building_an_object_first_is_the_dataclass_s_init(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """Building an object does not make the class (a valid call), and builds what the
    dataclass's ``__init__`` builds, or raises its error."""
    lazy, real = _pair()

    def build(cls: type) -> Any:
        try:
            p = cls(*args, **kwargs)
        except TypeError as exc:
            return str(exc).replace(cls.__qualname__, "Q")
        return (p.x, p.y, p.label, p.tags, p.extra)

    got = build(lazy)
    assert got == build(real)
    assert (lazy in _frozen._pending) == (not isinstance(got, str))
    if not isinstance(got, str):  # each object gets its own factory-made value
        assert lazy(1).extra is not lazy(1).extra


def test_post_init_runs_as_the_dataclass_runs_it() -> None:
    calls: list[Any] = []

    class Checked:
        """Checked."""

        x: int
        y: int = 2

        def __post_init__(self) -> None:
            calls.append((self.x, self.y))
            if self.x < 0:
                raise ValueError("negative")

    lazy = value(Checked)
    assert lazy(1).y == 2 and calls == [(1, 2)]
    with pytest.raises(ValueError, match="negative"):
        lazy(-1, 3)
    assert calls == [(1, 2), (-1, 3)] and lazy in _frozen._pending


def test_a_class_built_often_is_made_a_dataclass() -> None:
    lazy, real = _pair()
    for i in range(_frozen._BUILT_OFTEN):
        lazy(i)
    assert lazy in _frozen._pending
    p = lazy(7, 8)
    assert lazy not in _frozen._pending
    assert (p.x, p.y) == (7, 8) and p == lazy(7, 8)
    assert _outline(lazy) == _outline(real)


def test_made_makes_the_dataclass_now() -> None:
    lazy, real = _pair()
    assert _frozen.made(lazy) is lazy and lazy not in _frozen._pending
    assert _outline(lazy) == _outline(real)


@pytest.mark.parametrize(
    "changes",
    [{}, {"y": 9}, {"x": -1, "label": "l", "extra": {"c": 3}}, {"nothing": 1}, {"norm": 2}],
)
@pytest.mark.parametrize("made_first", [False, True])
def test_replace_is_the_dataclass_s_replace(changes: dict[str, Any], made_first: bool) -> None:
    """``_frozen.replace`` copies as ``dataclasses.replace`` does (or raises its error),
    and a copy does not make a class that was not made yet."""
    lazy, real = _pair()
    if made_first:
        _frozen.made(lazy)

    def copy_of(cls: type, replace: Any) -> Any:
        p = cls(1, 2, "a", ("t",), {"e": 1})
        try:
            q = replace(p, **changes)
        except TypeError as exc:
            return "TypeError", str(exc).replace(cls.__qualname__, "Q")
        assert type(q) is cls and q is not p
        return (q.x, q.y, q.label, q.tags, q.extra, q.extra is p.extra)

    got = copy_of(lazy, _frozen.replace)
    assert got == copy_of(real, dataclasses.replace)
    assert (lazy in _frozen._pending) == (not made_first and got[0] != "TypeError")


def test_replace_runs_post_init() -> None:
    class Checked:
        """Checked."""

        x: int

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("negative")

    lazy = value(Checked)
    assert _frozen.replace(lazy(1), x=2).x == 2
    with pytest.raises(ValueError, match="negative"):
        _frozen.replace(lazy(1), x=-1)
    assert lazy in _frozen._pending


def test_field_names_are_the_dataclass_s_fields() -> None:
    lazy, real = _pair()
    names = _frozen.field_names(lazy)
    assert lazy in _frozen._pending  # asking does not make the class
    assert names == tuple(f.name for f in dataclasses.fields(real))
    assert _frozen.field_names(_frozen.made(lazy)) == names
    assert _frozen.field_names(real) == names
