"""The telecom agent's tools (tau2 semantics: the same checks, the same failure texts, the
same results) and the environment functions tasks set up and assert with."""

from __future__ import annotations

import datetime
import hashlib
from typing import Any

from ....domains import Toolkit, tool
from .._tau import transfer_to_human_agents
from ._models import (
    TODAY,
    Bill,
    BillStatus,
    Customer,
    Device,
    Line,
    LineItem,
    LineStatus,
    Plan,
    TelecomDB,
)


def _first_of_next_month(day: datetime.date) -> datetime.date:
    return (day.replace(day=1) + datetime.timedelta(days=32)).replace(day=1)


class TelecomTools(Toolkit[TelecomDB]):
    """What the carrier's agent can look up and change."""

    # -- look-ups (not tools) --------------------------------------------------------------

    def _line(self, line_id: str) -> Line:
        for line in self.db.lines:
            if line.line_id == line_id:
                return line
        raise ValueError(f"Line with ID {line_id} not found")

    def line_by_phone(self, phone_number: str) -> Line:
        """The line with this number; raises ValueError when there is none."""
        for line in self.db.lines:
            if line.phone_number == phone_number:
                return line
        raise ValueError(f"Line with phone number {phone_number} not found")

    def plan(self, plan_id: str) -> Plan:
        """The plan with this id; raises ValueError when there is none."""
        for plan in self.db.plans:
            if plan.plan_id == plan_id:
                return plan
        raise ValueError(f"Plan with ID {plan_id} not found")

    def _device(self, device_id: str) -> Device:
        for device in self.db.devices:
            if device.device_id == device_id:
                return device
        raise ValueError(f"Device with ID {device_id} not found")

    def bill(self, bill_id: str) -> Bill:
        """The bill with this id; raises ValueError when there is none."""
        for bill in self.db.bills:
            if bill.bill_id == bill_id:
                return bill
        raise ValueError(f"Bill with ID {bill_id} not found")

    def _owned_line(self, customer_id: str, line_id: str) -> Line:
        customer = self.get_customer_by_id(customer_id)
        if line_id not in customer.line_ids:
            raise ValueError(f"Line {line_id} not found for customer {customer_id}")
        return self._line(line_id)

    def awaiting_payment(self, customer: Customer) -> list[Bill]:
        """The customer's bills in the Awaiting Payment state, in bill order."""
        bills = (self.bill(bill_id) for bill_id in customer.bill_ids)
        return [b for b in bills if b.status == BillStatus.AWAITING_PAYMENT]

    # -- customers -------------------------------------------------------------------------

    @tool()
    def get_customer_by_phone(self, phone_number: str) -> Customer:
        """Find the customer whose contact number, or one of whose lines, is this number.

        Args:
            phone_number: The phone number to look for.
        """
        for customer in self.db.customers:
            if customer.phone_number == phone_number:
                return customer
            for line_id in customer.line_ids:
                if self._line(line_id).phone_number == phone_number:
                    return customer
        raise ValueError(f"Customer with phone number {phone_number} not found")

    @tool()
    def get_customer_by_id(self, customer_id: str) -> Customer:
        """Fetch a customer by their customer id.

        Args:
            customer_id: The customer's id, e.g. C1001.
        """
        for customer in self.db.customers:
            if customer.customer_id == customer_id:
                return customer
        raise ValueError(f"Customer with ID {customer_id} not found")

    @tool()
    def get_customer_by_name(self, full_name: str, dob: str) -> list[Customer]:
        """Find customers by full name (any case) and date of birth; may match several.

        Args:
            full_name: The customer's full name.
            dob: The date of birth, YYYY-MM-DD.
        """
        return [
            c
            for c in self.db.customers
            if c.full_name.lower() == full_name.lower() and c.date_of_birth == dob
        ]

    @tool()
    def get_details_by_id(self, id: str) -> Any:
        """Fetch a line (L...), device (D...), bill (B...), customer (C...) or plan (P...)
        by its id.

        Args:
            id: The id of the record.
        """
        if id.startswith("L"):
            return self._line(id)
        if id.startswith("D"):
            return self._device(id)
        if id.startswith("B"):
            return self.bill(id)
        if id.startswith("C"):
            return self.get_customer_by_id(id)
        if id.startswith("P"):
            return self.plan(id)
        raise ValueError(f"Unknown ID format or type: {id}")

    # -- lines -----------------------------------------------------------------------------

    @tool(write=True)
    def suspend_line(self, customer_id: str, line_id: str, reason: str) -> dict[str, Any]:
        """Suspend an active line of the customer (at most six months; a holding fee applies).

        Args:
            customer_id: The customer who owns the line.
            line_id: The line to suspend.
            reason: Why the line is suspended.
        """
        line = self._owned_line(customer_id, line_id)
        if line.status != LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend")
        line.status = LineStatus.SUSPENDED
        line.suspension_start_date = TODAY
        return {
            "message": "Line suspended successfully. $5/month holding fee will apply.",
            "line": line,
        }

    @tool(write=True)
    def resume_line(self, customer_id: str, line_id: str) -> dict[str, Any]:
        """Make a suspended (or pending) line of the customer active again.

        Args:
            customer_id: The customer who owns the line.
            line_id: The line to resume.
        """
        line = self._owned_line(customer_id, line_id)
        if line.status not in (LineStatus.SUSPENDED, LineStatus.PENDING_ACTIVATION):
            raise ValueError("Line must be suspended to resume")
        line.status = LineStatus.ACTIVE
        line.suspension_start_date = None
        return {"message": "Line resumed successfully", "line": line}

    @tool()
    def get_data_usage(self, customer_id: str, line_id: str) -> dict[str, Any]:
        """This billing cycle's data use of a line: used, limit, refuelled, cycle end.

        Args:
            customer_id: The customer who owns the line.
            line_id: The line to report on.
        """
        line = self._owned_line(customer_id, line_id)
        plan = self.plan(line.plan_id)
        return {
            "line_id": line_id,
            "data_used_gb": line.data_used_gb,
            "data_limit_gb": plan.data_limit_gb,
            "data_refueling_gb": line.data_refueling_gb,
            "cycle_end_date": _first_of_next_month(TODAY) - datetime.timedelta(days=1),
        }

    @tool(write=True)
    def enable_roaming(self, customer_id: str, line_id: str) -> str:
        """Turn international roaming on for a line.

        Args:
            customer_id: The customer who owns the line.
            line_id: The line to enable roaming on.
        """
        line = self._owned_line(customer_id, line_id)
        if line.roaming_enabled:
            return "Roaming was already enabled"
        line.roaming_enabled = True
        return "Roaming enabled successfully"

    @tool(write=True)
    def disable_roaming(self, customer_id: str, line_id: str) -> str:
        """Turn international roaming off for a line.

        Args:
            customer_id: The customer who owns the line.
            line_id: The line to disable roaming on.
        """
        line = self._owned_line(customer_id, line_id)
        if not line.roaming_enabled:
            return "Roaming was already disabled"
        line.roaming_enabled = False
        return "Roaming disabled successfully"

    @tool(write=True)
    def refuel_data(self, customer_id: str, line_id: str, gb_amount: float) -> dict[str, Any]:
        """Add data to a line for this cycle, charged at the plan's refuelling price on the
        customer's next bill.

        Args:
            customer_id: The customer who owns the line.
            line_id: The line to add data to.
            gb_amount: Gigabytes to add (more than zero).
        """
        line = self._owned_line(customer_id, line_id)
        if gb_amount <= 0:
            raise ValueError("Refuel amount must be positive")
        plan = self.plan(line.plan_id)
        charge = gb_amount * plan.data_refueling_price_per_gb
        line.data_refueling_gb += gb_amount
        self._charge(
            customer_id,
            charge,
            f"Data refueling: {gb_amount} GB at ${plan.data_refueling_price_per_gb}/GB",
        )
        return {
            "message": f"Successfully added {gb_amount} GB of data for line {line_id} "
            f"for ${charge:.2f}",
            "new_data_refueling_gb": line.data_refueling_gb,
            "charge": charge,
        }

    # -- billing ---------------------------------------------------------------------------

    @tool()
    def get_bills_for_customer(self, customer_id: str, limit: int = 12) -> list[Bill]:
        """The customer's bills, newest issue date first.

        Args:
            customer_id: The customer.
            limit: At most this many bills.
        """
        customer = self.get_customer_by_id(customer_id)
        bills = sorted(
            (self.bill(b) for b in customer.bill_ids), key=lambda b: b.issue_date, reverse=True
        )
        return bills[:limit]

    @tool(write=True)
    def send_payment_request(self, customer_id: str, bill_id: str) -> str:
        """Ask the customer to pay one of their bills (it then awaits payment). Only one bill
        may await payment at a time; check the bill's status first: a paid bill is not
        refused.

        Args:
            customer_id: The customer who owns the bill.
            bill_id: The bill to request payment for.
        """
        customer = self.get_customer_by_id(customer_id)
        if self.awaiting_payment(customer):
            raise ValueError("A bill is already awaiting payment for this customer")
        if bill_id not in customer.bill_ids:
            raise ValueError(f"Bill {bill_id} not found for customer {customer_id}")
        bill = self.bill(bill_id)
        bill.status = BillStatus.AWAITING_PAYMENT
        return f"Payment request sent to the customer for bill {bill.bill_id}"

    def set_bill_paid(self, bill_id: str) -> None:
        """Mark a bill paid (the user paid it on their side)."""
        self.bill(bill_id).status = BillStatus.PAID

    def _charge(self, customer_id: str, amount: float, description: str) -> None:
        customer = self.get_customer_by_id(customer_id)
        draft = next(
            (b for b in (self.bill(i) for i in customer.bill_ids) if b.status == BillStatus.DRAFT),
            None,
        )
        if draft is None:
            start = _first_of_next_month(TODAY)
            # tau2 draws a random id here; ours is derived, so equal sessions stay equal.
            digest = hashlib.blake2b(
                f"{customer_id}|{len(self.db.bills)}".encode(), digest_size=4
            ).hexdigest()
            draft = Bill(
                bill_id=f"B{digest}",
                customer_id=customer_id,
                period_start=start,
                period_end=_first_of_next_month(start) - datetime.timedelta(days=1),
                issue_date=start,
                total_due=0,
                due_date=start + datetime.timedelta(days=14),
                status=BillStatus.DRAFT,
            )
            self.db.bills.append(draft)
            customer.bill_ids.append(draft.bill_id)
        draft.line_items.append(
            LineItem(
                description=description,
                amount=amount,
                date=TODAY,
                item_type="Credit" if amount < 0 else "Charge",
            )
        )
        draft.total_due += amount

    transfer_to_human_agents = transfer_to_human_agents

    # -- environment functions (tasks set up and assert with them; not tools) -------------

    def set_data_usage(self, customer_id: str, line_id: str, data_used_gb: float) -> str:
        """Set a line's data used this cycle."""
        self._owned_line(customer_id, line_id).data_used_gb = data_used_gb
        return f"Data usage set to {data_used_gb} GB for line {line_id}"

    def suspend_line_for_overdue_bill(
        self, customer_id: str, line_id: str, new_bill_id: str, contract_ended: bool
    ) -> str:
        """Suspend an active line for last month's unpaid bill (created overdue)."""
        line = self._line(line_id)
        if line.status != LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend for unpaid bill")
        amount = self.plan(line.plan_id).price_per_month
        if amount <= 0:
            raise ValueError("Amount must be positive for overdue bill")
        customer = self.get_customer_by_id(customer_id)
        if any(self.bill(b).status == BillStatus.OVERDUE for b in customer.bill_ids):
            raise ValueError("Customer already has an overdue bill")
        last_month_end = TODAY.replace(day=1) - datetime.timedelta(days=1)
        last_month_start = last_month_end.replace(day=1)
        bill = Bill(
            bill_id=new_bill_id,
            customer_id=customer_id,
            period_start=last_month_start,
            period_end=last_month_end,
            issue_date=last_month_start,
            total_due=0,
            due_date=last_month_start + datetime.timedelta(days=14),
            status=BillStatus.OVERDUE,
        )
        bill.line_items.append(
            LineItem(
                description=f"Charge for line {line.line_id}",
                amount=amount,
                date=TODAY,
                item_type="Charge",
            )
        )
        bill.total_due += amount
        self.db.bills.append(bill)
        customer.bill_ids.append(new_bill_id)
        line.status = LineStatus.SUSPENDED
        line.suspension_start_date = TODAY
        if contract_ended:
            line.contract_end_date = last_month_end
        return (
            f"Line {line_id} suspended for unpaid bill {new_bill_id}. "
            f"Contract ended: {contract_ended}"
        )

    def assert_data_refueling_amount(
        self, customer_id: str, line_id: str, expected_amount: float
    ) -> bool:
        """True when the line's refuelled data is `expected_amount` GB."""
        line = self._owned_line(customer_id, line_id)
        return abs(line.data_refueling_gb - expected_amount) < 1e-6

    def assert_line_status(self, customer_id: str, line_id: str, expected_status: str) -> bool:
        """True when the line's status is `expected_status`."""
        return bool(self._owned_line(customer_id, line_id).status == expected_status)

    def assert_overdue_bill_exists(self, customer_id: str, overdue_bill_id: str) -> bool:
        """True when the customer has this bill and it is overdue (raises otherwise)."""
        customer = self.get_customer_by_id(customer_id)
        if overdue_bill_id not in customer.bill_ids:
            raise ValueError(f"Overdue bill {overdue_bill_id} not found")
        if self.bill(overdue_bill_id).status != BillStatus.OVERDUE:
            raise ValueError(f"Overdue bill {overdue_bill_id} is not overdue")
        return True

    def assert_no_overdue_bill(self, overdue_bill_id: str) -> bool:
        """True when the bill does not exist or is paid."""
        try:
            return self.bill(overdue_bill_id).status == BillStatus.PAID
        except ValueError:
            return True
