"""Record classes for objllvm's models: the part of the standard ``dataclasses`` the package uses, without
importing it (it brings ``inspect``, and with it ``ast``, ``dis`` and ``tokenize``, into every start of the
command line).

* :func:`dataclass` (bare, or with ``frozen=True``, ``slots=True``, ``eq=False``, ``repr=False``,
  ``init=False``): adds ``__init__`` (keyword or positional, defaults and factories, then
  ``__post_init__`` when the class has one), ``__repr__`` (``Name(a=1, b='x')``, ``...`` for a
  recursive one), ``__eq__`` (same class, field values compared as a tuple), ``__match_args__`` and,
  like the standard module, ``__hash__``: hashable by value when frozen, ``None`` (unhashable) when it
  compares by value and is not frozen; a method the class defines itself is kept.  Fields are the
  annotated class attributes, those of model base classes first; ``ClassVar`` annotations are not
  fields.  ``frozen=True`` refuses assignment and deletion of attributes (:class:`FrozenInstanceError`);
  ``slots=True`` gives a class with ``__slots__`` and no ``__dict__``.
* :func:`field` (``default``, ``default_factory``, ``repr``, ``compare``), :func:`fields` and
  :func:`replace`.

The methods are closures over the field names, nothing is compiled from source.  The classes are not
``dataclasses`` dataclasses (``dataclasses.is_dataclass`` is False, orjson does not serialise them):
objllvm turns models into plain data itself (``to_dict``) before printing.
"""
from operator import attrgetter

__all__ = ["dataclass", "field", "fields", "replace", "Field", "FrozenInstanceError", "MISSING", "no_gc", "from_packed"]


class _Missing:
    __slots__ = ()

    def __repr__(self):
        return "MISSING"


MISSING = _Missing()           # no default given
_FIELDS = "__model_fields__"   # class attribute: {name: Field} of every field, in order


class FrozenInstanceError(AttributeError):
    """Assignment to (or deletion of) an attribute of a frozen model."""


class Field:
    """One field of a model class (what :func:`field` returns, and :func:`fields` lists)."""
    __slots__ = ("name", "type", "default", "default_factory", "repr", "compare")

    def __init__(self, default=MISSING, default_factory=MISSING, repr=True, compare=True):
        self.name = None
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare

    def __repr__(self):
        return (f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r}, "
                f"repr={self.repr!r}, compare={self.compare!r})")


def field(*, default=MISSING, default_factory=MISSING, repr=True, compare=True) -> Field:
    """A field with options: ``default`` or ``default_factory`` (called once per instance), and whether
    it is shown by ``repr`` and used by ``==`` (and by ``hash`` of a frozen class)."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot give both default and default_factory")
    return Field(default, default_factory, repr, compare)


def fields(obj_or_cls) -> tuple:
    """The fields (:class:`Field`) of a model class or instance, in order."""
    try:
        return tuple(getattr(obj_or_cls, _FIELDS).values())
    except AttributeError:
        raise TypeError("not a model class or instance") from None


def replace(obj, /, **changes):
    """A new instance of ``obj``'s class, with the fields in ``changes`` replaced (the others as in ``obj``)."""
    flds = getattr(type(obj), _FIELDS, None)
    if flds is None:
        raise TypeError("replace() needs a model instance")
    for name in flds:
        if name not in changes:
            changes[name] = getattr(obj, name)
    return type(obj)(**changes)


def _is_classvar(ann) -> bool:
    if isinstance(ann, type):      # an evaluated annotation naming a class (``int``): never ClassVar
        return False
    if not isinstance(ann, str):   # another evaluated one (no ``from __future__ import annotations``)
        ann = repr(ann)
    if "ClassVar" not in ann:      # (most: no repr or strip needed)
        return False
    ann = ann.strip().removeprefix("typing.")
    return ann == "ClassVar" or ann.startswith("ClassVar[")


def _collect(cls) -> dict:
    """{name: Field} of ``cls``: its bases' fields, then its own annotated attributes (the class
    attributes become what the standard module leaves: the default, or nothing)."""
    flds = {}
    for base in reversed(cls.__mro__[1:]):
        own = base.__dict__.get(_FIELDS)
        if own is not None:
            flds.update(own)
    for name, ann in cls.__dict__.get("__annotations__", {}).items():
        if _is_classvar(ann):
            continue
        value = cls.__dict__.get(name, MISSING)
        if isinstance(value, Field):
            f = value
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        else:
            f = Field(value)
        f.name, f.type = name, ann
        d = f.default
        if d is not MISSING and type(d).__hash__ is None:     # list, dict, set...: one object for all
            raise ValueError(f"mutable default {type(d)} for field {name} is not allowed: use default_factory")
        flds[name] = f
    seen_default = None
    for f in flds.values():
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = f.name
        elif seen_default is not None:
            raise TypeError(f"non-default argument {f.name!r} follows default argument {seen_default!r}")
    return flds


def _with_slots(cls, names):
    inherited = set()
    for base in cls.__mro__[1:-1]:
        slots = base.__dict__.get("__slots__", ())
        inherited.update((slots,) if isinstance(slots, str) else slots)
    ns = dict(cls.__dict__)
    ns["__slots__"] = tuple(n for n in names if n not in inherited)
    for n in names:
        ns.pop(n, None)
    ns.pop("__dict__", None)
    ns.pop("__weakref__", None)
    new = type(cls)(cls.__name__, cls.__bases__, ns)
    new.__qualname__ = cls.__qualname__
    return new


def _frozen_state(names):
    def __getstate__(self):
        return [getattr(self, n) for n in names]

    def __setstate__(self, state):
        for n, v in zip(names, state):
            object.__setattr__(self, n, v)
    return __getstate__, __setstate__


def _frozen_methods(cls, names):
    names = frozenset(names)

    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return __setattr__, __delattr__


def _repr_fn(shown):
    running = set()                # (instance, thread) being shown: a model that holds itself shows "..."

    def __repr__(self):
        from threading import get_ident      # (here: the command line shows no model's repr)
        key = (id(self), get_ident())
        if key in running:
            return "..."
        running.add(key)
        try:
            return f"{self.__class__.__qualname__}(" + ", ".join([f"{n}={getattr(self, n)!r}" for n in shown]) + ")"
        finally:
            running.discard(key)
    return __repr__


def _key_fn(names):
    """A function giving the tuple of the attributes ``names`` of an instance."""
    if len(names) >= 2:
        return attrgetter(*names)
    if names:
        name = names[0]
        return lambda o: (getattr(o, name),)
    return lambda o: ()


def _eq_fn(key):
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented
    return __eq__


def _hash_fn(key):
    def __hash__(self):
        return hash(key(self))
    return __hash__


def _init_fn(cls, flds, frozen):
    """``__init__`` for the fields ``flds``: each given by position or by keyword, in the fields' order; a field
    not given takes its default, or a new value from its factory; then ``__post_init__`` runs when the class has
    one.  One function serves every model class (the standard module compiles one per class from source)."""
    names = tuple(flds)
    defaults = {n: f.default for n, f in flds.items() if f.default is not MISSING}
    factories = {n: f.default_factory for n, f in flds.items() if f.default_factory is not MISSING}
    setter = object.__setattr__ if frozen else setattr
    post_init = hasattr(cls, "__post_init__")

    def __init__(self, *args, **kwargs):
        if len(args) > len(names):
            raise _call_error(__init__, names, defaults.keys() | factories.keys(), args, kwargs)
        for name, value in zip(names, args):
            setter(self, name, value)
        used = 0
        for name in names[len(args):]:
            if name in kwargs:
                value = kwargs[name]
                used += 1
            elif name in defaults:
                value = defaults[name]
            elif name in factories:
                value = factories[name]()
            else:
                raise _call_error(__init__, names, defaults.keys() | factories.keys(), args, kwargs)
            setter(self, name, value)
        if used != len(kwargs):
            raise _call_error(__init__, names, defaults.keys() | factories.keys(), args, kwargs)
        if post_init:
            self.__post_init__()
    return __init__


def _call_error(init, names, optional, args, kwargs) -> TypeError:
    """The TypeError Python gives when a function ``init(self, *names)`` (those in ``optional`` with a default)
    is called with ``args`` and ``kwargs`` that do not fit, checked in Python's order: an unknown or repeated
    keyword, then too many positional arguments, then the missing ones."""
    where = f"{init.__qualname__}()"
    for k in kwargs:
        if k not in names:
            return TypeError(f"{where} got an unexpected keyword argument '{k}'")
        if names.index(k) < len(args):
            return TypeError(f"{where} got multiple values for argument '{k}'")
    if len(args) > len(names):
        most, given = len(names) + 1, len(args) + 1          # (self counted, as Python counts it)
        takes = (f"from {most - len(optional)} to {most} positional arguments" if optional else
                 f"{most} positional argument{'s' if most != 1 else ''}")
        return TypeError(f"{where} takes {takes} but {given} {'was' if given == 1 else 'were'} given")
    missing = [repr(n) for n in names[len(args):] if n not in kwargs and n not in optional]
    listed = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + (
        "," if len(missing) > 2 else "") + " and " + missing[-1]
    return TypeError(f"{where} missing {len(missing)} required positional argument{'s' if len(missing) != 1 else ''}:"
                     f" {listed}")


def _build(cls, init, repr, eq, frozen, slots):
    flds = _collect(cls)
    names = tuple(flds)
    if slots:
        cls = _with_slots(cls, names)
    own = dict(cls.__dict__)
    made = []
    if init and "__init__" not in own:
        made.append(_init_fn(cls, flds, frozen))
    if repr and "__repr__" not in own:
        made.append(_repr_fn(tuple(n for n, f in flds.items() if f.repr)))
    key = _key_fn(tuple(n for n, f in flds.items() if f.compare))
    if eq and "__eq__" not in own:
        made.append(_eq_fn(key))
    # __hash__ as the standard module sets it (a class body that defines __eq__ gets __hash__ = None from
    # Python itself: that is not a choice of the class)
    explicit_hash = own.get("__hash__", MISSING) is not MISSING and not (
        own.get("__hash__") is None and "__eq__" in own)
    if eq and not explicit_hash:
        if frozen:
            made.append(_hash_fn(key))
        else:
            cls.__hash__ = None
    if frozen:
        for fn in _frozen_methods(cls, names):
            if fn.__name__ in own:
                raise TypeError(f"cannot overwrite attribute {fn.__name__} in class {cls.__name__}")
            made.append(fn)
        if slots:
            made.extend(fn for fn in _frozen_state(names) if fn.__name__ not in own)
    for fn in made:
        fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
        fn.__module__ = cls.__module__
        setattr(cls, fn.__name__, fn)
    setattr(cls, _FIELDS, flds)
    if "__match_args__" not in own:
        cls.__match_args__ = names
    return cls


TYPE_CHECKING = False
if TYPE_CHECKING:                      # type checkers see the models as dataclasses (PEP 681)
    from typing import dataclass_transform
else:                                  # at run time: no typing import (start-up time)
    def dataclass_transform(**kwargs):
        return lambda f: f


@dataclass_transform(field_specifiers=(field, Field))
def dataclass(cls=None, /, *, init=True, repr=True, eq=True, frozen=False, slots=False):
    """Make ``cls`` a model class (see the module documentation); usable bare or with options."""
    def wrap(c):
        return _build(c, init, repr, eq, frozen, slots)
    return wrap if cls is None else wrap(cls)


class no_gc:
    """Context manager: the cyclic garbage collector paused while a decoder or the writer makes many small
    acyclic objects (hundreds of thousands of blocks, regions or section headers: the collector's repeated
    passes over them would cost more than the work itself); what they hold is freed as usual once it runs
    again.  Its state on entry comes back on exit (nesting is harmless)."""

    def __enter__(self):
        import gc
        self.gc = gc
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was:
            self.gc.enable()


class from_packed:
    """A model attribute whose objects are made from packed columns when first read (a decoder keeps the
    columns; the objects cost time and memory a view often does not need): the objects live in the
    attribute ``_<name>`` (None until made), the columns in ``_packed``.  Reading makes the objects with
    ``make(model, packed)`` and drops the columns (from then on the objects are the model: they may be
    edited); assigning replaces the objects and drops the columns."""
    __slots__ = ("make", "slot")

    def __init__(self, make):
        self.make = make
        self.slot = ""

    def __set_name__(self, owner, name):
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = getattr(obj, self.slot)
        if value is None:
            value = self.make(obj, obj._packed)
            setattr(obj, self.slot, value)
            obj._packed = None
        return value

    def __set__(self, obj, value):
        setattr(obj, self.slot, value)
        obj._packed = None
