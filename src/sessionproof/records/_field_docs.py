"""Field descriptions from attribute docstrings, read with one parse of the module's source.

pydantic's `use_attribute_docstrings` finds each class's source by walking the interpreter's
frames and tokenizing the class again, once per class: for the six scenario models that was
two thirds of importing `records`, paid by every command that reads a scenario. Here a
module's source is parsed once and each docstring becomes its field's description, before
the class's schema is built (the classes declare `defer_build=True`), the same text
`use_attribute_docstrings` would give: the string literal right after an annotated
attribute, cleaned as `inspect.cleandoc` cleans it, on fields that have no description.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import sys

from pydantic import BaseModel


def _docstrings(body: list[ast.stmt]) -> dict[str, str]:
    found: dict[str, str] = {}
    for stmt, after in itertools.pairwise(body):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            found[stmt.target.id] = inspect.cleandoc(after.value.value)
    return found


def describe_fields(*classes: type[BaseModel]) -> None:
    """Give each field of `classes` (top-level classes of one module, not yet built) the
    docstring that follows it in the source as its description, unless it has one."""
    if not classes:
        return
    module = sys.modules[classes[0].__module__]
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):  # no source (as pydantic, then: no descriptions)
        return
    by_name = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    for cls in classes:
        if cls.__module__ != module.__name__ or cls.__name__ not in by_name:
            raise ValueError(f"{cls.__qualname__} is not a top-level class of {module.__name__}")
        docs = _docstrings(by_name[cls.__name__].body)
        for name, field in cls.model_fields.items():
            if field.description is None and name in docs:
                field.description = docs[name]
