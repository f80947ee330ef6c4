/**
 * Telecom's `sync_tools` (τ²: src/tau2/domains/telecom/environment.py,
 * TelecomEnvironment.sync_tools): after every tool call, step and setup function, the user's
 * surroundings follow their line in the agent database (active, roaming allowed, data limit
 * exceeded), a paid payment request marks its bill paid, and a bill awaiting payment becomes the
 * user's payment request.
 */
import { environmentMessages } from "../../src/suites/tau2/engine/engine-messages.ts";
import type { Tau2Environment } from "../../src/suites/tau2/engine/environment.ts";
import { type PyValue, pyAdd, pyBool, pyEquals, pyGetAttr, pyGreaterOrEqual, pyModelValidate, pySetAttr, pyValueError } from "../../src/value/index.ts";
import { BillStatus, LineStatus } from "./data-model.ts";
import { billById, billsAwaitingPayment, customerByPhone, lineByPhone, planById } from "./lookups.ts";
import { paymentRequestModel } from "./user-data-model.ts";

export function syncTelecom(environment: Tau2Environment): void {
  if (environment.user === null) throw pyValueError(environmentMessages.text("userToolsUnavailable"));
  const agentDb = environment.agent.db;
  const around = pyGetAttr(environment.user.db, "surroundings");
  const phoneNumber = pyGetAttr(around, "phone_number");
  if (phoneNumber === null) return;
  const line = lineByPhone(agentDb, phoneNumber);
  pySetAttr(around, "line_active", pyEquals(pyGetAttr(line, "status"), LineStatus.members.ACTIVE));
  pySetAttr(around, "roaming_allowed", pyBool(pyGetAttr(line, "roaming_enabled")));
  const plan = planById(agentDb, pyGetAttr(line, "plan_id"));
  const allowance = pyAdd(pyGetAttr(plan, "data_limit_gb"), pyGetAttr(line, "data_refueling_gb"));
  pySetAttr(around, "mobile_data_usage_exceeded", pyGreaterOrEqual(pyGetAttr(line, "data_used_gb"), allowance));

  const pending = pyGetAttr(around, "payment_request");
  if (pending !== null && pyBool(pyGetAttr(pending, "paid"))) {
    pySetAttr(billById(agentDb, pyGetAttr(pending, "bill_id")), "status", BillStatus.members.PAID);
    pySetAttr(around, "payment_request", null);
  }
  if (pyGetAttr(around, "payment_request") === null) {
    const bills = billsAwaitingPayment(agentDb, customerByPhone(agentDb, phoneNumber));
    if (bills.length !== 0) {
      const request = pyModelValidate(
        paymentRequestModel,
        new Map<string, PyValue>([
          ["bill_id", pyGetAttr(bills[0], "bill_id")],
          ["amount_due", pyGetAttr(bills[0], "total_due")],
        ]),
      );
      pySetAttr(around, "payment_request", request);
    }
  }
}
