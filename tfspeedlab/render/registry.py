"""The catalogue of page directives: each handler registers its name, a one-line summary and typed
parameters, and ``render`` calls it with its arguments converted.

A directive is written ``{{ name ARG ARG option=value }}`` in a page. Its handler's parameters say
what it takes: the first is the ``Context``; positional parameters are its arguments (a ``*args``
parameter takes any number); keyword-only ones are its options. Each parameter's annotation says
how its text is read: ``str`` as it is, ``int`` and ``float`` as numbers, ``bool`` from
``true``/``false``, a ``Literal[...]`` as one of its choices, an ``Enum`` by a member's value or
name. A missing or extra argument, an unknown option or a value that does not convert is a
``DirectiveError`` naming the directive's usage.
"""

from __future__ import annotations

import enum
import inspect
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from tfspeedlab.core.results.schema import MissingCaseError, NotInResults
from tfspeedlab.render.errors import DirectiveError

Handler = TypeVar("Handler", bound=Callable[..., str])

# An option is ``name=value`` with a bare name; a case label may hold "=" too
# ("fit, steps_per_execution=10"), and stays an argument.
OPTION = re.compile(r"[A-Za-z_]\w*=.*")
# Parameters that name an example: checked against the examples that exist before the handler runs.
EXAMPLE_PARAMETERS = frozenset({"example", "other_example", "examples"})
# What a figure reads where a quick run's smaller workload left its case out: the page still builds.
NOT_IN_QUICK_RUN = "*not measured in this quick run*"
_TRUE, _FALSE = frozenset({"true", "yes", "1"}), frozenset({"false", "no", "0"})


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: Literal["argument", "arguments", "option"]
    convert: Callable[[str], Any]
    shown: str  # how the usage line names it: ``CASE``, ``[ELEMENTS]``, ``[runner=cpu|gpu]``
    required: bool


@dataclass(frozen=True)
class Directive:
    name: str
    summary: str
    handler: Callable[..., str]
    parameters: tuple[Parameter, ...]

    @property
    def usage(self) -> str:
        """``{{ median EXAMPLE CASE [runner=cpu|gpu] }}``."""
        return "{{ " + " ".join([self.name, *(parameter.shown for parameter in self.parameters)]) + " }}"

    def call(self, args: list[str], context: Any) -> str:
        positional = [arg for arg in args if not OPTION.fullmatch(arg)]
        options = dict(arg.split("=", 1) for arg in args if OPTION.fullmatch(arg))
        named = {parameter.name: parameter for parameter in self.parameters if parameter.kind == "option"}
        unknown = sorted(set(options) - set(named))
        if unknown:
            raise DirectiveError(f"unknown option(s) {', '.join(unknown)}; valid options: {', '.join(named) or 'none'}; "
                                 f"usage: {self.usage}")
        arguments = [parameter for parameter in self.parameters if parameter.kind != "option"]
        takes_many = any(parameter.kind == "arguments" for parameter in arguments)
        required = sum(parameter.required for parameter in arguments)
        if len(positional) < required or (not takes_many and len(positional) > len(arguments)):
            raise DirectiveError(f"takes {self.usage}; got {len(positional)} argument(s)")
        # Each argument with the parameter it fills (every one past the last, for a ``*args``).
        filled = [(arguments[min(index, len(arguments) - 1)], text) for index, text in enumerate(positional)]
        values = [self._converted(parameter, text) for parameter, text in filled]
        keywords = {name: self._converted(named[name], text) for name, text in options.items()}
        for name, value in [*((parameter.name, value) for (parameter, _), value in zip(filled, values)),
                            *keywords.items()]:
            if name in EXAMPLE_PARAMETERS:
                context.check_example(value)
        return self.handler(context, *values, **keywords)

    def _converted(self, parameter: Parameter, text: str) -> Any:
        try:
            return parameter.convert(text)
        except ValueError as error:
            raise DirectiveError(f"{parameter.name}: {error}; usage: {self.usage}") from None


REGISTRY: dict[str, Directive] = {}


def directive(name: str, summary: str) -> Callable[[Handler], Handler]:
    """Register the decorated handler as ``{{ name … }}``, described by ``summary``."""
    def register(handler: Handler) -> Handler:
        if name in REGISTRY:
            raise ValueError(f"directive {name!r} registered twice ({REGISTRY[name].handler.__qualname__} "
                             f"and {handler.__qualname__})")
        REGISTRY[name] = Directive(name, summary, handler, _parameters(handler))
        return handler

    return register


def render(name: str, args: list[str], context: Any) -> str:
    """One directive's Markdown; ``DirectiveError`` names what is wrong and what is valid."""
    found = REGISTRY.get(name)
    if found is None:
        raise DirectiveError(f"unknown directive {name!r}; known: {', '.join(sorted(REGISTRY))}")
    try:
        return found.call(args, context)
    except NotInResults as error:
        if isinstance(error, MissingCaseError) and error.quick:  # a quick run's smaller workload: the page
            return NOT_IN_QUICK_RUN                                # still builds, and says so
        raise DirectiveError(error.args[0]) from None


def directives() -> list[Directive]:
    """Every directive, by name."""
    return sorted(REGISTRY.values(), key=lambda found: found.name)


def package_of(found: Directive) -> str:
    """The package whose module registers the directive: a feature's (``tfspeedlab.history``), or
    ``tfspeedlab.site.directives`` for the generic ones."""
    module = found.handler.__module__
    return module.rpartition(".")[0] or module


def catalogue() -> str:
    """The contributors' list of every directive, a section per package that registers directives:
    each directive's usage and summary, as Markdown."""
    sections: dict[str, list[str]] = {}
    for found in directives():
        sections.setdefault(package_of(found), []).append(f"- `{found.usage}`: {found.summary}")
    return "\n\n".join(f"#### `{package}`\n\n" + "\n".join(lines) for package, lines in sorted(sections.items())) + "\n"


CATALOGUE_START, CATALOGUE_END = "<!-- directives: generated by `python -m tfspeedlab.site.directives` -->", \
    "<!-- end of directives -->"


def with_catalogue(document: str) -> str:
    """``document`` with the text between its catalogue markers replaced by ``catalogue()``."""
    before, start, rest = document.partition(CATALOGUE_START)
    _, end, after = rest.partition(CATALOGUE_END)
    if not start or not end:
        raise ValueError(f"the document has no {CATALOGUE_START} … {CATALOGUE_END} section")
    return f"{before}{start}\n\n{catalogue()}\n{end}{after}"


# ------------------------------------------------------------ typed parameters


def _parameters(handler: Callable[..., str]) -> tuple[Parameter, ...]:
    hints = typing.get_type_hints(handler)
    found = []
    for parameter in list(inspect.signature(handler).parameters.values())[1:]:  # the first is the context
        annotation = hints.get(parameter.name, str)
        convert, choices = _converter(annotation)
        required = parameter.default is parameter.empty
        if parameter.kind is parameter.KEYWORD_ONLY:
            found.append(Parameter(parameter.name, "option", convert,
                                   f"[{parameter.name}={choices or '…'}]", required=False))
        elif parameter.kind is parameter.VAR_POSITIONAL:
            found.append(Parameter(parameter.name, "arguments", convert, f"{parameter.name.upper()}…", required=True))
        else:
            shown = choices or parameter.name.upper()
            found.append(Parameter(parameter.name, "argument", convert, shown if required else f"[{shown}]", required))
    return tuple(found)


def _converter(annotation: Any) -> tuple[Callable[[str], Any], str | None]:
    """How a directive's text becomes the parameter's value, and the choices to show (or None)."""
    if annotation is str:
        return str, None
    if annotation is int:
        return _number(int, "a whole number"), None
    if annotation is float:
        return _number(float, "a number"), None
    if annotation is bool:
        return _boolean, "true|false"
    if typing.get_origin(annotation) is Literal:
        choices = tuple(str(choice) for choice in typing.get_args(annotation))
        return _one_of(choices), "|".join(choices)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _member_of(annotation), _enum_choices(annotation)
    raise TypeError(f"a directive parameter cannot be read as {annotation!r}")


def _number(kind: type, what: str) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            return kind(text)
        except ValueError:
            raise ValueError(f"must be {what}, got {text!r}") from None

    return convert


def _boolean(text: str) -> bool:
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    raise ValueError(f"must be true or false, got {text!r}")


def _one_of(choices: tuple[str, ...]) -> Callable[[str], str]:
    def convert(text: str) -> str:
        if text not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}, got {text!r}")
        return text

    return convert


def _member_of(kind: type[enum.Enum]) -> Callable[[str], enum.Enum]:
    """A member by its value or name, or by the enum's own ``named`` reader where it has one (``Mode``)."""
    def convert(text: str) -> enum.Enum:
        if hasattr(kind, "named"):
            return kind.named(text)
        for member in kind:
            if text.lower() in (member.name.lower(), str(member.value).lower()):
                return member
        raise ValueError(f"must be one of {', '.join(str(member.value) for member in kind)}, got {text!r}")

    return convert


def _enum_choices(kind: type[enum.Enum]) -> str:
    return "|".join(getattr(member, "label", str(member.value)) for member in kind)
