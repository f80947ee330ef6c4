/**
 * The telecom agent toolkit (τ² `TelecomTools`): tools in the order τ² lists them, then the public
 * setup and assertion functions that `initialization_actions` and `env_assertions` call.
 */
import { telecomMessages } from "./messages.ts";
import { type Tau2ToolkitDefinition, tau2Function, tau2Tool } from "../../src/suites/tau2/engine/toolkit.ts";
import {
  PyException,
  type PyModel,
  type PyValue,
  pyAbs,
  pyBool,
  pyContains,
  pyEquals,
  pyFloat,
  pyFormatFixed,
  pyGetAttr,
  pyIAdd,
  pyIterate,
  pyLessOrEqual,
  pyLessThan,
  pyLower,
  pyMul,
  pyNotEquals,
  pySetAttr,
  pySlice,
  pySliceIndex,
  pySorted,
  pyStartsWith,
  pyStr,
  pySub,
  pyValueError,
} from "../../src/value/index.ts";
import { applyOneTimeCharge, suspendLineForOverdueBill } from "./billing.ts";
import { TODAY, addDays, dateParts, makeDate } from "./calendar.ts";
import { BillStatus, LineStatus } from "./data-model.ts";
import { billById, billsAwaitingPayment, customerById, customerByPhone, deviceById, lineById, planById, targetLine } from "./lookups.ts";

/** The last day of the current billing cycle (the original's formula, December quirk included). */
function cycleEndDate(): string {
  const { year, month } = dateParts(TODAY);
  return addDays(makeDate(year, month < 12 ? month + 1 : 1, 1), -1);
}

export const telecomTools: Tau2ToolkitDefinition = {
  className: "TelecomTools",
  methods: [
    tau2Tool("get_customer_by_phone", "read", ["phone_number"], ({ db }, { phone_number }) => customerByPhone(db, phone_number)),
    tau2Tool("get_customer_by_id", "read", ["customer_id"], ({ db }, { customer_id }) => customerById(db, customer_id)),
    tau2Tool("get_customer_by_name", "read", ["full_name", "dob"], ({ db }, { full_name, dob }) =>
      pyIterate(pyGetAttr(db, "customers")).filter((customer) => pyLower(pyGetAttr(customer, "full_name")) === pyLower(full_name) && pyEquals(pyGetAttr(customer, "date_of_birth"), dob)),
    ),
    tau2Tool("get_details_by_id", "read", ["id"], ({ db }, { id }) => {
      if (pyStartsWith(id, "L")) return lineById(db, id);
      if (pyStartsWith(id, "D")) return deviceById(db, id);
      if (pyStartsWith(id, "B")) return billById(db, id);
      if (pyStartsWith(id, "C")) return customerById(db, id);
      if (pyStartsWith(id, "P")) return planById(db, id);
      throw pyValueError(telecomMessages.format("unknownIdFormat", { id: pyStr(id) }));
    }),
    tau2Tool("suspend_line", "write", ["customer_id", "line_id", "reason"], ({ db }, { customer_id, line_id }) => {
      const line = targetLine(db, customer_id, line_id);
      if (pyNotEquals(pyGetAttr(line, "status"), LineStatus.members.ACTIVE)) throw pyValueError(telecomMessages.text("suspendNeedsActive"));
      pySetAttr(line, "status", LineStatus.members.SUSPENDED);
      pySetAttr(line, "suspension_start_date", TODAY);
      return new Map<string, PyValue>([
        ["message", telecomMessages.text("suspended")],
        ["line", line],
      ]);
    }),
    tau2Tool("resume_line", "write", ["customer_id", "line_id"], ({ db }, { customer_id, line_id }) => {
      const line = targetLine(db, customer_id, line_id);
      if (!pyContains([LineStatus.members.SUSPENDED, LineStatus.members.PENDING_ACTIVATION], pyGetAttr(line, "status"))) throw pyValueError(telecomMessages.text("resumeNeedsSuspended"));
      pySetAttr(line, "status", LineStatus.members.ACTIVE);
      pySetAttr(line, "suspension_start_date", null);
      return new Map<string, PyValue>([
        ["message", telecomMessages.text("resumed")],
        ["line", line],
      ]);
    }),
    tau2Tool("get_bills_for_customer", "read", ["customer_id", ["limit", 12]], ({ db }, { customer_id, limit }) => {
      const customer = customerById(db, customer_id);
      const bills = pyIterate(pyGetAttr(customer, "bill_ids")).map((billId) => billById(db, billId));
      return pySlice(pySorted(bills, { key: (bill) => pyGetAttr(bill, "issue_date"), reverse: true }), undefined, pySliceIndex(limit));
    }),
    tau2Tool("send_payment_request", "write", ["customer_id", "bill_id"], ({ db }, { customer_id, bill_id }) => {
      const customer = customerById(db, customer_id);
      if (billsAwaitingPayment(db, customer).length !== 0) throw pyValueError(telecomMessages.text("billAlreadyAwaiting"));
      if (!pyContains(pyGetAttr(customer, "bill_ids"), bill_id)) throw pyValueError(telecomMessages.format("billNotCustomers", { bill_id: pyStr(bill_id), customer_id: pyStr(customer_id) }));
      const bill = billById(db, bill_id);
      pySetAttr(bill, "status", BillStatus.members.AWAITING_PAYMENT);
      return telecomMessages.format("paymentRequestSent", { "bill.bill_id": pyStr(pyGetAttr(bill, "bill_id")) });
    }),
    tau2Tool("get_data_usage", "read", ["customer_id", "line_id"], ({ db }, { customer_id, line_id }) => {
      const line = targetLine(db, customer_id, line_id);
      const plan = planById(db, pyGetAttr(line, "plan_id"));
      return new Map<string, PyValue>([
        ["line_id", line_id],
        ["data_used_gb", pyGetAttr(line, "data_used_gb")],
        ["data_limit_gb", pyGetAttr(plan, "data_limit_gb")],
        ["data_refueling_gb", pyGetAttr(line, "data_refueling_gb")],
        ["cycle_end_date", cycleEndDate()],
      ]);
    }),
    tau2Tool("enable_roaming", "write", ["customer_id", "line_id"], ({ db }, { customer_id, line_id }) => {
      const line = targetLine(db, customer_id, line_id);
      if (pyBool(pyGetAttr(line, "roaming_enabled"))) return telecomMessages.text("roamingAlreadyOn");
      pySetAttr(line, "roaming_enabled", true);
      return telecomMessages.text("roamingEnabled");
    }),
    tau2Tool("disable_roaming", "write", ["customer_id", "line_id"], ({ db }, { customer_id, line_id }) => {
      const line = targetLine(db, customer_id, line_id);
      if (!pyBool(pyGetAttr(line, "roaming_enabled"))) return telecomMessages.text("roamingAlreadyOff");
      pySetAttr(line, "roaming_enabled", false);
      return telecomMessages.text("roamingDisabled");
    }),
    tau2Tool("transfer_to_human_agents", "generic", ["summary"], () => telecomMessages.text("transferred")),
    tau2Tool("refuel_data", "write", ["customer_id", "line_id", "gb_amount"], (self, { customer_id, line_id, gb_amount }) => {
      const line = targetLine(self.db, customer_id, line_id);
      if (pyLessOrEqual(gb_amount, 0)) throw pyValueError(telecomMessages.text("refuelNeedsPositive"));
      const plan = planById(self.db, pyGetAttr(line, "plan_id"));
      const price = pyGetAttr(plan, "data_refueling_price_per_gb");
      const charge = pyMul(gb_amount, price);
      pySetAttr(line, "data_refueling_gb", pyIAdd(pyGetAttr(line, "data_refueling_gb"), gb_amount));
      applyOneTimeCharge(self, customer_id, charge, telecomMessages.format("refuelCharge", { gb_amount: pyStr(gb_amount), "plan.data_refueling_price_per_gb": pyStr(price) }));
      return new Map<string, PyValue>([
        ["message", telecomMessages.format("refueled", { gb_amount: pyStr(gb_amount), line_id: pyStr(line_id), charge_amount: pyFormatFixed(charge, 2) })],
        ["new_data_refueling_gb", pyGetAttr(line, "data_refueling_gb")],
        ["charge", charge],
      ]);
    }),
    tau2Function("get_available_plan_ids", [], ({ db }) => pyIterate(pyGetAttr(db, "plans")).map((plan) => pyGetAttr(plan, "plan_id"))),
    tau2Function("set_data_usage", ["customer_id", "line_id", "data_used_gb"], ({ db }, { customer_id, line_id, data_used_gb }) => {
      pySetAttr(targetLine(db, customer_id, line_id), "data_used_gb", data_used_gb);
      return telecomMessages.format("dataUsageSet", { data_used_gb: pyStr(data_used_gb), line_id: pyStr(line_id) });
    }),
    tau2Function("suspend_line_for_overdue_bill", ["customer_id", "line_id", "new_bill_id", "contract_ended"], (self, args) =>
      suspendLineForOverdueBill(self, args.customer_id, args.line_id, args.new_bill_id, args.contract_ended),
    ),
    tau2Function("assert_data_refueling_amount", ["customer_id", "line_id", "expected_amount"], ({ db }, { customer_id, line_id, expected_amount }) => {
      const line = targetLine(db, customer_id, line_id);
      return pyLessThan(pyAbs(pySub(pyGetAttr(line, "data_refueling_gb"), expected_amount)), pyFloat(1e-6));
    }),
    tau2Function("assert_line_status", ["customer_id", "line_id", "expected_status"], ({ db }, { customer_id, line_id, expected_status }) =>
      pyEquals(pyGetAttr(targetLine(db, customer_id, line_id), "status"), expected_status),
    ),
    tau2Function("assert_overdue_bill_exists", ["customer_id", "overdue_bill_id"], ({ db }, { customer_id, overdue_bill_id }) => {
      const customer = customerById(db, customer_id);
      if (!pyContains(pyGetAttr(customer, "bill_ids"), overdue_bill_id)) throw pyValueError(telecomMessages.format("overdueBillNotFound", { overdue_bill_id: pyStr(overdue_bill_id) }));
      if (pyNotEquals(pyGetAttr(billById(db, overdue_bill_id), "status"), BillStatus.members.OVERDUE))
        throw pyValueError(telecomMessages.format("overdueBillNotOverdue", { overdue_bill_id: pyStr(overdue_bill_id) }));
      return true;
    }),
    tau2Function("assert_no_overdue_bill", ["overdue_bill_id"], ({ db }, { overdue_bill_id }) => {
      let bill: PyModel;
      try {
        bill = billById(db, overdue_bill_id);
      } catch (error) {
        if (PyException.isInstance(error) && error.pythonType === "ValueError") return true;
        throw error;
      }
      return pyEquals(pyGetAttr(bill, "status"), BillStatus.members.PAID);
    }),
  ],
};
