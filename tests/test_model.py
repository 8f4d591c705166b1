"""objllvm._model, the record classes of the models: the same classes as the standard module gives on every
shape the package uses (and a few more), and the codec registry loads without dataclasses, inspect or typing."""
from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
from typing import ClassVar

import pytest

from objllvm import _model

from conftest import ROOT


def _shapes(dc, field):
    """The same class shapes made with ``dc`` / ``field`` (dataclasses' or _model's)."""
    @dc
    class Plain:
        a: int
        b: str
        c: int = 3
        d: str | None = None

    @dc
    class Factories:
        name: str
        items: list = field(default_factory=list)
        table: dict = field(default_factory=dict)
        hidden: object = field(default=None, repr=False, compare=False)
        secret: int = field(default=7, repr=False)
        loose: int = field(default=0, compare=False)
        kind: ClassVar[str] = "k"
        other: "ClassVar[int]" = 5
        not_a_field = 9

        def total(self):
            return len(self.items) + self.c if hasattr(self, "c") else len(self.items)

    @dc(frozen=True)
    class Frozen:
        name: str
        kind: str
        flag: bool = False
        aux: tuple = ()
        extra: object = None

    @dc(slots=True)
    class Slotted:
        orig: int | None
        name: str
        content: bytes | None = None
        removed: bool = False

    @dc(frozen=True, slots=True)
    class FrozenSlotted:
        x: int
        y: int = 2

    @dc
    class Base:
        a: int
        b: int = 1

    @dc
    class Derived(Base):
        c: int = 2
        b: int = 5

    @dc
    class Empty:
        pass

    @dc
    class OwnMethods:
        a: int

        def __repr__(self):
            return "own"

        def __eq__(self, other):
            return True

        def __hash__(self):
            return 42

    @dc
    class PostInit:
        a: int
        b: int = 0

        def __post_init__(self):
            self.b = self.a * 2

    class Outer:
        @dc
        class Inner:
            v: int

    return dict(Plain=Plain, Factories=Factories, Frozen=Frozen, Slotted=Slotted, FrozenSlotted=FrozenSlotted,
                Base=Base, Derived=Derived, Empty=Empty, OwnMethods=OwnMethods, PostInit=PostInit, Inner=Outer.Inner)


STD = _shapes(dataclasses.dataclass, dataclasses.field)
OURS = _shapes(_model.dataclass, _model.field)

# (class name, args, kwargs): instances made the same way from both sets of classes
CASES = [
    ("Plain", (1, "x"), {}), ("Plain", (1, "x", 4, "y"), {}), ("Plain", (), {"b": "q", "a": 2, "d": "z"}),
    ("Plain", (1.5, b"\x00"), {}), ("Plain", (float("nan"), "n"), {}),
    ("Factories", ("f",), {}), ("Factories", ("f", [1, 2]), {"hidden": object(), "secret": 8, "loose": 3}),
    ("Frozen", ("n", "func"), {}), ("Frozen", ("n", "insn", True, (1, 2)), {"extra": "e"}),
    ("Slotted", (None, "s"), {}), ("Slotted", (3, "s", b"ab", True), {}),
    ("FrozenSlotted", (1,), {}), ("FrozenSlotted", (1, 3), {}),
    ("Base", (1,), {}), ("Derived", (1,), {}), ("Derived", (1, 2, 3), {}), ("Derived", (), {"a": 0, "c": 9}),
    ("Empty", (), {}), ("OwnMethods", (1,), {}), ("PostInit", (4,), {}), ("Inner", (1,), {}),
]


def _pair(name, args, kwargs):
    return STD[name](*args, **kwargs), OURS[name](*args, **kwargs)


def _state(o):
    return {n: getattr(o, n) for n in (f.name for f in dataclasses.fields(type(o)))}


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_instances_same_as_dataclasses(name, args, kwargs):
    s, o = _pair(name, args, kwargs)
    assert repr(s) == repr(o)
    assert _state(s) == {n: getattr(o, n) for n in _state(s)}
    assert [f.name for f in dataclasses.fields(type(s))] == [f.name for f in _model.fields(type(o))]
    assert type(o).__match_args__ == type(s).__match_args__
    # equality: with itself, a copy, an equal instance, each changed field, another class
    s2, o2 = _pair(name, args, kwargs)
    assert (s == s2) == (o == o2) and (s != s2) == (o != o2)
    assert (s == s) == (o == o)
    assert (s == 1) == (o == 1) and (o == s) == (s == o) == (name == "OwnMethods")
    for f in dataclasses.fields(type(s)):
        if type(s).__dataclass_params__.frozen:
            s3, o3 = dataclasses.replace(s, **{f.name: "other"}), _model.replace(o, **{f.name: "other"})
        else:
            s3, o3 = copy.copy(s), copy.copy(o)
            setattr(s3, f.name, "other")
            setattr(o3, f.name, "other")
        assert (s == s3) == (o == o3), f.name
        assert repr(s3) == repr(o3)
    # hashing: the same kind of result (hashable by value, or not hashable)
    assert (type(s).__hash__ is None) == (type(o).__hash__ is None)
    if type(s).__hash__ is not None:
        assert (hash(s) == hash(s2)) == (hash(o) == hash(o2))
        if type(s).__dataclass_params__.frozen:
            assert hash(s) == hash(o) and len({o, o2}) == 1
    else:
        with pytest.raises(TypeError):
            hash(o)


def test_class_shapes_same_as_dataclasses():
    for name, s in STD.items():
        o = OURS[name]
        assert o.__qualname__ == s.__qualname__ and o.__name__ == s.__name__
        assert ("__slots__" in o.__dict__) == ("__slots__" in s.__dict__)
        assert getattr(o, "__slots__", None) == getattr(s, "__slots__", None)
        for attr in ("kind", "other", "not_a_field", "items", "hidden", "secret", "c", "b", "removed", "content"):
            assert hasattr(o, attr) == hasattr(s, attr), (name, attr)
            if hasattr(s, attr):
                so, oo = getattr(s, attr), getattr(o, attr)
                assert (oo == so if "__slots__" not in s.__dict__ else type(oo) is type(so)), (name, attr)
        assert o.__init__.__qualname__ == f"{o.__qualname__}.__init__" or "__init__" not in o.__dict__


def test_defaults_and_factories():
    F = OURS["Factories"]
    a, b = F("a"), F("b")
    assert a.items == [] and a.items is not b.items and a.table is not b.table
    assert a.hidden is None and a.secret == 7
    assert "kind" not in [f.name for f in _model.fields(F)] and F.kind == "k" and F.other == 5
    with pytest.raises(TypeError):
        F()
    with pytest.raises(TypeError):
        F("a", unknown=1)
    assert OURS["PostInit"](4).b == 8
    assert OURS["Derived"](1) == OURS["Derived"](1, 5, 2)


def test_frozen():
    for name, args, attr in (("Frozen", ("a", "b"), "kind"), ("FrozenSlotted", (1,), "y")):
        s, o = STD[name](*args), OURS[name](*args)
        msgs = []
        changes = [lambda t: setattr(t, attr, 1), lambda t: delattr(t, attr)]
        if name == "Frozen":    # (on a frozen slotted class the standard module of Python 3.11 says TypeError:
            #                     https://github.com/python/cpython/issues/90562)
            changes.append(lambda t: setattr(t, "new", 1))
        for target in (s, o):
            for change in changes:
                with pytest.raises(AttributeError) as exc:
                    change(target)
                msgs.append(str(exc.value))
        assert msgs[:len(changes)] == msgs[len(changes):]
        with pytest.raises(_model.FrozenInstanceError, match="cannot assign to field 'new'"):
            o.new = 1
        with pytest.raises(_model.FrozenInstanceError, match=f"cannot assign to field '{attr}'"):
            setattr(o, attr, 1)
    f = OURS["Frozen"]("n", "k")
    assert _model.replace(f, kind="z") == OURS["Frozen"]("n", "z") and f.kind == "k"


def test_slots():
    o = OURS["Slotted"](1, "n")
    assert not hasattr(o, "__dict__")
    with pytest.raises(AttributeError):
        o.unknown = 1
    o.removed = True
    assert o.removed and repr(o) == repr(STD["Slotted"](1, "n", None, True))


@pytest.mark.parametrize("name,args,kwargs", [c for c in CASES if c[0] not in ("Inner", "Plain", "Factories")][:12])
def test_copy_and_pickle(name, args, kwargs):
    o = OURS[name](*args, **kwargs)
    for c in (copy.copy(o), copy.deepcopy(o)):
        assert repr(c) == repr(o) and type(c) is type(o)
    if name != "OwnMethods":                 # classes local to a function: pickle via copyreg only
        assert copy.deepcopy(o) == o


def test_pickle_module_level():
    for o in (Point(1, 2), FrozenPoint(1), SlotPoint(3), FrozenSlotPoint(4, [5])):
        c = pickle.loads(pickle.dumps(o))
        assert c == o and repr(c) == repr(o) and type(c) is type(o)


@_model.dataclass
class Point:
    x: int
    y: int = 0


@_model.dataclass(frozen=True)
class FrozenPoint:
    x: int


@_model.dataclass(slots=True)
class SlotPoint:
    x: int


@_model.dataclass(frozen=True, slots=True)
class FrozenSlotPoint:
    x: int
    y: list = _model.field(default_factory=list, compare=True)


def test_recursive_repr():
    for dc in (dataclasses.dataclass, _model.dataclass):
        @dc
        class Node:
            children: list

        n = Node([])
        n.children.append(n)
        assert repr(n) == "test_recursive_repr.<locals>.Node(children=[...])"


def test_mistakes_are_refused_like_dataclasses():
    for dc, field in ((dataclasses.dataclass, dataclasses.field), (_model.dataclass, _model.field)):
        with pytest.raises(ValueError):
            @dc
            class A:
                x: list = []
        with pytest.raises(TypeError):
            @dc
            class B:
                x: int = 0
                y: int
        with pytest.raises(ValueError):
            field(default=1, default_factory=list)
        with pytest.raises(TypeError):
            @dc(frozen=True)
            class C:
                x: int

                def __setattr__(self, name, value):
                    pass


def test_replace():
    o = OURS["Factories"]("a", [1], secret=9)
    r = _model.replace(o, name="b")
    assert r.name == "b" and r.items is o.items and r.secret == 9
    with pytest.raises(TypeError):
        _model.replace(o, nope=1)
    with pytest.raises(TypeError):
        _model.replace(object())


def test_section_context_still_a_record():
    from objllvm.sections.registry import SectionContext
    a, b = SectionContext(), SectionContext(symbols=[1])
    assert a != b and a == SectionContext() and b.symbols == [1]
    assert repr(a) == ("SectionContext(endian='<', addr_size=8, is_relocatable=False, file_type='ET_REL', "
                       "machine='x86-64', format='elf', section=None, obj=None, symbols=[], relocations=[], options={}, "
                       "warnings=[], symbols_error=None, relocations_error=None)")


def test_registry_loads_without_dataclasses_inspect_typing():
    """The command line's start-up path (parser, codec registry) imports none of the slow standard modules
    (threading: the registry loads codecs without a lock of its own).  (-S: no site hooks, which may import
    some of them before objllvm does.)"""
    slow = ("dataclasses", "inspect", "typing", "pkgutil", "tempfile", "json", "shutil", "threading")
    code = ("import sys; pre = set(sys.modules); sys.path.insert(0, {root!r}); {imports}; "
            "print(sorted(m for m in {slow!r} if m in sys.modules and m not in pre))")
    for imports in ("import objllvm.cli, objllvm.sections.registry as r; r._load_all()",
                    "from objllvm import cli; cli.build_parser(['dump', 'x.o'])",
                    "from objllvm import cli; cli.build_parser(['rewrite', 'x.o', '-o', 'y.o'])",
                    "from objllvm import api"):
        out = subprocess.run([sys.executable, "-I", "-S", "-c", code.format(root=str(ROOT), imports=imports, slow=slow)],
                             capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "[]", imports


def _three_required(dc):
    @dc
    class Three:
        a: int
        b: int
        c: int
        d: int = 0
    return Three


def test_init_refuses_the_calls_dataclasses_refuse_with_the_same_message():
    """One generic __init__ serves every model class: each call that does not fit its fields raises the
    TypeError the standard module's compiled __init__ raises, word for word (qualified name included)."""
    ours = dict(OURS, Three=_three_required(_model.dataclass))
    std = dict(STD, Three=_three_required(dataclasses.dataclass))
    bad = [("Plain", (1, "x", 4, "y", 5), {}), ("Plain", (1,), {}), ("Plain", (), {}), ("Plain", (1, "x"), {"a": 2}),
           ("Plain", (1, "x"), {"nope": 1}), ("Plain", (1, 2, 3, 4, 5), {"nope": 1}), ("Plain", (1,), {"nope": 1}),
           ("Frozen", (), {"name": "n"}), ("Empty", (1,), {}), ("Empty", (), {"x": 1}),
           ("Three", (), {}), ("Three", (1,), {}), ("Three", (), {"b": 1}), ("Three", (1, 2, 3, 4, 5, 6), {}),
           ("FrozenSlotted", (1, 2, 3), {}), ("Factories", (), {"items": []}), ("Derived", (1, 2, 3, 4), {})]
    for name, args, kwargs in bad:
        with pytest.raises(TypeError) as want:
            std[name](*args, **kwargs)
        with pytest.raises(TypeError) as got:
            ours[name](*args, **kwargs)
        assert str(got.value) == str(want.value), name
    for name, args, kwargs in CASES:                  # and the calls that fit make the same instances
        s, o = std[name](*args, **kwargs), ours[name](*args, **kwargs)
        assert repr(s) == repr(o) and _state(s) == {n: getattr(o, n) for n in _state(s)}, name


def test_factories_run_once_per_instance_and_only_for_fields_not_given():
    calls = []

    @_model.dataclass
    class Counted:
        a: int
        items: list = _model.field(default_factory=lambda: calls.append(1) or [])

    Counted(1, [2])
    Counted(1, items=[2])
    assert calls == []
    x, y = Counted(1), Counted(a=1)
    assert calls == [1, 1] and x.items == [] and x.items is not y.items


def test_init_stores_fields_in_order_through_dict_or_descriptors():
    """__init__ keeps the fields' order whatever the call gives, runs a subclass's property setter, and fills a
    slotted or frozen model alike."""
    from objllvm._model import dataclass, field

    @dataclass
    class P:
        a: int
        b: list = field(default_factory=list)
        c: int = 3

    p = P(1, c=5)
    assert list(vars(p)) == ["a", "b", "c"] and (p.a, p.b, p.c) == (1, [], 5) and P(1).b is not P(1).b
    seen = []

    class Q(P):
        @property
        def c(self):
            return self._c

        @c.setter
        def c(self, v):
            seen.append(v)
            self._c = v

    assert Q(2, [1], 7).c == 7 and seen == [7]

    @dataclass(slots=True)
    class S:
        x: int
        y: int = 0

    @dataclass(frozen=True)
    class F:
        x: int
        y: int = 0

    assert (S(1).x, S(1, y=2).y, F(3).x, F(3, 4).y) == (1, 2, 3, 4)
    with pytest.raises(TypeError, match="multiple values for argument 'a'"):
        P(1, a=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        P(1, z=2)


def test_section_init_written_out_takes_every_field():
    """formats.base.Section writes its __init__ out: its parameters are the model's fields, in order, with the
    same defaults, so a field added to the class cannot be left out of it."""
    import inspect
    from objllvm._model import MISSING, fields
    from objllvm.formats.base import Section
    params = list(inspect.signature(Section.__init__).parameters.values())[1:]
    flds = fields(Section)
    assert [p.name for p in params] == [f.name for f in flds]
    assert [p.default for p in params] == [inspect.Parameter.empty if f.default is MISSING else f.default
                                           for f in flds]
    s = Section(3, ".x", 1, 2, 3, 4, 5, 6, 7, 8, 9, "zlib", None, b"ab")
    assert [getattr(s, f.name) for f in flds] == [3, ".x", 1, 2, 3, 4, 5, 6, 7, 8, 9, "zlib", None, b"ab"]
