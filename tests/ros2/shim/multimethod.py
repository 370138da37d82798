# SPDX-License-Identifier: Apache-2.0
"""A stand-in for the `multimethod` package (not packaged in Debian), enough
for caret_analyze: it uses `multimethod` as a method decorator whose
`.register` adds overloads chosen by the run-time types of the positional
arguments against their annotations (which may be strings, unions, None and
parametrised containers such as `list[str]` or `Sequence[X]`).

The first decorated function is the generic one: it is called only when no
registered overload accepts the arguments (or when it alone does)."""
import collections.abc
import inspect
import types
import typing

__all__ = ["multimethod"]


def _accepts(hint, value):
    if hint is inspect.Parameter.empty or hint is typing.Any or hint is object:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_accepts(h, value) for h in typing.get_args(hint))
    if origin is None:
        return isinstance(value, hint) if isinstance(hint, type) else True
    if not isinstance(value, origin):
        return False
    args = typing.get_args(hint)
    if not args:
        return True
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_accepts(args[0], v) for v in value)
        return len(args) == len(value) and all(_accepts(h, v) for h, v in zip(args, value))
    if issubclass(origin, collections.abc.Mapping):
        return all(_accepts(args[0], k) and _accepts(args[-1], v) for k, v in value.items())
    if issubclass(origin, collections.abc.Iterable) and not isinstance(value, (str, bytes)):
        return all(_accepts(args[0], v) for v in value)
    return True


class _Overload:
    def __init__(self, func):
        self.func = func
        self.sig = inspect.signature(func)
        self._hints = None

    def hints(self):
        # Resolved at the first call: annotations may name classes defined later in the module.
        if self._hints is None:
            try:
                self._hints = typing.get_type_hints(self.func)
            except Exception:
                self._hints = {}
        return self._hints

    def accepts(self, args, kwargs):
        try:
            bound = self.sig.bind(*args, **kwargs)
        except TypeError:
            return False
        hints = self.hints()
        names = list(self.sig.parameters)
        for name, value in zip(names, args):
            if not _accepts(hints.get(name, inspect.Parameter.empty), value):
                return False
        return bound is not None


class multimethod:
    def __init__(self, func):
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self.generic = _Overload(func)
        self.overloads = []

    def register(self, func):
        self.overloads.append(_Overload(func))
        # As multimethod does: a differently named overload stays usable under its own name.
        return self if func.__name__ == self.__name__ else func

    def __get__(self, instance, owner=None):
        return self if instance is None else types.MethodType(self, instance)

    def __call__(self, *args, **kwargs):
        for o in self.overloads:
            if o.accepts(args, kwargs):
                return o.func(*args, **kwargs)
        return self.generic.func(*args, **kwargs)
