"""Templates that come from users' files, rendered as data: no code runs, work and size are
bounded.

A domain pack's wording forms, its question and its text macros, a prompt file, and the wording
a dataset's manifest records are Jinja2 templates that a user downloads or a dataset brings. They
render in :class:`PackEnvironment`, Jinja2's immutable sandbox narrowed further:

* **nothing is called but data's own helpers**: a template may call its macros, ``range``,
  ``dict``, the functions its caller exposes (:func:`exposed`) and a few methods of strings and
  mappings (``upper``, ``replace``, ``items``, …); any other callable is refused, whatever
  attribute path reaches it (the sandbox already refuses ``__``-attributes and internals);
* **no file is read**: ``include``, ``import``, ``extends`` and recursive loops are refused at
  compile time; ``cycler``, ``joiner``, ``namespace`` and ``lipsum`` are not there;
* **bounded work**: every call, filter, loop step and intercepted operator counts against
  :data:`MAX_STEPS` per render, with a wall-clock backstop of :data:`MAX_SECONDS` (looked at
  on every step, so a filter that works on a large value cannot run long unseen);
* **bounded size**: a template's source stays under :data:`MAX_SOURCE_CHARS` characters and
  nests no deeper than Python can compile; a render's output, and every string or list it
  builds (``*``, ``+``, ``~``, ``join``, ``replace``, a filter's or a call's result, a macro's
  or a block's output), stay under :data:`MAX_CHARS` characters, and all it prints, macros and
  blocks included, under :data:`MAX_PRINTED` characters; ``**`` and ``*`` on numbers stay
  under :data:`MAX_INT_BITS` bits; ``%`` formatting of strings and the filters that pad or
  format (``center``, ``indent``, ``format``, …) are not there.

A limit crossed raises :class:`TemplateLimit`, a :class:`jinja2.sandbox.SecurityError` (so a
``jinja2.TemplateError`` handler sees it); an unsafe call raises ``SecurityError`` itself; a
source too long or too deeply nested is a :class:`jinja2.TemplateSyntaxError`.
:func:`template_line` finds the line of the template an error was raised on.

Renders must be bounded: :meth:`BoundedTemplate.render` is; Python code that calls a
template's macros or builds its module does so inside :func:`bounded` (or with
:func:`call_macro` / :func:`module_of`). Outside one, the first step raises ``RuntimeError``:
an unbounded render is a bug, found by the tests that render every pack field.
"""

from __future__ import annotations

import contextvars
import functools
import operator
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import jinja2
import jinja2.filters
from jinja2 import nodes
from jinja2.exceptions import SecurityError
from jinja2.runtime import LoopContext, Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment, safe_range

MAX_STEPS = 100_000
"""Calls, filters, loop steps and intercepted operators per render (a statement form takes
tens, a text macro or a prompt hundreds)."""
MAX_SECONDS = 2.0
"""Wall-clock time per render, a backstop: the step budget binds first on any sane machine."""
MAX_CHARS = 1_000_000
"""Characters of a render's output, and of any string or list a template builds."""
MAX_INT_BITS = 4096
"""Bits of an integer a template computes with ``*`` or ``**``."""
MAX_DEPTH = 50
"""Calls in progress at once (a macro that calls itself)."""
CHARS_PER_STEP = 16
"""Characters of its operands a filter, method call or operator may walk through per step."""
MAX_PRINTED = 10 * MAX_CHARS
"""Characters a render prints in all, its macros' and blocks' output included."""
MAX_SOURCE_CHARS = 256 * 1024
"""Characters of a template's source."""

F = TypeVar("F", bound=Callable[..., Any])


class TemplateLimit(SecurityError):
    """A template went past a bound of work or size."""


class _Budget:
    """The work one render may still do."""

    __slots__ = ("deadline", "depth", "printed", "steps")

    def __init__(self) -> None:
        self.steps = MAX_STEPS
        self.deadline = time.monotonic() + MAX_SECONDS
        self.depth = 0
        self.printed = MAX_PRINTED

    def tick(self, count: int = 1) -> None:
        self.steps -= count
        if self.steps < 0:
            raise TemplateLimit(f"the template does too much work (more than {MAX_STEPS:,} "
                                "calls and loop steps)")
        if time.monotonic() > self.deadline:
            raise TemplateLimit(f"the template ran for more than {MAX_SECONDS:g} s")

    def print(self, characters: int) -> None:
        self.printed -= characters
        if self.printed < 0:
            raise TemplateLimit(f"the template prints more than {MAX_PRINTED:,} characters "
                                "in all")


_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar(
    "hopvista_template_budget", default=None)


@contextmanager
def bounded() -> Iterator[None]:
    """Count the template work done in the block against one render's budget (nested blocks
    share the outermost one)."""
    if _BUDGET.get() is not None:
        yield
        return
    token = _BUDGET.set(_Budget())
    try:
        yield
    finally:
        _BUDGET.reset(token)


def _budget() -> _Budget:
    budget = _BUDGET.get()
    if budget is None:
        raise RuntimeError("a pack template ran outside hopvista.sandbox.bounded()")
    return budget


def _tick(count: int = 1) -> None:
    _budget().tick(count)


def exposed(function: F) -> F:
    """Mark ``function`` as callable from sandboxed templates (e.g. a prompt's ``image``)."""
    function.hopvista_exposed = True  # type: ignore[attr-defined]
    return function


def _weight(value: Any, limit: int = MAX_CHARS) -> int:
    """About how many characters ``value`` prints as; stops counting past ``limit``."""
    if isinstance(value, str):
        return len(value)
    total = 0
    pending = [value]
    while pending and total <= limit:
        item = pending.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, Mapping):
            total += 2
            pending.extend(x for pair in item.items() for x in pair)
        elif isinstance(item, list | tuple | set | frozenset):
            total += 2
            pending.extend(item)
        else:
            total += 8
    return total


def _charge(values: Iterable[Any]) -> None:
    """One step, and one more per :data:`CHARS_PER_STEP` characters of ``values``: what a
    filter, a method or an operator walks through. Any of them too large is refused."""
    weight = 0
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool) and \
                value.bit_length() > MAX_INT_BITS:
            raise TemplateLimit(f"a value would be a number of more than {MAX_INT_BITS} bits")
        weight += _weight(value)
        if weight > MAX_CHARS:
            raise TemplateLimit(f"a value would be longer than {MAX_CHARS:,} characters")
    _tick(1 + weight // CHARS_PER_STEP)


def _check_size(value: Any, what: str) -> Any:
    if isinstance(value, str | list | tuple | dict | set | frozenset) and \
            _weight(value) > MAX_CHARS:
        raise TemplateLimit(f"{what} would be longer than {MAX_CHARS:,} characters")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise TemplateLimit(f"{what} would be a number of more than {MAX_INT_BITS} bits")
    return value


@exposed
def _range(*args: int) -> Iterator[int]:
    for value in safe_range(*args):
        _tick()
        yield value


@exposed
def _loop(iterable: Any) -> Iterator[Any]:
    """What a ``for`` loop walks: the iterable, one step of the budget per element."""
    if isinstance(iterable, jinja2.Undefined):
        iterable = list(iterable)  # StrictUndefined raises here, naming the variable
    for value in iterable:
        _tick()
        yield value


@exposed
def _concat(*parts: Any) -> str:
    """``a ~ b ~ …``, refused before it is built when it would be too long."""
    texts = [p if isinstance(p, str) else str(_check_size(p, "a joined value")) for p in parts]
    if sum(len(t) for t in texts) > MAX_CHARS:
        raise TemplateLimit(f"a joined string would be longer than {MAX_CHARS:,} characters")
    return "".join(texts)


@jinja2.pass_environment
def _join(environment: jinja2.Environment, value: Iterable[Any], d: str = "",
          attribute: str | int | None = None) -> str:
    if attribute is not None:
        value = map(jinja2.filters.make_attrgetter(environment, attribute), value)
    items = [v if isinstance(v, str) else str(_check_size(v, "a joined value")) for v in value]
    if sum(len(t) for t in items) + len(d) * max(len(items) - 1, 0) > MAX_CHARS:
        raise TemplateLimit(f"a joined string would be longer than {MAX_CHARS:,} characters")
    return d.join(items)


def _replace(s: Any, old: str, new: str, count: int | None = None) -> str:
    text = str(s)
    hits = text.count(old) if count is None or count < 0 else min(count, text.count(old))
    if len(text) + hits * (len(new) - len(old)) > MAX_CHARS:
        raise TemplateLimit(f"a replaced string would be longer than {MAX_CHARS:,} characters")
    return text.replace(old, new, -1 if count is None else count)


def _string(value: Any) -> str:
    return str(_check_size(value, "a string"))


def _counted(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as a filter of pack templates: one step of the budget per use, its result
    bounded in size (Jinja2's ``pass_environment`` and the like are kept)."""
    @functools.wraps(function)
    def counted(*args: Any, **kwargs: Any) -> Any:
        _charge(args)
        return _check_size(function(*args, **kwargs), "a filter's result")
    return counted


def _bounded_concat(parts: Iterable[str]) -> str:
    """The output of a macro or a block, refused when it would be too long."""
    texts = list(parts)
    if sum(len(t) for t in texts) > MAX_CHARS:
        raise TemplateLimit(f"a macro's or a block's output would be longer than "
                            f"{MAX_CHARS:,} characters")
    return "".join(texts)


_SAFE_FILTERS = ("abs", "attr", "capitalize", "count", "d", "default", "dictsort", "e",
                 "escape", "first", "float", "int", "items", "last", "length", "list", "lower",
                 "map", "max", "min", "reject", "rejectattr", "reverse", "round", "select",
                 "selectattr", "sort", "striptags", "title", "trim", "truncate", "unique",
                 "upper", "wordcount")
_OWN_FILTERS: dict[str, Callable[..., Any]] = {"join": _join, "replace": _replace,
                                               "string": _string}

_STR_METHODS = frozenset({
    "capitalize", "casefold", "count", "endswith", "find", "isalnum", "isalpha", "isdigit",
    "islower", "isnumeric", "isspace", "istitle", "isupper", "lower", "lstrip", "rfind",
    "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title",
    "upper"})
_MAPPING_METHODS = frozenset({"get", "items", "keys", "values"})
_SEQUENCE_METHODS = frozenset({"count", "index"})


def _method_allowed(function: Any) -> bool:
    owner = getattr(function, "__self__", None)
    name = getattr(function, "__name__", "")
    if isinstance(owner, str):
        return name in _STR_METHODS
    if isinstance(owner, Mapping):
        return name in _MAPPING_METHODS
    if isinstance(owner, list | tuple):
        return name in _SEQUENCE_METHODS
    if isinstance(owner, LoopContext):
        return name in ("cycle", "changed")
    return False


def _intercepted_binop(op: str, left: Any, right: Any) -> Any:
    """The value of ``left op right``, refused before it is computed when it would be huge."""
    if op == "%" and isinstance(left, str):
        raise SecurityError("'%' formatting of strings is not available in pack templates")
    if op == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, str | list | tuple) and isinstance(times, int) and \
                    _weight(seq) * max(times, 0) > MAX_CHARS:
                raise TemplateLimit(f"a repeated value would be longer than {MAX_CHARS:,} "
                                        "characters")
        if isinstance(left, int) and isinstance(right, int) and \
                left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise TemplateLimit(f"a product would be a number of more than {MAX_INT_BITS} bits")
    if op == "**" and isinstance(left, int) and isinstance(right, int) and \
            abs(left) > 1 and right > 0 and left.bit_length() * right > MAX_INT_BITS:
        raise TemplateLimit(f"a power would be a number of more than {MAX_INT_BITS} bits")
    if op == "+" and isinstance(left, str | list | tuple) and \
            isinstance(right, str | list | tuple) and _weight(left) + _weight(right) > MAX_CHARS:
        raise TemplateLimit(f"a sum would be longer than {MAX_CHARS:,} characters")
    return _BINOPS[op](left, right)


_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "**": operator.pow, "%": operator.mod}


class BoundedTemplate(jinja2.Template):
    """A template whose :meth:`render` is bounded in work and output size."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        """Render within one budget; :class:`TemplateLimit` past a bound."""
        with bounded():
            out: list[str] = []
            size = 0
            for chunk in self.generate(*args, **kwargs):
                size += len(chunk)
                if size > MAX_CHARS:
                    raise TemplateLimit(f"the template's output is longer than {MAX_CHARS:,} "
                                        "characters")
                out.append(chunk)
            return "".join(out)


class PackEnvironment(ImmutableSandboxedEnvironment):
    """Jinja2 for templates that users supply (see the module's docstring)."""

    template_class = BoundedTemplate
    intercepted_binops = frozenset(_BINOPS)

    def __init__(self, **options: Any) -> None:
        options.setdefault("undefined", jinja2.StrictUndefined)
        options.setdefault("autoescape", False)
        super().__init__(optimized=False, finalize=_finalize, **options)
        self.globals.clear()
        self.globals.update({"range": _range, "dict": dict, "_hv_loop": _loop,
                             "_hv_concat": _concat})
        self.filters = {name: _counted(jinja2.filters.FILTERS[name]) for name in _SAFE_FILTERS}
        self.filters.update({name: _counted(f) for name, f in _OWN_FILTERS.items()})

    concat = staticmethod(_bounded_concat)

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        if len(source) > MAX_SOURCE_CHARS:
            raise jinja2.TemplateSyntaxError(
                f"the template is longer than {MAX_SOURCE_CHARS:,} characters", 1, name,
                filename)
        try:
            return _bounded_tree(super()._parse(source, name, filename), name, filename)
        except RecursionError:
            raise _too_deep(name, filename) from None

    def _generate(self, source: nodes.Template, name: str | None, filename: str | None,
                  defer_init: bool = False) -> str:
        try:
            return super()._generate(source, name, filename, defer_init=defer_init)
        except RecursionError:
            raise _too_deep(name, filename) from None

    def _compile(self, source: str, filename: str) -> Any:
        try:
            return super()._compile(source, filename)
        except (RecursionError, SyntaxError):
            raise _too_deep(None, filename) from None

    def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
        """An internal attribute of an undefined name is that name, still undefined (so the
        error says ``'cycler' is undefined``); of anything else, a refusal."""
        if isinstance(obj, jinja2.Undefined):
            return obj
        return super().unsafe_undefined(obj, attribute)

    def is_safe_callable(self, obj: Any) -> bool:
        """Only macros, the environment's own helpers, :func:`exposed` functions, ``dict``,
        and a few methods of strings, mappings and lists may be called."""
        if not super().is_safe_callable(obj):
            return False
        return isinstance(obj, Macro) or obj is dict or \
            getattr(obj, "hopvista_exposed", False) or _method_allowed(obj)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """Call ``__obj`` when it is safe, counting the call and bounding its arguments,
        result and depth."""
        budget = _budget()
        _charge((*args, *kwargs.values()))
        if not __self.is_safe_callable(__obj):
            raise SecurityError(f"{getattr(__obj, '__name__', type(__obj).__name__)!r} cannot "
                                "be called from a pack template")
        if getattr(__obj, "__name__", "") == "replace" and isinstance(
                getattr(__obj, "__self__", None), str) and len(args) >= 2:
            return _replace(__obj.__self__, *args[:3])
        if budget.depth >= MAX_DEPTH:
            raise TemplateLimit(f"calls nest more than {MAX_DEPTH} deep (a macro that calls "
                                "itself?)")
        budget.depth += 1
        try:
            return _check_size(__context.call(__obj, *args, **kwargs), "a call's result")
        finally:
            budget.depth -= 1

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        """``left operator right``, counted and bounded."""
        _charge((left, right))
        return _check_size(_intercepted_binop(operator, left, right), "a computed value")


def _finalize(value: Any) -> Any:
    if type(value) is str:  # the common case, kept quick
        size = len(value)
        if size > MAX_CHARS:
            raise TemplateLimit(f"a printed value would be longer than {MAX_CHARS:,} "
                                "characters")
    else:
        _check_size(value, "a printed value")
        size = _weight(value)
    _budget().print(size)
    return value


def _too_deep(name: str | None, filename: str | None) -> jinja2.TemplateSyntaxError:
    return jinja2.TemplateSyntaxError("the template nests too deeply", 1, name, filename)


def _bounded_tree(tree: nodes.Template, name: str | None, filename: str | None
                  ) -> nodes.Template:
    """Refuse what reads files or loops without bound; route loops and ``~`` through the
    budget."""
    for node in tree.find_all((nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)):
        raise jinja2.TemplateSyntaxError(
            "a pack template cannot include, import or extend other templates",
            node.lineno, name, filename)
    for loop in tree.find_all(nodes.For):
        if loop.recursive:
            raise jinja2.TemplateSyntaxError("recursive loops are not available in pack "
                                             "templates", loop.lineno, name, filename)
        loop.iter = nodes.Call(nodes.Name("_hv_loop", "load", lineno=loop.lineno), [loop.iter],
                               [], None, None, lineno=loop.lineno)
    for concat in list(tree.find_all(nodes.Concat)):
        call = nodes.Call(nodes.Name("_hv_concat", "load", lineno=concat.lineno),
                          list(concat.nodes), [], None, None, lineno=concat.lineno)
        _replace_node(tree, concat, call)
    return tree


def _replace_node(tree: nodes.Node, old: nodes.Node, new: nodes.Node) -> None:
    for parent in tree.find_all(nodes.Node):
        for field in parent.fields:
            value = getattr(parent, field, None)
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for i, element in enumerate(value):
                    if element is old:
                        value[i] = new
                        return


def template_line(exc: BaseException) -> int | None:
    """The line of the template where ``exc`` was raised (a syntax error's line, or the
    innermost template line of its traceback), or ``None``."""
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return exc.lineno
    line = None
    tb = exc.__traceback__
    while tb is not None:
        scope = tb.tb_frame.f_globals
        template = scope.get("__jinja_template__")
        if isinstance(template, jinja2.Template):
            line = template.get_corresponding_lineno(tb.tb_lineno)
        elif "__jinja_exception__" in scope:  # a frame Jinja2 rewrote to the template's line
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


TEMPLATE_ERRORS: tuple[type[Exception], ...] = (
    jinja2.TemplateError, TypeError, ValueError, ArithmeticError, LookupError, AttributeError)
"""What rendering a user's template may raise for a reason of its own (a bound, a refused
access, a typo, ``1 // 0``): a user's mistake, never a bug of hopvista."""

_LONGEST_REASON = 300


def describe(exc: BaseException, available: Iterable[str] = (), with_line: bool = True) -> str:
    """One line saying why a template failed: ``template syntax: …``, ``refused: …`` (a bound
    or an access the sandbox does not allow), ``'x' is undefined (available: …)`` or
    ``cannot render: …``; ``with_line``: with the template's line when it has more than one
    (callers that name the line themselves leave it out)."""
    line = template_line(exc) if with_line else None
    at = f" (line {line} of the template)" if line is not None and line > 1 else ""
    if isinstance(exc, jinja2.TemplateSyntaxError):
        text = f"template syntax{at}: {exc.message or exc}"
    elif isinstance(exc, SecurityError):
        text = f"refused{at}: {exc}"
    elif isinstance(exc, jinja2.UndefinedError):
        names = ", ".join(available)
        text = f"{exc.message}{at}" + (f" (available: {names})" if names else "")
    else:
        text = f"cannot render{at}: {exc}"
    text = " ".join(text.split())
    return text if len(text) <= _LONGEST_REASON else text[:_LONGEST_REASON - 1] + "…"


def call_macro(macro: Macro, *args: Any) -> str:
    """``macro(*args)`` from Python, bounded like a render."""
    with bounded():
        out = macro(*args)
        return str(_check_size(str(out), "a macro's output"))


def module_of(template: jinja2.Template) -> Any:
    """``template.module`` (its macros), built within a render's budget."""
    with bounded():
        return template.module
