"""The `calculate` tool's arithmetic, without `eval`.

tau2-bench and tau-bench evaluate the expression with Python's `eval` after checking its
characters. Walking the parsed tree with Python's own operators gives the same numbers and the
same exception texts (ZeroDivisionError, SyntaxError, TypeError) without running arbitrary code.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

ALLOWED_CHARS = frozenset("0123456789+-*/(). ")
"""The characters both benchmarks accept in an expression."""

_MAX_POWER_BITS = 4096
"""A power whose result would need more bits than this is refused (eval would hang on 9**9**9)."""

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}


def _power(base: object, exponent: object) -> object:
    # Only int ** int can run away (float powers overflow at once, as eval's would).
    if (
        isinstance(base, int)
        and isinstance(exponent, int)
        and exponent > 0
        and exponent * abs(base).bit_length() > _MAX_POWER_BITS
    ):
        raise OverflowError("exponent too large")
    return operator.pow(base, exponent)  # type: ignore[call-overload]


def _eval(node: ast.AST) -> object:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow):
            return _power(left, right)
        return _BINARY[type(node.op)](left, right)  # type: ignore[arg-type]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))  # type: ignore[arg-type]
    if isinstance(node, ast.Tuple):
        return tuple(_eval(e) for e in node.elts)
    if isinstance(node, ast.Call):
        # What eval says when a parenthesised number is "called": (2)(3).
        func = _eval(node.func)
        raise TypeError(f"'{type(func).__name__}' object is not callable")
    raise ValueError(f"unsupported expression element {type(node).__name__}")


def calculate(expression: str) -> str:
    """The rounded value of an arithmetic expression as text, e.g. "2 + 2" → "4.0".

    Raises ValueError for characters outside `ALLOWED_CHARS` (message "Invalid characters in
    expression") and the exception eval would raise for a malformed or impossible expression.
    """
    if not all(ch in ALLOWED_CHARS for ch in expression):
        raise ValueError("Invalid characters in expression")
    # eval() drops leading blanks before compiling; compile would call them an indent.
    tree = ast.parse(expression.lstrip(" \t"), filename="<string>", mode="eval")
    value = _eval(tree)
    return str(round(float(value), 2))  # type: ignore[arg-type]
