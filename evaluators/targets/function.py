"""A Python target's function: imported into the evaluator's own Python, its ``args`` bound.

Contract: :func:`load_function` imports the module of ``python: package.module:function`` into this
process — the evaluator's own interpreter (``sys.executable``): its installed packages, its
``sys.path`` (the current folder when run as ``python -m evaluators``, then ``PYTHONPATH``) — and
returns the function with the target's ``args`` bound as keyword arguments, so each question calls
``function(row, **args)`` (sync or async; ``row`` the question row as a dict). Before any call, a
:class:`~.errors.TargetError` naming the ``python`` / ``args`` field: a module that cannot be imported
(saying which Python it was looked for in, and when the missing one is a package the module imports),
a name that is not a function of it, a function that does not take the row and the args.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
from typing import Any, Callable

from .errors import TargetError
from .model import Target


def _import_error(target: Target, module: str, exc: BaseException) -> TargetError:
    where = (f"a Python target runs inside the evaluator's own Python ({sys.executable}), not in your app's "
             "environment")
    missing = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    if missing and not (module == missing or module.startswith(missing + ".")):
        why = (f"python: {module!r} imports {missing!r}, which is not installed here: {where}; install what "
               "your app needs into it (pip install …), or serve the app over HTTP and give an http target")
    else:
        why = (f"python: cannot import {module!r} ({type(exc).__name__}: {exc}): {where}; is its folder on "
               "PYTHONPATH (or the current folder)?")
    return TargetError(target.source, why, field="python")


def load_function(target: Target) -> Callable[..., Any]:
    """The target's function with its ``args`` bound (see the module doc)."""
    ref = target.spec.python or ""
    module, _, name = ref.partition(":")
    try:
        mod = importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 - any import failure is this target's error
        raise _import_error(target, module, exc) from None
    fn = getattr(mod, name, None)
    if not callable(fn):
        raise TargetError(target.source, f"python: {module!r} has no function {name!r}", field="python")
    args = dict(target.spec.args or {})
    try:
        inspect.signature(fn).bind({}, **args)
    except TypeError as exc:
        given = f" with args {', '.join(args)}" if args else ""
        raise TargetError(target.source, f"python: {ref} cannot be called as {name}(row{', **args' if args else ''})"
                                         f"{given} ({exc})", field="args" if args else "python") from None
    except ValueError:
        pass  # a builtin without a signature: called as it is
    return functools.partial(fn, **args) if args else fn


__all__ = ["load_function"]
