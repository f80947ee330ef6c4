/**
 * Charges on bills (τ² `TelecomTools._apply_one_time_charge`, `suspend_line_for_overdue_bill`):
 * the bill and line-item models are built through pydantic (so `total_due=0` becomes `0.0`), the
 * running total is updated with Python arithmetic, and dates follow the fixed "today".
 */
import { telecomMessages } from "./messages.ts";
import type { Tau2ToolkitInstance } from "../../src/suites/tau2/engine/toolkit.ts";
import { randomHex } from "../../src/suites/tau2/engine/random.ts";
import {
  type PyModel,
  type PyValue,
  pyAppend,
  pyBool,
  pyEquals,
  pyGetAttr,
  pyGreaterThan,
  pyIAdd,
  pyIterate,
  pyLessOrEqual,
  pyLessThan,
  pyModelValidate,
  pySetAttr,
  pyStr,
  pyValueError,
} from "../../src/value/index.ts";
import { TODAY, addDays, dateParts, firstOfMonth, makeDate } from "./calendar.ts";
import { BillStatus, LineStatus, billModel, lineItemModel } from "./data-model.ts";
import { billById, customerById, lineById, planById } from "./lookups.ts";

function newBill(fields: Array<[string, PyValue]>): PyModel {
  return pyModelValidate(billModel, new Map(fields));
}

function newLineItem(description: PyValue, amount: PyValue, itemType: string): PyModel {
  return pyModelValidate(
    lineItemModel,
    new Map([
      ["description", description],
      ["amount", amount],
      ["date", TODAY],
      ["item_type", itemType],
    ]),
  );
}

/** The customer's Draft bill, or a new one for next month (its id drawn from the environment's random source). */
function draftBill(self: Tau2ToolkitInstance, customer: PyModel, customerId: PyValue): PyModel {
  for (const billId of pyIterate(pyGetAttr(customer, "bill_ids"))) {
    const bill = billById(self.db, billId);
    if (pyEquals(pyGetAttr(bill, "status"), BillStatus.members.DRAFT)) return bill;
  }
  const nextMonth = firstOfMonth(addDays(firstOfMonth(TODAY), 32));
  const { year, month } = dateParts(nextMonth);
  const monthAfter = month < 12 ? makeDate(year, month + 1, 1) : makeDate(year + 1, 1, 1);
  const billId = `B${randomHex(self.random, 8)}`;
  const bill = newBill([
    ["bill_id", billId],
    ["customer_id", customerId],
    ["period_start", nextMonth],
    ["period_end", addDays(monthAfter, -1)],
    ["issue_date", nextMonth],
    ["total_due", 0],
    ["due_date", addDays(nextMonth, 14)],
    ["status", BillStatus.members.DRAFT],
  ]);
  pyAppend(pyGetAttr(self.db, "bills"), bill);
  pyAppend(pyGetAttr(customer, "bill_ids"), billId);
  return bill;
}

/** `_apply_one_time_charge`: a Charge (or Credit, when negative) line item on the customer's Draft bill. */
export function applyOneTimeCharge(self: Tau2ToolkitInstance, customerId: PyValue, amount: PyValue, description: string): void {
  const customer = customerById(self.db, customerId);
  const bill = draftBill(self, customer, customerId);
  const item = newLineItem(description, amount, pyLessThan(amount, 0) ? "Credit" : "Charge");
  pyAppend(pyGetAttr(bill, "line_items"), item);
  pySetAttr(bill, "total_due", pyIAdd(pyGetAttr(bill, "total_due"), amount));
}

/** `suspend_line_for_overdue_bill` (a setup function): last month's plan charge as an Overdue bill, and the line suspended. */
export function suspendLineForOverdueBill(self: Tau2ToolkitInstance, customerId: PyValue, lineId: PyValue, newBillId: PyValue, contractEnded: PyValue): string {
  const line = lineById(self.db, lineId);
  if (!pyEquals(pyGetAttr(line, "status"), LineStatus.members.ACTIVE)) throw pyValueError(telecomMessages.text("overdueSuspendNeedsActive"));
  const plan = planById(self.db, pyGetAttr(line, "plan_id"));
  const amount = pyGetAttr(plan, "price_per_month");
  const description = telecomMessages.format("overdueCharge", { "line.line_id": pyStr(pyGetAttr(line, "line_id")) });
  if (pyLessOrEqual(amount, 0)) throw pyValueError(telecomMessages.text("overdueNeedsPositive"));
  const customer = customerById(self.db, customerId);
  for (const billId of pyIterate(pyGetAttr(customer, "bill_ids"))) {
    if (pyEquals(pyGetAttr(billById(self.db, billId), "status"), BillStatus.members.OVERDUE)) throw pyValueError(telecomMessages.text("overdueAlreadyExists"));
  }
  const lastDayOfLastMonth = addDays(firstOfMonth(TODAY), -1);
  const firstDayOfLastMonth = firstOfMonth(lastDayOfLastMonth);
  const bill = newBill([
    ["bill_id", newBillId],
    ["customer_id", customerId],
    ["period_start", firstDayOfLastMonth],
    ["period_end", lastDayOfLastMonth],
    ["issue_date", firstDayOfLastMonth],
    ["total_due", 0],
    ["due_date", addDays(firstDayOfLastMonth, 14)],
    ["status", BillStatus.members.OVERDUE],
  ]);
  pyAppend(pyGetAttr(bill, "line_items"), newLineItem(description, amount, pyGreaterThan(amount, 0) ? "Charge" : "Credit"));
  pySetAttr(bill, "total_due", pyIAdd(pyGetAttr(bill, "total_due"), amount));
  pyAppend(pyGetAttr(self.db, "bills"), bill);
  pyAppend(pyGetAttr(customer, "bill_ids"), newBillId);
  pySetAttr(line, "status", LineStatus.members.SUSPENDED);
  pySetAttr(line, "suspension_start_date", TODAY);
  if (pyBool(contractEnded)) pySetAttr(line, "contract_end_date", lastDayOfLastMonth);
  return telecomMessages.format("suspendedForOverdue", { line_id: pyStr(lineId), new_bill_id: pyStr(newBillId), contract_ended: pyStr(contractEnded) });
}
