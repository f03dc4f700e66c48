"""The live telecom world of one session: the carrier's database and the agent's tools, the
user's phone and the user's tools, kept in step after every call (tau2's "sync").

Both sides run as tau2 runs them: raw arguments go to the method, a failure reads
"Error: <message>", a result is rendered as tau2 renders it; after every successful call
the carrier's side is mirrored onto the phone (line active, roaming allowed, allowance
used up, a payment request) and a payment made on the phone marks the bill paid.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from ....domains import Domain, DomainSpec, ToolContext, Toolkit
from ....domains._internal import result_from_exception, unparsed_result
from ....errors import InputFileError, ToolError, describe_validation
from ....records import ToolCall, ToolResult, ToolSpec
from .._tau import to_tau2_json
from ._files import TelecomFiles
from ._models import LineStatus, TelecomDB
from ._phone_models import PaymentRequest, PhoneDB
from ._phone_setup import PhoneEnv
from ._tools import TelecomTools

Side = str
"""`assistant` (the agent's tools) or `user` (the phone's), as tau2 names them."""


def _hash(db: Any) -> str:
    import orjson

    data = orjson.dumps(db.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class TelecomDomain(Domain[TelecomDB]):
    """One session's telecom world. As a tool source it is the agent's side; the user's
    side is `user_tool_source()`."""

    def __init__(self, db: TelecomDB, phone: PhoneDB, policy: str) -> None:
        self.carrier: TelecomTools = TelecomTools(db)
        super().__init__("telecom", db, self.carrier, policy)
        self.phone: PhoneEnv = PhoneEnv(phone)

    # -- keeping the two sides in step -----------------------------------------------------

    def sync(self) -> None:
        """Mirror the carrier's side onto the phone; settle a payment made on the phone."""
        around = self.phone.db.surroundings
        number = around.phone_number
        if number is None:
            return
        line = self.carrier.line_by_phone(number)
        around.line_active = line.status == LineStatus.ACTIVE
        around.roaming_allowed = line.roaming_enabled
        plan = self.carrier.plan(line.plan_id)
        around.mobile_data_usage_exceeded = (
            line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb
        )
        request = around.payment_request
        if request is not None and request.paid:
            self.carrier.set_bill_paid(request.bill_id)
            around.payment_request = None
        if around.payment_request is None:
            waiting = self.carrier.awaiting_payment(self.carrier.get_customer_by_phone(number))
            if waiting:
                around.payment_request = PaymentRequest(
                    bill_id=waiting[0].bill_id, amount_due=waiting[0].total_due
                )

    def toolkit_of(self, side: Side) -> Toolkit[Any]:
        """The agent's toolkit (`assistant`) or the phone's (`user`)."""
        if side == "user":
            return self.phone
        if side == "assistant":
            return self.carrier
        raise ValueError(f"unknown side {side!r} (assistant or user)")

    def run_function(self, side: Side, name: str, arguments: Mapping[str, Any]) -> Any:
        """An environment function (set-up or assertion) on one side, then a sync."""
        value = getattr(self.toolkit_of(side), name)(**arguments)
        self.sync()
        return value

    def make_call(self, side: Side, name: str, arguments: Mapping[str, Any]) -> Any:
        """Run one tool of one side without a sync (tau2's gold replay); raises on failure."""
        toolkit = self.toolkit_of(side)
        info = type(toolkit)._tools.get(name)
        if info is None:
            raise ToolError(f"Tool '{name}' not found.", "validation_error")
        return getattr(toolkit, info.method_name)(**arguments)

    def run_call(self, side: Side, call: ToolCall) -> ToolResult:
        """One call as a session makes it: run, sync on success, rendered as tau2 does."""
        start = time.perf_counter()
        if call.arguments is None:
            return unparsed_result(call, start)
        try:
            value = self.make_call(side, call.name, call.arguments)
            self.sync()
            output = to_tau2_json(value)
        except Exception as exc:  # tau2 answers any exception as "Error: <str(exc)>"
            return result_from_exception(call, exc, start)
        return ToolResult(
            call_id=call.id, name=call.name, output=output, latency_s=time.perf_counter() - start
        )

    def is_write(self, side: Side, name: str) -> bool:
        """True when the tool of that side may change state (offline replay runs these)."""
        info = type(self.toolkit_of(side))._tools.get(name)
        return info is None or info.write

    # -- the agent's side as a tool source -------------------------------------------------

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """The agent's tools."""
        return self.carrier.specs()

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """One of the agent's calls."""
        return self.run_call("assistant", call)

    def call(self, name: str, args: dict[str, Any]) -> str:
        """Run one of the agent's tools now; the result rendered as tau2 renders it."""
        value = self.make_call("assistant", name, args)
        self.sync()
        return to_tau2_json(value)

    def user_tool_source(self) -> PhoneSource:
        """The user's side: the phone's tools, on this same world."""
        return PhoneSource(self)

    def state_hash(self) -> str:
        """Both sides' state: the carrier's database and the phone."""
        return _hash(self.db) + _hash(self.phone.db)

    def hashes(self) -> tuple[str, str]:
        """(carrier database, phone) hashes, as tau2 compares them."""
        return _hash(self.db), _hash(self.phone.db)


class PhoneSource:
    """The user's tools as a tool source (a view of the session's telecom world)."""

    def __init__(self, world: TelecomDomain) -> None:
        self.world = world

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """The phone's tools."""
        return self.world.phone.specs()

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """One of the user's calls."""
        return self.world.run_call("user", call)

    async def aclose(self) -> None:
        """Nothing to release: the world is in memory."""

    def state_hash(self) -> str:
        """The phone's state."""
        return _hash(self.world.phone.db)


@functools.cache
def _bases(files: TelecomFiles) -> tuple[TelecomDB, PhoneDB]:
    try:
        db = TelecomDB.model_validate(files.toml("db.toml"))
    except ValidationError as exc:
        raise InputFileError(f"{files.where}db.toml: {describe_validation(exc)}") from None
    try:
        phone = PhoneDB.model_validate(files.toml("user_db.toml"))
    except ValidationError as exc:
        raise InputFileError(f"{files.where}user_db.toml: {describe_validation(exc)}") from None
    return db, phone


@functools.cache
def _policy(files: TelecomFiles) -> str:
    return files.policy()


class TelecomSpec(DomainSpec):
    """Makes telecom worlds: the databases of `files`, then a task's set-up steps."""

    def __init__(
        self,
        files: TelecomFiles | None = None,
        setup: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.name = "telecom"
        self.files = files or TelecomFiles()
        self.setup = [dict(step) for step in setup]
        self.transfer_tools = frozenset({"transfer_to_human_agents"})

    def with_setup(self, setup: Sequence[Mapping[str, Any]]) -> TelecomSpec:
        """The same world, starting after a task's set-up steps (`initialization_actions`)."""
        return TelecomSpec(self.files, setup)

    @property
    def policy(self) -> str:
        """The agent's policy (read once per source)."""
        return _policy(self.files)

    def preload(self) -> None:
        """Read both databases now."""
        _bases(self.files)

    def create(self) -> TelecomDomain:
        """A fresh world: copies of both databases, the set-up steps run on them."""
        db, phone = _bases(self.files)
        world = TelecomDomain(db.model_copy(deep=True), phone.model_copy(deep=True), self.policy)
        world.sync()
        for step in self.setup:
            world.run_function(step["env_type"], step["func_name"], step.get("arguments") or {})
        return world

    def tools(self) -> list[ToolSpec]:
        """The agent's tools, without reading the databases."""
        return TelecomTools.specs()

    def tool_names(self) -> frozenset[str]:
        """The agent's tool names."""
        return frozenset(TelecomTools.tool_names())

    def user_tools(self) -> list[ToolSpec]:
        """The user's tools."""
        return PhoneEnv.specs()


def spec() -> TelecomSpec:
    """The `telecom` domain (tau2-bench semantics, the package's data); the registry's
    lazy factory."""
    return TelecomSpec()
