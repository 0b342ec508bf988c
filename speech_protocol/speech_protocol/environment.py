"""Settings that name their own environment variables, so that what reads them and what writes them agree.

A part's settings are a frozen dataclass; each field that an environment variable sets is declared with
:func:`variable`, which keeps the variable's name (and the help of the command-line option, where a CLI
derives one) in the field's metadata. The part reads its variables with :func:`from_env`; a deployment that
sets them (a CDK stack, a CLI starting a child process) writes them with :func:`to_env` or :func:`pinned`, the
same names in the same encoding (docs/decisions/150-environments-written-once.md).

Standard library only: the stacks import it without any runtime of the parts they deploy.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

_KEY = "environment"
# The words click (the CLIs' parser) reads as a boolean; the same set here, so a variable means the same to both.
_TRUE = frozenset({"1", "true", "t", "yes", "y", "on"})
_FALSE = frozenset({"0", "false", "f", "no", "n", "off"})

Settings = TypeVar("Settings")


class VariableError(ValueError):
    """A variable's value cannot be read as its field's type; the message names the variable."""


@dataclass(frozen=True)
class Variable:
    """One environment variable: its name, the help of the option a CLI derives from it, that option's
    name when it is not the field's (``send_timeout_s`` is ``--send-timeout``), and whether its value is
    read with surrounding blanks removed."""

    name: str
    help: str | None = None
    option: str | None = None
    strip: bool = True


def variable(
    name: str,
    default: Any = MISSING,
    help: str | None = None,
    *,
    option: str | None = None,
    strip: bool = True,
    repr: bool = True,
) -> Any:
    """A dataclass field set by the variable ``name``; without ``default`` the field is required, and
    ``repr=False`` keeps a secret out of the object's repr."""
    return field(default=default, repr=repr, metadata={_KEY: Variable(name, help, option, strip)})


def variables(cls: type[Any]) -> dict[str, Variable]:
    """The fields of ``cls`` that variables set, by field name, in the order the class declares them."""
    return {f.name: f.metadata[_KEY] for f in dataclasses.fields(cls) if _KEY in f.metadata}


def _value_type(cls: type[Any], name: str) -> Any:
    """The type a field holds, ``None`` taken out of an optional one (``Path | None`` is ``Path``)."""
    hint = typing.get_type_hints(cls)[name]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        (hint,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    return hint


def _encode(value: Any) -> str:
    """A value as its variable's text: ``true``/``false``, ``2`` for 2.0, a sequence joined by spaces."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, tuple | list):
        return " ".join(str(item) for item in value)
    return str(value)


def to_env(settings: Any, names: Iterable[str] | None = None) -> dict[str, str]:
    """The variables of ``settings`` (all but those whose value is ``None``, or only the fields ``names``)."""
    chosen = set(variables(type(settings)) if names is None else names)
    values = {var.name: getattr(settings, name) for name, var in variables(type(settings)).items() if name in chosen}
    return {key: _encode(value) for key, value in values.items() if value is not None}


def pinned(cls: type[Settings], **values: Any) -> dict[str, str]:
    """The variables of just the fields given, built into ``cls`` first (an unknown field fails there, and
    ``cls`` checks the values it checks): what a deployment chooses to set."""
    return to_env(cls(**values), values)


def from_env(cls: type[Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """The fields of ``cls`` that ``environ`` sets, parsed to their types; an empty variable is unset (and
    a blank one, unless its field keeps blanks).

    The result is the keyword arguments of ``cls``: the class itself checks the values and fills the rest.
    """
    found: dict[str, Any] = {}
    for name, var in variables(cls).items():
        raw = environ.get(var.name, "")
        text = raw.strip() if var.strip else raw
        if text:
            found[name] = _parse(var.name, text, _value_type(cls, name))
    return found


def _parse(name: str, text: str, kind: Any) -> Any:
    if kind is bool:
        if text.lower() not in _TRUE | _FALSE:
            raise VariableError(f"{name} must be true or false, got {text[:40]!r}")
        return text.lower() in _TRUE
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            raise VariableError(f"{name} must be a number, got {text[:40]!r}") from None
    if typing.get_origin(kind) is tuple:
        return tuple(text.split())
    if kind is Path:
        return Path(text)
    if kind is str or typing.get_origin(kind) is Literal:
        return text
    raise TypeError(f"{name}: no reader for a field of type {kind!r}")


__all__ = ["Variable", "VariableError", "from_env", "pinned", "to_env", "variable", "variables"]
