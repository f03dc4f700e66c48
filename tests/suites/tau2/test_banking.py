"""tau2-banking: knowledge-base search, the banking tools, the suite's loading, and tau2's
verdict on oracle and idle sessions under each retrieval configuration."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.agents import OracleAgent, ScriptedAgent
from sessionproof.engine import run_session
from sessionproof.engine._internal import SessionPlan, is_reference, user_for
from sessionproof.errors import ConfigError, InputFileError
from sessionproof.records import Criteria, Message, Scenario, Session, ToolCall, UserSpec
from sessionproof.suites.tau2._tau2task import Tau2Task
from sessionproof.suites.tau2.banking._db import fresh_db
from sessionproof.suites.tau2.banking._discoverable import hex_id
from sessionproof.suites.tau2.banking._judge import JUDGE, judge_banking
from sessionproof.suites.tau2.banking._kb import KnowledgeBase, packaged_kb, read_documents_dir
from sessionproof.suites.tau2.banking._suite import (
    DUAL_CONTROL,
    BankingSuite,
    LoadedTasks,
    _sides,
    banking_suite,
    left_out_note,
    packaged_tasks,
    spec_for,
)
from sessionproof.suites.tau2.banking._tools import Bm25Tools, GrepTools
from sessionproof.suites.tau2.banking._user_tools import BankingUserTools


def _tasks() -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in packaged_tasks()}


@pytest.mark.parametrize(
    ("task_id", "doc_id"),
    [
        ("task_004", "doc_bank_accounts_bank_accounts_(general)_042"),
        ("task_046", "doc_credit_cards_credit_card_account_logistics_003"),
    ],
)
def test_bm25_ranks_a_tasks_required_document_first_for_its_topic(
    task_id: str, doc_id: str
) -> None:
    assert doc_id in _tasks()[task_id]["required_documents"]
    kb = packaged_kb()
    hits = kb.bm25(kb.by_id[doc_id].title)
    assert hits[0][0].id == doc_id
    assert len(hits) == 10 and hits[0][1] > hits[1][1] > 0


def test_grep_ranks_by_match_count_and_searches_a_broken_regex_as_text() -> None:
    kb = KnowledgeBase([])
    kb = type(kb)(
        [
            *packaged_kb().documents[:0],
            *[
                type(packaged_kb().documents[0])(f"d{i}", f"T{i}", text)
                for i, text in enumerate(["fee fee fee", "a fee", "nothing", "cost ([x"])
            ],
        ]
    )
    assert [(d.id, n) for d, n in kb.grep("FEE")] == [("d0", 3.0), ("d1", 1.0)]
    assert [d.id for d, _ in kb.grep("fee|nothing")] == ["d0", "d1", "d2"]
    assert [d.id for d, _ in kb.grep("([x")] == ["d3"]
    assert kb.grep("  ") == []


def test_search_tools_render_hits_and_say_when_nothing_matches() -> None:
    db = fresh_db()
    bm25 = Bm25Tools(db, kb=packaged_kb())
    out = bm25.invoke("KB_search", {"query": "Human Agent Transfer Reason Codes"})
    assert out.startswith("1. Internal: Human Agent Transfer Reason Codes\n")
    assert "ID: doc_bank_accounts_bank_accounts_(general)_042" in out
    assert bm25.invoke("KB_search", {"query": " "}) == "No relevant documents found."
    grep = GrepTools(db, kb=packaged_kb())
    assert grep.invoke("grep", {"pattern": "zzqqxx"}) == "No matches found for pattern: zzqqxx"
    assert "grep" not in Bm25Tools.tool_names() and "KB_search" not in GrepTools.tool_names()
    doc = grep.invoke("get_document", {"doc_id": "doc_bank_accounts_bank_accounts_(general)_042"})
    assert doc.startswith("Internal: Human Agent Transfer Reason Codes\n")
    assert grep.invoke("get_document", {"doc_id": "nope"}) == "Error: Document 'nope' not found."


def test_account_tools_read_and_write_the_db() -> None:
    db = fresh_db()
    tools = Bm25Tools(db)
    assert "Found 1 record(s) in 'users'" in tools.invoke(
        "get_user_information_by_id", {"user_id": "123"}
    )
    assert tools.invoke("get_user_information_by_email", {"email": "x@y"}) == (
        "No records found in 'users'."
    )
    tools.invoke("change_user_email", {"user_id": "123", "new_email": "m@new.example"})
    assert db.rows("users")["123"]["email"] == "m@new.example"
    assert tools.invoke("change_user_email", {"user_id": "zz", "new_email": "a"}).startswith(
        "Error: User with ID 'zz' not found"
    )
    args = {
        "name": "Mia Smith",
        "user_id": "123",
        "address": "742 Maple Street, Austin, TX 78701",
        "email": "mia.smith8574@gmail.com",
        "phone_number": "512-555-0147",
        "date_of_birth": "03/15/1992",
        "time_verified": "2025-11-14 03:40:00 EST",
    }
    assert tools.invoke("log_verification", args).startswith("Verification logged")
    assert db.rows("verification_history")["123_20251114_034000_EST"]["email"] == args["email"]
    assert tools.invoke("log_verification", args).startswith("Failed to log verification")
    # A transfer with a reason code not in the list fails (the session goes on).
    call = ToolCall(
        id="t1", name="transfer_to_human_agents", arguments={"summary": "s", "reason": "bogus"}
    )
    failed = asyncio.run(tools.call_tool(call, None))  # type: ignore[arg-type]
    assert not failed.ok and failed.output.startswith("Error: Invalid transfer reason 'bogus'")
    done = tools.invoke("transfer_to_human_agents", {"summary": "s", "reason": "other"})
    assert done.startswith("Transfer successful (reason: other)")


def test_discoverable_tools_must_be_unlocked_and_only_writes_or_task_reads_are_logged() -> None:
    db = fresh_db()
    tools = Bm25Tools(db, read_log=frozenset({"get_debit_cards_by_account_id_7823"}))
    call = "call_discoverable_agent_tool"
    read = {"agent_tool_name": "get_all_user_accounts_by_user_id_3847", "arguments": "{}"}
    assert "has not been unlocked" in tools.invoke(call, read)
    tools.invoke("unlock_discoverable_agent_tool", {"agent_tool_name": read["agent_tool_name"]})
    assert tools.invoke(call, read).startswith("Error: Invalid arguments")
    read["arguments"] = json.dumps({"user_id": "123"})
    assert "Bank Accounts:" in tools.invoke(call, read)
    assert db.rows("agent_discoverable_tools") == {}  # an extra read is not logged
    name = "get_debit_cards_by_account_id_7823"
    tools.invoke("unlock_discoverable_agent_tool", {"agent_tool_name": name})
    tools.invoke(call, {"agent_tool_name": name, "arguments": '{"account_id": "01"}'})
    logged = hex_id(f"agent_discoverable_tool:{name}")
    assert db.rows("agent_discoverable_tools") == {logged: {"tool_name": name, "status": "CALLED"}}
    unknown = tools.invoke("unlock_discoverable_agent_tool", {"agent_tool_name": "made_up_1"})
    assert unknown.startswith("Error: Unknown agent tool 'made_up_1'")


def test_a_debit_card_write_changes_the_card_and_is_logged() -> None:
    db = fresh_db()
    tools = Bm25Tools(db)
    name = "freeze_debit_card_3892"
    tools.invoke("unlock_discoverable_agent_tool", {"agent_tool_name": name})
    args = {"agent_tool_name": name, "arguments": '{"card_id": "dbc_538bfb9cba"}'}
    assert tools.invoke("call_discoverable_agent_tool", args).startswith("Debit Card Frozen")
    card = db.rows("debit_cards")["dbc_538bfb9cba"]
    assert (card["status"], card["frozen_date"]) == ("FROZEN", "11/14/2025")
    assert "already frozen" in tools.invoke("call_discoverable_agent_tool", args)
    assert len(db.rows("agent_discoverable_tools")) == 1


def _run(suite: BankingSuite, agent: Any) -> list[Session]:
    async def go() -> list[Session]:
        out = []
        for scenario in suite.scenarios:
            plan = SessionPlan(run_id="r", session_id=scenario.id, scenario=scenario, trial=0)
            # The stand-in customer makes the customer's reference calls for a reference agent
            # (the oracle) only, as `run` decides.
            user = user_for(scenario, None, reference=is_reference(agent))
            out.append(await run_session(plan, suite, agent, user))
        return out

    return asyncio.run(go())


@pytest.mark.parametrize("retrieval", ["bm25", "grep"])
def test_the_oracle_passes_every_task_under_each_retrieval(retrieval: str) -> None:
    suite = banking_suite(f"tau2-banking:{retrieval}")
    assert suite.scenarios and all(
        f"retrieval:{retrieval}" in s.tags and s.metadata["retrieval"] == retrieval
        for s in suite.scenarios
    )
    tools = suite.domain_for(suite.scenarios[0]).tool_names()
    assert ("KB_search" in tools) == (retrieval == "bm25")
    assert ("grep" in tools) == (retrieval == "grep")
    sessions = _run(suite, OracleAgent())
    assert [s.scenario_id for s in sessions if not s.success] == []
    assert all(s.outcome and s.outcome.reward == 1.0 for s in sessions)
    # The recorded sessions get the same verdict from the registered judge (store scoring).
    for scenario, session in zip(suite.scenarios, sessions, strict=True):
        assert JUDGE.judge_recorded(scenario, session).outcome.reward == 1.0


def test_an_idle_agent_fails_the_tasks_that_change_the_db() -> None:
    suite = banking_suite("tau2-banking")
    writes = {
        s.id
        for s in suite.scenarios
        if s.criteria.compare_state
        and any(a.tool in {"log_verification", "call_discoverable_agent_tool"}
                for a in s.criteria.gold_actions)
    }  # fmt: skip
    assert {"task_005", "task_046"} <= writes
    sessions = _run(suite, ScriptedAgent(lambda _: Message.assistant("Let me look into that.")))
    failed = {s.scenario_id for s in sessions if not s.success}
    for session in sessions:
        if session.scenario_id in writes:
            assert session.outcome is not None
            db = session.outcome.criterion("db")
            assert db is not None and db.passed is False
    # Every task where the agent or the customer has something to do fails idle (the
    # ACTION-graded transfers too): the stand-in customer makes the customer's reference
    # calls for a reference agent only, so nobody applies for the card an idle agent never
    # guided the customer to (the engine's rule since dual control: `user_for`).
    assert failed == {s.id for s in suite.scenarios if s.criteria.gold_actions or s.user.actions}


def test_tasks_that_cannot_run_here_are_left_out_and_said() -> None:
    suite = banking_suite("tau2-banking")
    assert len(suite.scenarios) + len(suite.left_out) == 97
    if DUAL_CONTROL:
        assert suite.left_out == {}
        return
    assert "user's own tool calls: apply_for_credit_card" in suite.left_out["task_001"]
    user_side = {t for t, why in suite.left_out.items() if "user's own tool calls" in why}
    missing = {t for t, why in suite.left_out.items() if "not implemented here" in why}
    assert len(user_side) == 49 and user_side | missing == set(suite.left_out)
    note = left_out_note(suite.left_out)
    assert note.startswith(f"tau2-banking: {len(suite.left_out)} of the tasks are left out")
    assert "49 its reference actions include the user's own tool calls" in note


def test_initialization_data_is_merged_into_the_tasks_db() -> None:
    suite = banking_suite("tau2-banking")
    scenario = next(s for s in suite.scenarios if s.id == "task_046")
    agent_data = scenario.metadata["tau2_task"]["initial_state"]["initialization_data"][
        "agent_data"
    ]
    table, records = next(iter(agent_data.items()))
    db = suite.domain_for(scenario).create().db
    for key, record in records["data"].items():
        assert db.rows(table)[key] == record
    assert "123" in db.rows("users")  # the base DB is still there


def test_broken_input_gets_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no documents directory"):
        read_documents_dir(tmp_path / "documents")
    docs = tmp_path / "documents"
    docs.mkdir()
    (docs / "a.json").write_text('{"id": "a", "title": "A"}')
    with pytest.raises(InputFileError, match="document #0 needs text fields"):
        read_documents_dir(docs)
    (docs / "a.json").write_text("{broken")
    with pytest.raises(InputFileError, match=r"a\.json: not a readable JSON document"):
        read_documents_dir(docs)
    tasks = copy.deepcopy(packaged_tasks()[:3])
    del tasks[2]["user_scenario"]
    with pytest.raises(InputFileError, match=r"banking tasks: task #2: .*user_scenario"):
        banking_suite("tau2-banking", tasks)
    with pytest.raises(InputFileError, match="expected a list of tasks"):
        banking_suite("tau2-banking", {"tasks": []})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown retrieval 'dense'"):
        banking_suite("tau2-banking:dense")


def test_customer_tools_share_the_db_and_given_tools_need_the_agent() -> None:
    db = fresh_db()
    agent = Bm25Tools(db)
    user = BankingUserTools(db, frozenset({"apply_for_credit_card", "call_discoverable_user_tool"}))
    out = user.invoke(
        "apply_for_credit_card",
        {"card_type": "Gold Rewards Card", "customer_name": "Sarah Bosch", "annual_income": 100000},
    )
    assert out.startswith("Application submitted")
    key = hex_id("credit_card:Gold Rewards Card:Sarah Bosch:100000.0:False")
    assert db.rows("credit_card_applications")[key]["annual_income"] == 100000.0
    call = {
        "discoverable_tool_name": "get_card_last_4_digits",
        "arguments": '{"credit_card_account_id": "cc_lj82d4f1a9_silver"}',
    }
    assert "has not been given to you" in user.invoke("call_discoverable_user_tool", call)
    assert db.rows("user_discoverable_tool_calls") == {}
    given = agent.invoke(
        "give_discoverable_user_tool", {"discoverable_tool_name": "get_card_last_4_digits"}
    )
    assert given.startswith("Tool given to user: get_card_last_4_digits")
    assert user.invoke("call_discoverable_user_tool", call).startswith("Last 4 digits of card: ")
    (logged,) = db.rows("user_discoverable_tool_calls").values()
    assert logged["arguments"] == {"credit_card_account_id": "cc_lj82d4f1a9_silver"}
    listed = asyncio.run(user.list_tools(None))  # type: ignore[arg-type]
    assert {t.name for t in listed} == {"apply_for_credit_card", "call_discoverable_user_tool"}
    refused = asyncio.run(
        user.call_tool(
            ToolCall(
                id="c1", name="submit_referral", arguments={"user_id": "1", "account_type": "x"}
            ),
            None,  # type: ignore[arg-type]
        )
    )
    assert refused.error and "unknown tool" in refused.error


def _gold(task_id: str) -> list[Any]:
    crit = Tau2Task.model_validate(_tasks()[task_id]).evaluation_criteria
    assert crit is not None and crit.actions is not None
    return crit.actions


def test_customer_actions_are_ordered_after_the_agent_actions_they_follow() -> None:
    gold = _gold("task_015")
    agent, user = _sides(gold)
    assert len(agent) + len(user) == len(gold)
    give = next(a for a in agent if a.tool == "give_discoverable_user_tool")
    (use,) = user
    assert give.turn is not None and use.tool == "call_discoverable_user_tool"
    assert use.turn == give.turn + 1
    no_agent, applies = _sides(_gold("task_001"))
    assert (no_agent, [a.turn for a in applies]) == ([], [0])
    plain, none = _sides(_gold("task_004"))
    assert none == [] and {a.turn for a in plain} == {None}


def _scenario(task_id: str) -> Scenario:
    raw = _tasks()[task_id]
    return Scenario(
        id=task_id,
        domain="banking_knowledge",
        user=UserSpec(instructions="x"),
        criteria=Criteria(evaluator="tau2-banking"),
        metadata={"tau2_task": raw, "retrieval": "bm25"},
    )


def test_the_gold_state_includes_the_customers_own_actions() -> None:
    scenario = _scenario("task_015")
    spec = spec_for(scenario)
    idle = _run_one(scenario)
    judged = judge_banking(scenario, idle, None, spec)
    assert judged.db_match is False  # the customer's reference call is part of the gold state
    both = spec.create()
    for action in scenario.metadata["tau2_task"]["evaluation_criteria"]["actions"]:
        side = both.user_tools if action["requestor"] == "user" else both.toolkit
        side.invoke(action["name"], action["arguments"])
    assert judge_banking(scenario, idle, both, spec).outcome.reward == 1.0


def _run_one(scenario: Scenario) -> Session:
    suite = BankingSuite("tau2-banking", LoadedTasks((scenario,), {}))

    async def go() -> Session:
        plan = SessionPlan(run_id="r", session_id=scenario.id, scenario=scenario, trial=0)
        return await run_session(
            plan, suite, ScriptedAgent(lambda _: Message.assistant("OK.")), user_for(scenario, None)
        )

    return asyncio.run(go())


@pytest.mark.skipif(not DUAL_CONTROL, reason="the engine gives the user side no tools")
def test_with_dual_control_the_oracle_passes_all_97_tasks() -> None:
    suite = banking_suite("tau2-banking")
    assert len(suite.scenarios) == 97 and suite.left_out == {}
    sessions = _run(suite, OracleAgent())
    assert [s.scenario_id for s in sessions if not s.success] == []
    for scenario, session in zip(suite.scenarios, sessions, strict=True):
        assert JUDGE.judge_recorded(scenario, session).outcome.reward == 1.0


def _call(tools: Bm25Tools, name: str, **args: Any) -> str:
    tools.invoke("unlock_discoverable_agent_tool", {"agent_tool_name": name})
    out = tools.invoke(
        "call_discoverable_agent_tool", {"agent_tool_name": name, "arguments": json.dumps(args)}
    )
    assert isinstance(out, str)
    return out


_ACCOUNT = {
    "account_id": "chk_t1",
    "user_id": "u1",
    "class": "checking",
    "level": "Blue Account",
    "date_opened": "10/20/2025",
    "status": "OPEN",
    "current_holdings": "25",
}


def test_closing_inside_the_early_window_takes_the_fee_from_the_balance() -> None:
    data = {"accounts": {"data": {"chk_t1": dict(_ACCOUNT)}}}
    db = fresh_db(data)
    out = _call(Bm25Tools(db), "close_bank_account_7392", account_id="chk_t1")
    assert out.startswith("Bank account closed")  # $25 is exactly the Blue Account's fee
    assert db.rows("accounts")["chk_t1"]["status"] == "CLOSED"
    poorer = fresh_db({"accounts": {"data": {"chk_t1": {**_ACCOUNT, "current_holdings": "10"}}}})
    assert _call(Bm25Tools(poorer), "close_bank_account_7392", account_id="chk_t1") == (
        "Error: Account unable to be closed."
    )
    waived = fresh_db({"accounts": {"data": {"chk_t1": {**_ACCOUNT, "current_holdings": "0"}}}})
    _call(
        Bm25Tools(waived),
        "close_bank_account_7392",
        account_id="chk_t1",
        waive_early_closure_fee=True,
    )
    assert waived.rows("accounts")["chk_t1"]["early_closure_fee_waived"] is True


def test_a_debit_card_order_charges_its_fees_and_leaves_a_pending_card() -> None:
    data = {"accounts": {"data": {"chk_t1": {**_ACCOUNT, "current_holdings": "100.00"}}}}
    db = fresh_db(data)
    out = _call(
        Bm25Tools(db),
        "order_debit_card_5739",
        account_id="chk_t1",
        user_id="u1",
        delivery_option="expedited",
        delivery_fee=15,
        card_design="premium",
        design_fee=10,
        shipping_address="1 Main St",
    )
    assert out.startswith("Debit card ordered.")
    assert db.rows("accounts")["chk_t1"]["current_holdings"] == "75.00"
    (card,) = [c for c in db.rows("debit_cards").values() if c["account_id"] == "chk_t1"]
    assert (card["status"], card["issue_reason"], card["card_design"]) == (
        "PENDING",
        "new_account",
        "PREMIUM",
    )
    (fee,) = [
        t
        for t in db.rows("bank_account_transaction_history").values()
        if t["account_id"] == "chk_t1"
    ]
    assert fee["amount"] == -25.0 and fee["description"] == (
        "DEBIT CARD ORDER FEE - Delivery $15.0, Design $10.0"
    )
    # tau2 reads a balance written with a dollar sign as 0 here: kept.
    dollars = fresh_db({"accounts": {"data": {"chk_t1": {**_ACCOUNT, "current_holdings": "$100"}}}})
    refused = _call(
        Bm25Tools(dollars),
        "order_debit_card_5739",
        account_id="chk_t1",
        user_id="u1",
        delivery_option="STANDARD",
        delivery_fee=0,
        card_design="CLASSIC",
        design_fee=0,
        shipping_address="1 Main St",
    )
    assert refused.startswith("Error: Account must have a minimum balance of $25")


def test_activation_tools_serve_their_own_issue_reasons() -> None:
    card = {
        "card_id": "dbc_t1",
        "account_id": "chk_t1",
        "user_id": "u1",
        "last_4_digits": "4821",
        "status": "PENDING",
        "issue_reason": "lost",
    }
    old = {**card, "card_id": "dbc_t0", "status": "ACTIVE", "issue_reason": "new_account"}
    data = {
        "accounts": {"data": {"chk_t1": dict(_ACCOUNT)}},
        "debit_cards": {"data": {"dbc_t1": card, "dbc_t0": old}},
    }
    db = fresh_db(data)
    tools = Bm25Tools(db)
    args = {"card_id": "dbc_t1", "last_4_digits": "4821", "expiration_date": "11/29", "cvv": "123"}
    wrong = _call(tools, "activate_debit_card_8291", **args, pin="2580")
    assert "Please use activate_debit_card_8292 instead of activate_debit_card_8291" in wrong
    assert _call(tools, "activate_debit_card_8292", **args, pin="1234").endswith(
        "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."
    )
    assert _call(tools, "activate_debit_card_8292", **args, pin="2580").startswith("Debit card")
    assert db.rows("debit_cards")["dbc_t1"]["status"] == "ACTIVE"
    assert db.rows("debit_cards")["dbc_t0"]["status"] == "DEACTIVATED"


def test_a_limit_increase_is_refused_while_a_dispute_is_open() -> None:
    card = {"account_id": "cc_t1", "user_id": "u1", "credit_limit": "$5,000.00"}
    dispute = {"dispute_id": "dsp_1", "user_id": "u1", "status": "SUBMITTED"}
    data = {
        "credit_card_accounts": {"data": {"cc_t1": card}},
        "transaction_disputes": {"data": {"dsp_1": dispute}},
    }
    db = fresh_db(data)
    args = {"credit_card_account_id": "cc_t1", "user_id": "u1", "new_credit_limit": 7500}
    refused = _call(Bm25Tools(db), "approve_credit_limit_increase_5847", **args)
    assert refused == "Error: Credit limit increase request cannot be approved at this time."
    assert db.rows("credit_card_accounts")["cc_t1"]["credit_limit"] == "$5,000.00"
    clear = fresh_db({"credit_card_accounts": {"data": {"cc_t1": card}}})
    _call(Bm25Tools(clear), "approve_credit_limit_increase_5847", **args)
    assert clear.rows("credit_card_accounts")["cc_t1"]["credit_limit"] == "$7500.00"
    (record,) = clear.rows("credit_limit_increase_requests").values()
    assert (record["increase_amount"], record["status"]) == ("$2500.00", "APPROVED")
