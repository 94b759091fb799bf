"""Registries: the named things users extend, each filled by a decorator and by entry points.

Every kind of extension (sources, statement types, item kinds, table themes, chart libraries
and kinds, perturbations, models) has one :class:`Registry`. Built-in entries register
themselves with the registry's decorator when their module is imported; a third-party package
declares a Python entry point in the registry's group (``hopvista.sources``, ...) whose value
is a module (or an object in it) that registers its entries the same way::

    [project.entry-points."hopvista.statement_types"]
    mytype = "my_package.types"

The entry points of a group are loaded the first time the registry is asked for a name or a
list of names, so an installed plug-in needs no import by the user.
"""

from __future__ import annotations

import importlib
import os
import threading
import weakref
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any, Generic, TypeVar, overload

from hopvista.errors import UserError

T = TypeVar("T")

ENTRY_POINT_PREFIX = "hopvista."

_REGISTRIES: weakref.WeakSet[Registry[Any]] = weakref.WeakSet()
"""Every registry, so a forked child can renew their locks."""


def _renew_locks_after_fork() -> None:
    for registry in list(_REGISTRIES):
        registry._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_locks_after_fork)


def _origin(obj: object) -> str:
    """Where an entry comes from: the module of a function or class, an entry's own
    ``origin`` attribute, else the module of its type."""
    if isinstance(obj, type) or callable(obj) and hasattr(obj, "__qualname__"):
        return str(getattr(obj, "__module__", "?"))
    return str(getattr(obj, "origin", None) or type(obj).__module__)


class Registry(Generic[T]):
    """Named entries of one kind.

    ``kind`` is how messages speak of an entry ("source", "table theme"); ``group`` is the
    entry-point group that third-party packages use; ``builtins`` are modules imported before
    the first lookup (they register the built-in entries); ``loaders`` are functions called
    after them, before the entry points, that register entries they discover (the table
    themes found as files). A loader that raises leaves the registry unloaded: the next lookup
    runs it again and meets the same error.
    """

    def __init__(self, kind: str, group: str, builtins: tuple[str, ...] = (),
                 loaders: tuple[Callable[[], None], ...] = ()) -> None:
        self.kind = kind
        self.group = ENTRY_POINT_PREFIX + group
        self._builtins = builtins
        self._loaders = loaders
        self._entries: dict[str, T] = {}
        self._origins: dict[str, str] = {}
        self._loaded = False
        self._loading = False
        self._lock = threading.RLock()
        _REGISTRIES.add(self)

    def _after_fork(self) -> None:
        """In a forked child: a fresh lock (the thread that held the parent's is not here),
        and a load that was under way in the parent starts again."""
        self._lock = threading.RLock()
        self._loading = False

    @overload
    def register(self, name: str) -> Callable[[T], T]: ...

    @overload
    def register(self, name: str, entry: T) -> T: ...

    def register(self, name: str, entry: T | None = None) -> T | Callable[[T], T]:
        """Register ``entry`` under ``name``; without ``entry``, a decorator that does.

        Registering a second, different entry under a taken name is an error naming both
        origins (:meth:`unregister` first to replace one); registering an equal entry again
        (a module imported twice) is harmless.
        """
        def add(obj: T) -> T:
            origin = _origin(obj)
            known = self._entries.get(name)
            if known is not None and known is not obj and known != obj:
                raise ValueError(f"{self.kind} {name!r} is registered twice: by "
                                 f"{self._origins[name]} and by {origin}")
            self._entries[name] = obj
            self._origins[name] = origin
            return obj

        return add if entry is None else add(entry)

    def unregister(self, name: str) -> None:
        """Remove ``name`` (tests and plug-ins replacing a built-in use it)."""
        self._entries.pop(name, None)
        self._origins.pop(name, None)

    def _load(self) -> None:
        """Import the built-ins and the entry points, once. Another thread asking meanwhile
        waits until they are all in (the evaluator looks entries up from several threads);
        the loading thread itself, asked again by a module it imports, goes on with what is
        registered so far."""
        if self._loaded:
            return
        with self._lock:
            if self._loaded or self._loading:
                return
            self._loading = True
            try:
                for module in self._builtins:
                    importlib.import_module(module)
                for loader in self._loaders:
                    loader()
                for point in sorted(metadata.entry_points(group=self.group),
                                    key=lambda p: p.name):
                    try:
                        point.load()
                    except Exception as exc:  # a broken plug-in is the user's to fix
                        raise UserError(f"entry point {point.name!r} in {self.group} "
                                        f"({point.value}) failed to load: {exc}") from None
                self._loaded = True
            finally:
                self._loading = False

    def get(self, name: str) -> T:
        """The entry called ``name``; a :class:`UserError` listing the known names if none."""
        self._load()
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "none"
            raise UserError(f"unknown {self.kind} {name!r} (known: {known})") from None

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        self._load()
        return sorted(self._entries)

    def items(self) -> Iterator[tuple[str, T]]:
        """``(name, entry)`` pairs in name order."""
        self._load()
        for name in sorted(self._entries):
            yield name, self._entries[name]

    def origin(self, name: str) -> str:
        """The module that registered ``name``."""
        self._load()
        return self._origins[name]
