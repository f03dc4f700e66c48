"""Fault detection and recovery, from the trace alone (scoring/_detection*.py)."""

from __future__ import annotations

import pytest
from detection_sessions import build, call, explicit, faulted_call, guard, implicit, say

from sessionproof.records import TerminationReason
from sessionproof.scoring import SessionInput, run_metrics
from sessionproof.scoring._builtin_metrics import BUILTIN_METRICS
from sessionproof.scoring._detection import is_id_name
from sessionproof.scoring._internal import faults_report, session_faults, session_recovered
from sessionproof.scoring._metric import compute_metric
from sessionproof.scoring.stats import wilson_interval


def _noop(permanent: bool = False) -> list:
    fault = implicit("w1", "cancel_order", "silent_noop", permanent=permanent)
    return faulted_call("w1", "cancel_order", fault, order_id="O1")


def test_a_read_of_the_written_entity_after_a_silent_noop_is_a_detection() -> None:
    session = build([*_noop(), *call("r2", "get_order_details", order_id="O1"), *say("Done.")])
    (fault,) = session_faults(session)
    assert (fault.kind, fault.implicit, fault.permanent) == ("silent_noop", True, False)
    assert fault.how == "re_read"


def test_a_write_on_the_same_entity_after_a_stale_read_is_not_a_detection() -> None:
    stale = implicit("r1", "get_order_details", "stale_read")
    session = build(
        [
            *faulted_call("r1", "get_order_details", stale, order_id="O1"),
            *call("w2", "cancel_order", order_id="O1"),
            *say("Your order is cancelled. Is there anything else I can help with?"),
        ]
    )
    (fault,) = session_faults(session)
    assert fault.how is None and not fault.detected


def test_another_read_of_the_same_id_is_a_cross_check_and_other_ids_are_not() -> None:
    wrong = implicit("r1", "get_order_details", "wrong_entity")
    first = faulted_call("r1", "get_order_details", wrong, order_id="O1")
    other = build([*first, *call("r2", "get_order_status", order_id="O2")])
    assert session_faults(other)[0].how is None
    same = build([*first, *call("r2", "get_order_status", order_id="O1")])
    assert session_faults(same)[0].how == "cross_check"
    again = build([*first, *call("r2", "get_order_details", order_id="O1")])
    assert session_faults(again)[0].how == "re_read"


def test_the_domain_says_which_tools_read() -> None:
    # `lookup_x` reads by name; with the domain's writes it is a write, and no detection.
    session = build([*_noop(), *call("r2", "lookup_order", order_id="O1")])
    assert session_faults(session)[0].how == "re_read"
    assert session_faults(session, writes={"cancel_order", "lookup_order"})[0].how is None


@pytest.mark.parametrize(
    ("text", "how"),
    [
        ("It seems the cancellation did not go through; let me look into it.", "told"),
        ("The order still shows as pending, which does not match what I did.", "told"),
        ("Did the refund fail on your side? I see a discrepancy.", "asked"),
        ("I can't proceed with this exchange right now.", "refused"),
        ("Something went wrong with the update.", "told"),
    ],
)
def test_text_cues_are_detections(text: str, how: str) -> None:
    session = build([*_noop(), *say(text)])
    assert session_faults(session)[0].how == how


@pytest.mark.parametrize(
    "text",
    [
        "Your order has been cancelled. Is there anything else I can help with?",
        "Could you confirm that you want to proceed (yes/no)?",
        "I need to verify your identity first: what is your zip code?",
        "No problem, happy to help!",
        "The refund will go to the original payment method.",
    ],
)
def test_routine_text_is_not_a_detection(text: str) -> None:
    session = build([*_noop(), *say(text)])
    assert session_faults(session)[0].how is None


def test_text_before_the_fault_does_not_count() -> None:
    session = build([*say("Something went wrong earlier."), *_noop()])
    assert session_faults(session)[0].how is None


def test_a_transfer_is_an_escalation_and_a_repeat_is_a_repeat() -> None:
    escalated = build([*_noop(), *call("t", "transfer_to_human_agents", summary="x")])
    assert session_faults(escalated)[0].how == "escalated"
    timeout = faulted_call("w1", "cancel_order", explicit("w1", "cancel_order"), order_id="O1")
    repeated = build([*timeout, *call("w2", "cancel_order", order_id="O1")])
    (fault,) = session_faults(repeated)
    assert (fault.kind, fault.implicit, fault.how) == ("timeout", False, "repeated")


def test_a_guard_acting_on_the_call_is_a_detection_by_the_guard() -> None:
    session = build([*_noop(), *guard("w1", "cancel_order", "escalate")])
    assert session_faults(session)[0].how == "guard"
    passed = build([*_noop(), *guard("w1", "cancel_order", "pass")])
    assert session_faults(passed)[0].how is None


def test_a_guard_resending_a_call_adds_no_fault() -> None:
    twice = explicit("w1", "cancel_order") + explicit("w1", "cancel_order", "server_error")
    session = build(faulted_call("w1", "cancel_order", twice, order_id="O1"))
    (fault,) = session_faults(session)
    assert fault.kind == "timeout"


def test_recovery_is_the_goal_or_informing_after_a_permanent_fault() -> None:
    assert session_recovered(build(_noop(), success=True), session_faults(build(_noop()))) is True
    transient = build([*_noop(), *say("Something went wrong.")], success=False)
    assert session_recovered(transient, session_faults(transient)) is False
    told = build([*_noop(True), *say("The cancellation did not take effect.")], success=False)
    assert session_recovered(told, session_faults(told)) is True
    silent = build([*_noop(True), *say("All done!")], success=False)
    assert session_recovered(silent, session_faults(silent)) is False
    handed = build([*_noop(True), *call("t", "transfer_to_human_agents")], success=False)
    assert session_recovered(handed, session_faults(handed)) is True
    clean = build(call("r", "get_order_details", order_id="O1"))
    assert session_recovered(clean, session_faults(clean)) is None


def test_unjudged_and_infra_sessions_are_left_out_and_counted() -> None:
    judged = build([*_noop(), *call("r2", "get_order_details", order_id="O1")], trial=0)
    unjudged = build(_noop(), success=None, trial=1)
    crashed = build(_noop(), success=None, trial=2, termination=TerminationReason.infra_error)
    report = faults_report([judged, unjudged, crashed])
    assert report is not None
    assert (report.sessions, report.not_judged, report.excluded_infra) == (2, 1, 1)
    assert report.overall.recovery.n == 1 and report.overall.recovery.hits == 1
    assert report.overall.detection.n == 2 and report.overall.detection.hits == 1
    assert report.overall.detection.ci95 == wilson_interval(1, 2)


def test_the_report_splits_kinds_visibility_and_persistence() -> None:
    noop = build([*_noop(True), *say("It did not take effect.")], success=False, trial=0)
    timeout = faulted_call("w1", "cancel_order", explicit("w1", "cancel_order"), order_id="O1")
    failed = build(timeout, success=False, trial=1)
    report = faults_report([noop, failed])
    assert report is not None
    assert set(report.by_kind) == {"silent_noop", "timeout"}
    assert (report.implicit.detection.n, report.implicit.detection.hits) == (1, 1)
    assert (report.explicit.detection.n, report.explicit.detection.hits) == (1, 0)
    assert (report.permanent.recovery.n, report.permanent.recovery.hits) == (1, 1)
    assert (report.transient.recovery.n, report.transient.recovery.hits) == (1, 0)
    assert report.overall.recovery.rate == 0.5
    assert report.overall.recovery.ci95 == wilson_interval(1, 2)
    assert report.detected_how == {"told": 1}
    assert faults_report([build(call("r", "get_order_details", order_id="O1"))]) is None


def test_the_metrics_on_the_protocol_agree_with_the_report() -> None:
    sessions = [
        build([*_noop(), *call("r2", "get_order_details", order_id="O1")], trial=0),
        build(_noop(), success=False, trial=1),
        build(_noop(), success=None, trial=2),
        build(call("r", "get_order_details", order_id="O1"), trial=3),
    ]
    report = run_metrics(sessions, {}, lambda s: pytest.fail())
    assert report.faults == faults_report(sessions)
    by_name = {m.name: m for m in BUILTIN_METRICS}
    items = [SessionInput(s) for s in sessions]
    detection = compute_metric(by_name["fault_detection_rate"], items)
    assert (detection.value, detection.n) == (1 / 3, 3)
    assert detection.ci95 == wilson_interval(1, 3)
    assert detection.not_applicable == 1
    recovery = compute_metric(by_name["fault_recovery_rate"], items)
    assert (recovery.value, recovery.n, recovery.not_judged) == (0.5, 2, 1)
    dumped = report.model_dump(mode="json")
    assert dumped["faults"]["overall"]["detection"]["hits"] == 1
    plain = run_metrics(sessions[3:], {}, lambda s: pytest.fail())
    assert "faults" not in plain.model_dump(mode="json")


def test_a_fault_on_a_call_the_agent_never_made_is_not_counted() -> None:
    guards_read = implicit("w1:verify", "get_order_details", "stale_read")
    session = build([*_noop(), *guards_read])
    assert [f.call_id for f in session_faults(session)] == ["w1"]


@pytest.mark.parametrize(
    ("name", "is_id"),
    [
        ("id", True),
        ("order_id", True),
        ("orderId", True),
        ("userID", True),
        ("paid", False),
        ("valid", False),
        ("amount", False),
        ("ID", True),
    ],
)
def test_which_arguments_name_an_entity(name: str, is_id: bool) -> None:
    assert is_id_name(name) is is_id


def test_a_read_sharing_only_a_non_id_value_is_no_cross_check() -> None:
    wrong = implicit("r1", "get_order_details", "wrong_entity")
    first = faulted_call("r1", "get_order_details", wrong, order_id="O1", valid="yes")
    other = build([*first, *call("r2", "get_refund_status", valid="yes")])
    assert session_faults(other)[0].how is None
