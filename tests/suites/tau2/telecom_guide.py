"""A `python:` support agent that guides the user through a telecom fix, and a `python:`
user who does what it is asked on their own phone and reports what it shows.

The agent cannot touch the phone: it looks the customer up, checks the line on its own
side (roaming abroad, the data allowance), then asks the user to run one check or fix at a
time ("please run `toggle_data`"), reading each answer, and ends with a speed test.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sessionproof.agents import AgentRequest
from sessionproof.records import Message, ToolCall

_ASK = re.compile(r"run `(\w+)`(?: with (\{[^}]*\}))?")
_NUMBER = re.compile(r"\b\d{3}-\d{3}-\d{4}\b")

# Each check the user runs, and the fixes its answer calls for: (text in the answer, fix,
# its arguments); a leading "!" means "when the text is absent".
_CHECKS: list[tuple[str, list[tuple[str, str, dict[str, Any]]]]] = [
    (
        "check_network_status",
        [
            ("Airplane Mode: ON", "toggle_airplane_mode", {}),
            ("SIM Card Status: missing", "reseat_sim_card", {}),
            ("Mobile Data Enabled: No", "toggle_data", {}),
        ],
    ),
    ("check_data_restriction_status", [("Data Saver mode is ON", "toggle_data_saver_mode", {})]),
    ("check_vpn_status", [("VPN is ON and connected", "disconnect_vpn", {})]),
    (
        "check_network_mode_preference",
        [("!4g_5g_preferred", "set_network_mode_preference", {"mode": "4g_5g_preferred"})],
    ),
]


def _ask(tool: str, args: dict[str, Any] | None = None) -> Message:
    with_args = f" with {json.dumps(args)}" if args else ""
    return Message.assistant(
        f"Please run `{tool}`{with_args} on your phone and tell me what it shows."
    )


def _own_results(messages: list[Message], tool: str) -> list[Any]:
    out = []
    for msg in messages:
        if msg.role == "tool" and msg.name == tool and msg.content and msg.content[0] in "[{":
            out.append(json.loads(msg.content))
    return out


def _asked(messages: list[Message]) -> list[list[Any]]:
    """[tool, answer] of every request to the user, in order."""
    asked: list[list[Any]] = []
    for msg in messages:
        if msg.role == "assistant" and msg.content:
            asked += [[name, None] for name, _ in _ASK.findall(msg.content)]
        elif msg.role == "user" and asked and asked[-1][1] is None:
            asked[-1][1] = msg.content or ""
    return asked


def _called(messages: list[Message], tool: str) -> bool:
    return any(c.name == tool for m in messages for c in m.tool_calls)


def agent(request: AgentRequest) -> Message:
    """One decision of the support agent."""
    msgs = request.messages
    said = " ".join(m.content or "" for m in msgs if m.role == "user")
    customers = _own_results(msgs, "get_customer_by_phone")
    number = next(iter(_NUMBER.findall(said)), None)
    if not customers:
        if number is None:
            return Message.assistant("What is the phone number of the line with the problem?")
        call = ToolCall(
            id="a-lookup", name="get_customer_by_phone", arguments={"phone_number": number}
        )
        return Message.assistant(None, [call])
    customer = customers[-1]
    lines = [r for r in _own_results(msgs, "get_details_by_id") if r.get("phone_number") == number]
    if not lines:
        calls = [
            ToolCall(id=f"a-line-{i}", name="get_details_by_id", arguments={"id": line_id})
            for i, line_id in enumerate(customer["line_ids"])
        ]
        return Message.assistant(None, calls)
    line = lines[-1]
    ids = {"customer_id": customer["customer_id"], "line_id": line["line_id"]}
    abroad = "abroad" in said.lower()
    if abroad and not line["roaming_enabled"] and not _called(msgs, "enable_roaming"):
        return Message.assistant(
            None, [ToolCall(id="a-roam", name="enable_roaming", arguments=ids)]
        )
    usage = _own_results(msgs, "get_data_usage")
    if not usage:
        return Message.assistant(
            None, [ToolCall(id="a-usage", name="get_data_usage", arguments=ids)]
        )
    used = usage[-1]
    over = float(used["data_used_gb"]) >= float(used["data_limit_gb"]) + float(
        used["data_refueling_gb"]
    )
    if over and not _called(msgs, "refuel_data"):
        call = ToolCall(id="a-refuel", name="refuel_data", arguments={**ids, "gb_amount": 2.0})
        return Message.assistant(None, [call])
    asked = _asked(msgs)
    done = {name for name, _ in asked}
    checks = list(_CHECKS)
    if abroad:
        checks[0] = (
            checks[0][0],
            [*checks[0][1], ("Data Roaming Enabled: No", "toggle_roaming", {})],
        )
    for check, fixes in checks:
        answers = [a for name, a in asked if name == check and a is not None]
        if not answers:
            return _ask(check)
        for text, fix, args in fixes:
            needed = (text[1:] not in answers[-1]) if text.startswith("!") else text in answers[-1]
            if needed and fix not in done:
                return _ask(fix, args)
    speed = [a for name, a in asked if name == "run_speed_test" and a is not None]
    if not speed:
        return _ask("run_speed_test")
    if "Excellent" in speed[-1]:
        return Message.assistant("Your connection is back to excellent speed. ###STOP###")
    return Message.assistant("I could not restore excellent speed from here. ###STOP###")


def user(request: AgentRequest) -> Message:
    """One turn of the user: run what the agent asked, report what the phone showed."""
    msgs = request.messages
    last = msgs[-1]
    tools = {t.name for t in request.tools}
    if last.role == "tool":
        shown = [m.content or "" for m in msgs[-3:] if m.role == "tool"]
        return Message.assistant("It shows: " + " / ".join(shown))
    text = last.content or ""
    asked = _ASK.search(text)
    if asked and asked.group(1) in tools:
        args = json.loads(asked.group(2)) if asked.group(2) else {}
        call = ToolCall(id=f"u-{len(msgs)}", name=asked.group(1), arguments=args)
        return Message.assistant(None, [call])
    system = msgs[0].content or ""
    number = next(iter(_NUMBER.findall(system)), "")
    if len(msgs) <= 2:  # the opening: say what is wrong and who we are
        where = " I am abroad right now." if "abroad" in system else ""
        return Message.assistant(f"My phone is not working properly. My number is {number}.{where}")
    if "phone number" in text:
        return Message.assistant(number)
    return Message.assistant("###STOP###")
