/**
 * The agent database's lookups (τ² `TelecomTools` helpers): linear scans of the lists, exactly as
 * the original does them (the data are lists, not dicts), with its `ValueError` texts. Shared by
 * the agent toolkit and `sync_tools`.
 */
import { telecomMessages } from "./messages.ts";
import { type PyModel, type PyValue, pyContains, pyEquals, pyGetAttr, pyIterate, pyStr, pyValueError } from "../../src/value/index.ts";
import { BillStatus } from "./data-model.ts";

function findBy(db: PyModel, collection: string, field: string, wanted: PyValue | undefined): PyModel | undefined {
  const list = scanned(pyGetAttr(db, collection));
  for (let index = 0; index < list.length; index++) {
    if (pyEquals(pyGetAttr(list[index], field), wanted)) return list[index] as PyModel;
  }
  return undefined;
}

/**
 * What a lookup loops over: a list itself (no lookup writes to the list it scans, so the snapshot
 * `pyIterate` takes is not needed; telecom's `sync_tools` runs these scans after every step), or
 * `pyIterate`'s items of anything else (with its error for a non-iterable).
 */
function scanned(value: PyValue): readonly PyValue[] {
  return Array.isArray(value) ? value : pyIterate(value);
}

/** `_get_line_by_phone`. */
export function lineByPhone(db: PyModel, phoneNumber: PyValue | undefined): PyModel {
  const line = findBy(db, "lines", "phone_number", phoneNumber);
  if (line === undefined) throw pyValueError(telecomMessages.format("lineWithPhoneNotFound", { phone_number: pyStr(phoneNumber) }));
  return line;
}

/** `_get_line_by_id`. */
export function lineById(db: PyModel, lineId: PyValue | undefined): PyModel {
  const line = findBy(db, "lines", "line_id", lineId);
  if (line === undefined) throw pyValueError(telecomMessages.format("lineWithIdNotFound", { line_id: pyStr(lineId) }));
  return line;
}

/** `_get_plan_by_id`. */
export function planById(db: PyModel, planId: PyValue | undefined): PyModel {
  const plan = findBy(db, "plans", "plan_id", planId);
  if (plan === undefined) throw pyValueError(telecomMessages.format("planNotFound", { plan_id: pyStr(planId) }));
  return plan;
}

/** `_get_device_by_id`. */
export function deviceById(db: PyModel, deviceId: PyValue | undefined): PyModel {
  const device = findBy(db, "devices", "device_id", deviceId);
  if (device === undefined) throw pyValueError(telecomMessages.format("deviceNotFound", { device_id: pyStr(deviceId) }));
  return device;
}

/** `_get_bill_by_id`. */
export function billById(db: PyModel, billId: PyValue | undefined): PyModel {
  const bill = findBy(db, "bills", "bill_id", billId);
  if (bill === undefined) throw pyValueError(telecomMessages.format("billNotFound", { bill_id: pyStr(billId) }));
  return bill;
}

/** `get_customer_by_id`. */
export function customerById(db: PyModel, customerId: PyValue | undefined): PyModel {
  const customer = findBy(db, "customers", "customer_id", customerId);
  if (customer === undefined) throw pyValueError(telecomMessages.format("customerWithIdNotFound", { customer_id: pyStr(customerId) }));
  return customer;
}

/** `get_customer_by_phone`: the customer's contact number, or the number of one of their lines. */
export function customerByPhone(db: PyModel, phoneNumber: PyValue | undefined): PyModel {
  for (const customer of scanned(pyGetAttr(db, "customers"))) {
    if (pyEquals(pyGetAttr(customer, "phone_number"), phoneNumber)) return customer as PyModel;
    for (const lineId of scanned(pyGetAttr(customer, "line_ids"))) {
      if (pyEquals(pyGetAttr(lineById(db, lineId), "phone_number"), phoneNumber)) return customer as PyModel;
    }
  }
  throw pyValueError(telecomMessages.format("customerWithPhoneNotFound", { phone_number: pyStr(phoneNumber) }));
}

/** `_get_target_line`: a line of the customer's. */
export function targetLine(db: PyModel, customerId: PyValue | undefined, lineId: PyValue | undefined): PyModel {
  const customer = customerById(db, customerId);
  if (!pyContains(pyGetAttr(customer, "line_ids"), lineId)) throw pyValueError(telecomMessages.format("lineNotCustomers", { line_id: pyStr(lineId), customer_id: pyStr(customerId) }));
  return lineById(db, lineId);
}

/** `_get_bills_awaiting_payment`. */
export function billsAwaitingPayment(db: PyModel, customer: PyValue): PyModel[] {
  const bills: PyModel[] = [];
  for (const billId of scanned(pyGetAttr(customer, "bill_ids"))) {
    const bill = billById(db, billId);
    if (pyEquals(pyGetAttr(bill, "status"), BillStatus.members.AWAITING_PAYMENT)) bills.push(bill);
  }
  return bills;
}
