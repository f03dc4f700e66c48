"""One expected call compiled once, then checked against many model calls.

The semantics are BFCL's AST checker for Python (bfcl-eval 2026.3.23); the structure is ours:
everything that depends only on the question (type names, standardised acceptable strings,
which parameters may be omitted) is computed when the rule is built, so checking a model call
is a handful of dict lookups and comparisons.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple


class Failure(NamedTuple):
    """A failed check: BFCL's error type, and what is needed to say it in words.

    The words are built only for the failure a verdict reports (`message()`), not for every
    pairing tried while matching parallel calls.
    """

    error_type: str
    rule: ParamRule | CallRule
    value: Any

    def message(self) -> str:
        """The failure in words."""
        return self.rule.describe(self.error_type, self.value)


BFCL_TYPES: Final[dict[str, type]] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    # BFCL treats "any" as a string unless the acceptable values say otherwise.
    "any": str,
}
"""BFCL's parameter type names and the Python type a JSON-decoded value must have."""

_NESTED_TYPES: Final = frozenset({"array", "tuple"})
_STRIPPED: Final = str.maketrans("", "", " ,./-_*^")

# How a well-typed, non-variable value is compared with its acceptable values.
_BY_MEMBERSHIP, _BY_STRING, _BY_LIST, _BY_DICT, _BY_LIST_OF_DICTS = range(5)


def standardise(text: str) -> str:
    """BFCL's string normalisation: drop spaces and `,./-_*^`, lowercase, `'` → `"`.

    It forgives "April 1, 2024" vs "april 1 2024"; it does not forgive any other punctuation.
    """
    return text.translate(_STRIPPED).lower().replace("'", '"')


def _std(value: Any) -> Any:
    return standardise(value) if type(value) is str else value


def _first_answer_type(acceptable: Any) -> type | None:
    # The type of the first acceptable value other than "" (which only means "may be omitted");
    # when it differs from the schema's type, BFCL treats the parameter as a variable name.
    for item in acceptable:
        if not (type(item) is str and item == ""):
            return type(item)
    return None


def _may_omit(acceptable: Any) -> bool:
    try:
        return "" in acceptable
    except TypeError:
        return False


def _length(value: Any) -> int | None:
    return len(value) if isinstance(value, str | list | dict) else None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


class DictAnswer:
    """One acceptable dict: per key, its standardised acceptable values."""

    __slots__ = ("keys", "required")

    def __init__(self, answer: dict[str, Any]) -> None:
        self.keys: dict[str, list[Any]] = {}
        for key, values in answer.items():
            # A string here is iterated character by character, as BFCL does.
            seq = values if isinstance(values, list | str) else [values]
            self.keys[key] = [_std(v) for v in seq]
        self.required = tuple(k for k, v in answer.items() if not _may_omit(v))

    def check(self, value: Any) -> str | None:
        """None when `value` fits this dict, else BFCL's error type for the first problem."""
        if type(value) is not dict:
            return "value_error:dict_value"
        error = None
        for key, item in value.items():
            accepted = self.keys.get(key)
            if accepted is None:
                error = "value_error:dict_key"
                break
            if _std(item) not in accepted:
                error = "value_error:dict_value"
                break
        # Missing keys are looked for even after a wrong value; BFCL's last finding wins.
        for key in self.required:
            if key not in value:
                return "value_error:dict_key"
        return error


def _dict_answer(answer: Any) -> DictAnswer | str | None:
    # None marks "" (skipped); a string marks an answer that can never match a dict.
    if type(answer) is str and answer == "":
        return None
    if isinstance(answer, dict):
        return DictAnswer(answer)
    return "dict_checker:unclear"


def _check_dict(value: Any, answers: list[DictAnswer | str | None]) -> str | None:
    found = "dict_checker:unclear"
    for answer in answers:
        if answer is None:
            continue
        if isinstance(answer, str):
            found = answer
            continue
        error = answer.check(value)
        if error is None:
            return None
        found = error
    return found


def _list_of_dicts_answer(answer: Any) -> tuple[int | None, list[DictAnswer | str | None]]:
    length = _length(answer)
    if isinstance(answer, list):
        return length, [_dict_answer(d) for d in answer]
    # Only "" (length 0, matching []) is meaningful here; any other non-list never matches.
    return length, ["dict_checker:unclear"] * (length or 0)


class ParamRule:
    """How one parameter of one expected call is judged."""

    __slots__ = (
        "acceptable",
        "acceptable_text",
        "answer_type",
        "as_float",
        "compare",
        "dicts",
        "list_dicts",
        "name",
        "nested",
        "nested_rules",
        "py_type",
        "schema_problem",
        "static_variable",
        "std_lists",
        "std_strings",
        "type_name",
    )

    def __init__(self, name: str, schema: dict[str, Any], acceptable: list[Any]) -> None:
        self.name = name
        self.acceptable = acceptable
        self.acceptable_text: str | None = None
        self.type_name = str(schema.get("type"))
        self.py_type: type | None = BFCL_TYPES.get(self.type_name)
        self.schema_problem: str | None = None
        if self.py_type is None:
            self.schema_problem = f"parameter {name!r} has type {self.type_name!r}, unknown to BFCL"
        self.nested: type | None = None
        if self.type_name in _NESTED_TYPES:
            items = schema.get("items")
            item_type = items.get("type") if isinstance(items, dict) else None
            self.nested = BFCL_TYPES.get(str(item_type))
            if self.nested is None:
                self.schema_problem = f"array parameter {name!r} has no known item type"
        self.as_float = self.type_name == "float"
        self.answer_type = _first_answer_type(acceptable)
        self.static_variable = self.answer_type is not None and self.answer_type is not self.py_type
        # Per acceptable value: None accepts any items (not a list), else the items' own type.
        self.nested_rules: list[tuple[bool, type | None]] = [
            (type(a) is list, _first_answer_type(a) if type(a) is list else None)
            for a in acceptable
        ]
        self.std_strings: frozenset[str] = frozenset()
        self.std_lists: list[list[Any]] = []
        self.dicts: list[DictAnswer | str | None] = []
        self.list_dicts: list[tuple[int | None, list[DictAnswer | str | None]]] = []
        if self.py_type is dict:
            self.compare = _BY_DICT
            self.dicts = [_dict_answer(a) for a in acceptable]
        elif self.py_type is list and self.nested is dict:
            self.compare = _BY_LIST_OF_DICTS
            self.list_dicts = [_list_of_dicts_answer(a) for a in acceptable]
        elif self.py_type is str:
            self.compare = _BY_STRING
            self.std_strings = frozenset(standardise(a) for a in acceptable if type(a) is str)
        elif self.py_type is list:
            self.compare = _BY_LIST
            # "" iterates as an empty list, which is how BFCL lets [] stand for "omitted".
            self.std_lists = [[_std(v) for v in a] for a in acceptable if isinstance(a, list | str)]
        else:
            self.compare = _BY_MEMBERSHIP

    def _items_fit(self, value: list[Any]) -> bool:
        nested = self.nested
        for is_list, item_answer_type in self.nested_rules:
            if not is_list:
                return True
            if all(
                type(v) is nested or (item_answer_type is not None and type(v) is item_answer_type)
                for v in value
            ):
                return True
        return False

    def check(self, value: Any) -> Failure | None:
        """None when `value` is acceptable, else the failure."""
        if self.schema_problem is not None:
            return Failure("schema_error:unknown_type", self, value)
        if self.as_float and type(value) is int:
            value = float(value)
        value_type = type(value)
        variable = self.static_variable
        if value_type is self.py_type:
            if self.nested is not None and not self._items_fit(value):
                if value_type is self.answer_type:
                    return Failure("type_error:nested", self, value)
                return Failure("type_error:simple", self, value)
        elif self.answer_type is not None and value_type is self.answer_type:
            variable = True
        else:
            return Failure("type_error:simple", self, value)
        if not variable:
            compare = self.compare
            if compare == _BY_STRING:
                if standardise(value) in self.std_strings:
                    return None
                return Failure("value_error:string", self, value)
            if compare == _BY_LIST:
                if [_std(v) for v in value] in self.std_lists:
                    return None
                return Failure("value_error:list/tuple", self, value)
            if compare == _BY_DICT:
                error = _check_dict(value, self.dicts)
                return None if error is None else Failure(error, self, value)
            if compare == _BY_LIST_OF_DICTS:
                error = self._check_list_of_dicts(value)
                return None if error is None else Failure(error, self, value)
        if value in self.acceptable:
            return None
        return Failure("value_error:others", self, value)

    def _check_list_of_dicts(self, value: list[Any]) -> str | None:
        found = "list_dict_checker:unclear"
        for length, answers in self.list_dicts:
            if length != len(value):
                found = "value_error:list_dict_count"
                continue
            for item, answer in zip(value, answers, strict=True):
                error = _check_dict(item, [answer])
                if error is not None:
                    found = error
                    break
            else:
                return None
        return found

    def describe(self, error_type: str, value: Any) -> str:
        """Words for a failure of this parameter."""
        if self.schema_problem is not None:
            return self.schema_problem
        if error_type.startswith("type_error"):
            inner = f" of {self.nested.__name__}" if self.nested is not None else ""
            return f"{self.name}: expected {self.type_name}{inner}, got {_short(value)}"
        if self.acceptable_text is None:
            self.acceptable_text = _short(self.acceptable)
        return f"{self.name}: {_short(value)} is not one of {self.acceptable_text}"


_CALL_PHRASES: Final = {
    "simple_function_checker:wrong_func_name": "called {value!r}, expected {name!r}",
    "simple_function_checker:missing_required": "required parameter {value!r} missing",
    "simple_function_checker:unexpected_param": "parameter {value!r} is not expected",
    "simple_function_checker:missing_optional": "parameter {value!r} must be given (no omission)",
}


class CallRule:
    """One expected call: the function's schema joined with its acceptable arguments."""

    __slots__ = ("must_give", "name", "params", "required", "required_keys", "schema_problem")

    def __init__(self, name: str, schema: dict[str, Any] | None, answer: dict[str, Any]) -> None:
        self.name = name
        self.schema_problem: str | None = None
        self.params: dict[str, ParamRule] = {}
        self.required: tuple[str, ...] = ()
        if schema is None:
            self.schema_problem = f"the question has no function named {name!r}"
            self.must_give: tuple[str, ...] = ()
            self.required_keys: frozenset[str] = frozenset()
            return
        parameters = schema.get("parameters") or {}
        properties = parameters.get("properties") or {} if isinstance(parameters, dict) else None
        required = parameters.get("required") or [] if isinstance(parameters, dict) else None
        if not isinstance(properties, dict) or not isinstance(required, list):
            # compile_question refuses such documents first; built directly, the rule refuses
            # every call instead of raising while being built.
            self.schema_problem = f"the function document of {name!r} is malformed"
            properties, required = {}, []
        self.required = tuple(str(r) for r in required)
        # A parameter the answer lists but the schema lacks (or vice versa) is never accepted.
        for pname, acceptable in answer.items():
            pschema = properties.get(pname)
            if isinstance(pschema, dict):
                self.params[pname] = ParamRule(pname, pschema, acceptable)
        self.must_give = tuple(p for p, acc in answer.items() if not _may_omit(acc))
        # Both kinds of "must be there" in one set: one subset test on the fast path.
        self.required_keys = frozenset(self.required) | frozenset(self.must_give)

    def check(self, name: str, args: dict[str, Any]) -> Failure | None:
        """None when the call `name(**args)` is acceptable, else the first failure.

        BFCL's order: function name, required parameters (schema order), each given argument
        (in the call's order), then answer parameters that may not be omitted.
        """
        if self.schema_problem is not None:
            return Failure("schema_error:unknown_function", self, name)
        if name != self.name:
            return Failure("simple_function_checker:wrong_func_name", self, name)
        complete = self.required_keys <= args.keys()
        if not complete:
            for pname in self.required:
                if pname not in args:
                    return Failure("simple_function_checker:missing_required", self, pname)
        params = self.params
        for pname, value in args.items():
            rule = params.get(pname)
            if rule is None:
                return Failure("simple_function_checker:unexpected_param", self, pname)
            failure = rule.check(value)
            if failure is not None:
                return failure
        if not complete:
            for pname in self.must_give:
                if pname not in args:
                    return Failure("simple_function_checker:missing_optional", self, pname)
        return None

    def describe(self, error_type: str, value: Any) -> str:
        """Words for a failure of this call as a whole."""
        if self.schema_problem is not None:
            return self.schema_problem
        what = _CALL_PHRASES.get(error_type, error_type + " ({value!r})").format(
            value=value, name=self.name
        )
        return f"{self.name}: {what}"
