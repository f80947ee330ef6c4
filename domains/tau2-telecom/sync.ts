/**
 * Telecom's `sync_tools` (spec §2.6): after every tool call, step and setup function, the user's
 * surroundings follow their line in the agent database (active, roaming allowed, data limit
 * exceeded), a paid payment request marks its bill paid, and a bill awaiting payment becomes the
 * user's payment request.
 */
import type { Tau2Environment } from "../../src/engine/tau2/environment.ts";
import { type PyValue, pyBool, pyAdd, pyEquals, pyGetAttr, pyGreaterOrEqual, pyModelValidate, pyValueError } from "../../src/value/index.ts";
import { getAttr, setAttr } from "./attributes.ts";
import { BillStatus, LineStatus } from "./data-model.ts";
import { billById, billsAwaitingPayment, customerByPhone, lineByPhone, planById } from "./lookups.ts";
import { paymentRequestModel } from "./user-data-model.ts";

export function syncTelecom(environment: Tau2Environment): void {
  if (environment.user === null) throw pyValueError("User tools not available");
  const agentDb = environment.agent.db;
  const around = pyGetAttr(environment.user.db, "surroundings");
  const phoneNumber = getAttr(around, "phone_number");
  if (phoneNumber === null) return;
  const line = lineByPhone(agentDb, phoneNumber);
  setAttr(around, "line_active", pyEquals(getAttr(line, "status"), LineStatus.members.ACTIVE));
  setAttr(around, "roaming_allowed", pyBool(getAttr(line, "roaming_enabled")));
  const plan = planById(agentDb, getAttr(line, "plan_id"));
  const allowance = pyAdd(getAttr(plan, "data_limit_gb"), getAttr(line, "data_refueling_gb"));
  setAttr(around, "mobile_data_usage_exceeded", pyGreaterOrEqual(getAttr(line, "data_used_gb"), allowance));

  const pending = getAttr(around, "payment_request");
  if (pending !== null && pyBool(getAttr(pending, "paid"))) {
    setAttr(billById(agentDb, getAttr(pending, "bill_id")), "status", BillStatus.members.PAID);
    setAttr(around, "payment_request", null);
  }
  if (getAttr(around, "payment_request") === null) {
    const bills = billsAwaitingPayment(agentDb, customerByPhone(agentDb, phoneNumber));
    if (bills.length !== 0) {
      const request = pyModelValidate(
        paymentRequestModel,
        new Map<string, PyValue>([
          ["bill_id", getAttr(bills[0], "bill_id")],
          ["amount_due", getAttr(bills[0], "total_due")],
        ]),
      );
      setAttr(around, "payment_request", request);
    }
  }
}
