"""Small checks written as expressions, for output invariants and write preconditions.

An expression is a Python expression over two names: `output` (the tool's answer, parsed
from JSON when it is JSON) and `args` (the call's arguments). A dict's keys read as
attributes (`output.status`, `output.items[0].price`), and only this subset is evaluated:
constants, names, attribute and subscript reads, list / tuple / set / dict displays,
arithmetic (`+ - * / // % **`, unary `-` and `not`), comparisons (`in` and `is` included),
`and` / `or`, `x if c else y`, one-`for` generator expressions (`all(i.qty > 0 for i in
output.items)`), and calls of `len sum min max abs all any round sorted set str int float
bool`. Anything else (a call of another function, a lambda, a private attribute) is refused
when the expression is compiled, at config time, with the reason in one line.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ConfigError

_FUNCTIONS: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (len, sum, min, max, abs, all, any, round, sorted, set, str, int, float, bool)
}
_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
_ALLOWED = (
    ast.Expression,
    ast.Constant,
    ast.Name,
    ast.Load,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.BinOp,
    ast.UnaryOp,
    ast.USub,
    ast.UAdd,
    ast.Not,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.Compare,
    ast.IfExp,
    ast.Call,
    ast.GeneratorExp,
    ast.comprehension,
    ast.Store,
    *_BINARY,
    *_COMPARE,
)


class _Missing:
    """A key or attribute that is not there: compares unequal to everything."""

    def __repr__(self) -> str:
        return "missing"


MISSING = _Missing()


def _check(tree: ast.Expression, text: str) -> None:
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise ConfigError(f"check {text!r}: {type(node).__name__} is not allowed")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ConfigError(f"check {text!r}: private attribute {node.attr!r}")
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS and not node.keywords
        ):
            raise ConfigError(f"check {text!r}: only {', '.join(sorted(_FUNCTIONS))} may be called")
        if isinstance(node, ast.GeneratorExp) and len(node.generators) != 1:
            raise ConfigError(f"check {text!r}: one `for` per generator")


def _get(value: Any, key: Any) -> Any:
    if isinstance(value, Mapping):
        return value.get(key, MISSING)
    if isinstance(value, list | tuple | str) and isinstance(key, int | slice):
        try:
            return value[key]
        except IndexError:
            return MISSING
    return MISSING


class Check:
    """A compiled expression; call it with the output and the arguments."""

    def __init__(self, text: str) -> None:
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            raise ConfigError(f"check {text!r}: not an expression ({exc.msg})") from exc
        _check(tree, text)
        self.text = text
        self._tree = tree

    def __call__(self, output: Any, args: Mapping[str, Any]) -> bool:
        """True when the check holds (an evaluation error counts as not holding)."""
        try:
            return bool(self._eval(self._tree.body, {"output": output, "args": dict(args)}))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return False

    def _eval(self, node: ast.AST, env: dict[str, Any]) -> Any:
        ev = self._eval
        match node:
            case ast.Constant(value=value):
                return value
            case ast.Name(id=name):
                if name not in env:
                    raise ValueError(f"unknown name {name}")
                return env[name]
            case ast.Attribute(value=inner, attr=attr):
                return _get(ev(inner, env), attr)
            case ast.Subscript(value=inner, slice=key):
                return _get(ev(inner, env), ev(key, env))
            case ast.Slice(lower=lo, upper=hi, step=st):
                return slice(*(None if p is None else ev(p, env) for p in (lo, hi, st)))
            case ast.List(elts=elts) | ast.Tuple(elts=elts) | ast.Set(elts=elts):
                items = [ev(e, env) for e in elts]
                return set(items) if isinstance(node, ast.Set) else items
            case ast.Dict(keys=keys, values=values):
                return {ev(k, env): ev(v, env) for k, v in zip(keys, values, strict=True) if k}
            case ast.BinOp(left=left, op=op, right=right):
                return _BINARY[type(op)](ev(left, env), ev(right, env))
            case ast.UnaryOp(op=op, operand=operand):
                found = ev(operand, env)
                return (
                    not found
                    if isinstance(op, ast.Not)
                    else -found
                    if isinstance(op, ast.USub)
                    else +found
                )
            case ast.BoolOp(op=op, values=values):
                return self._bool(isinstance(op, ast.And), values, env)
            case ast.Compare(left=left, ops=ops, comparators=rights):
                return self._compare(left, ops, rights, env)
            case ast.IfExp(test=test, body=body, orelse=orelse):
                return ev(body, env) if ev(test, env) else ev(orelse, env)
            case ast.Call(func=ast.Name(id=name), args=call_args):
                return _FUNCTIONS[name](*(ev(a, env) for a in call_args))
            case ast.GeneratorExp(elt=elt, generators=[gen]):
                return self._generate(elt, gen, env)
        raise ValueError(f"cannot evaluate {type(node).__name__}")

    def _bool(self, conj: bool, values: list[ast.expr], env: dict[str, Any]) -> Any:
        found: Any = conj
        for value in values:
            found = self._eval(value, env)
            if bool(found) != conj:
                return found
        return found

    def _compare(
        self, left: ast.expr, ops: list[ast.cmpop], rights: list[ast.expr], env: dict[str, Any]
    ) -> bool:
        a = self._eval(left, env)
        for op, right in zip(ops, rights, strict=True):
            b = self._eval(right, env)
            if not _COMPARE[type(op)](a, b):
                return False
            a = b
        return True

    def _generate(self, elt: ast.expr, gen: ast.comprehension, env: dict[str, Any]) -> list[Any]:
        if not isinstance(gen.target, ast.Name):
            raise ValueError("a generator binds one name")
        found: list[Any] = []
        source = self._eval(gen.iter, env)
        for item in source if isinstance(source, list | tuple | set | dict) else ():
            inner = {**env, gen.target.id: item}
            if all(self._eval(cond, inner) for cond in gen.ifs):
                found.append(self._eval(elt, inner))
        return found
