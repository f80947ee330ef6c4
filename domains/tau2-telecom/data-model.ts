/**
 * The telecom agent database's models (τ² `domains/telecom/data_model.py`): plans, devices, lines,
 * bills and customers, in the original's field order with its types and defaults. Every model
 * forbids extra keys (`BaseModelNoExtra`).
 */
import { type PyModelSchema, pyFloat, pyModelSchema, pyStrEnum, pyT } from "../../src/value/index.ts";

export const DeviceType = pyStrEnum("DeviceType", { PHONE: "phone", ROUTER: "router", TABLET: "tablet", WATCH: "watch", OTHER: "other" });
export const LineStatus = pyStrEnum("LineStatus", { ACTIVE: "Active", SUSPENDED: "Suspended", PENDING_ACTIVATION: "Pending Activation", CLOSED: "Closed" });
export const BillStatus = pyStrEnum("BillStatus", {
  DRAFT: "Draft",
  ISSUED: "Issued",
  AWAITING_PAYMENT: "Awaiting Payment",
  PAID: "Paid",
  OVERDUE: "Overdue",
  DISPUTED: "Disputed",
});
export const AccountStatus = pyStrEnum("AccountStatus", { ACTIVE: "Active", SUSPENDED: "Suspended", PENDING_VERIFICATION: "Pending Verification", CLOSED: "Closed" });
export const PaymentMethodType = pyStrEnum("PaymentMethodType", { CREDIT_CARD: "Credit Card", DEBIT_CARD: "Debit Card", PAYPAL: "PayPal" });

/** `DEFAULT_START_DATE`: a *date* used as the default of a datetime field (defaults are not validated). */
const DEFAULT_START_DATE = "2025-01-01";

export const addressModel: PyModelSchema = pyModelSchema(
  "Address",
  [
    ["street", pyT.str],
    ["city", pyT.str],
    ["state", pyT.str],
    ["zip_code", pyT.str],
  ],
  "forbid",
);

export const planModel: PyModelSchema = pyModelSchema(
  "Plan",
  [
    ["plan_id", pyT.str],
    ["name", pyT.str],
    ["data_limit_gb", pyT.float],
    ["price_per_month", pyT.float],
    ["data_refueling_price_per_gb", pyT.float],
  ],
  "forbid",
);

export const deviceModel: PyModelSchema = pyModelSchema(
  "Device",
  [
    ["device_id", pyT.str],
    ["device_type", DeviceType.type],
    ["model", pyT.str],
    ["imei", pyT.optional(pyT.str), () => null],
    ["is_esim_capable", pyT.bool],
    ["activated", pyT.bool, () => false],
    ["activation_date", pyT.optional(pyT.datetime), () => null],
    ["last_esim_transfer_date", pyT.optional(pyT.datetime), () => null],
  ],
  "forbid",
);

export const lineModel: PyModelSchema = pyModelSchema(
  "Line",
  [
    ["line_id", pyT.str],
    ["phone_number", pyT.str],
    ["status", LineStatus.type, () => LineStatus.members.PENDING_ACTIVATION],
    ["plan_id", pyT.str],
    ["device_id", pyT.optional(pyT.str), () => null],
    ["data_used_gb", pyT.float, () => pyFloat(0)],
    ["data_refueling_gb", pyT.float, () => pyFloat(0)],
    ["roaming_enabled", pyT.bool, () => false],
    ["contract_end_date", pyT.optional(pyT.date), () => null],
    ["last_plan_change_date", pyT.optional(pyT.date), () => null],
    ["last_sim_replacement_date", pyT.optional(pyT.date), () => null],
    ["suspension_start_date", pyT.optional(pyT.date), () => null],
  ],
  "forbid",
);

export const lineItemModel: PyModelSchema = pyModelSchema(
  "LineItem",
  [
    ["description", pyT.str],
    ["amount", pyT.float],
    ["date", pyT.date],
    ["item_type", pyT.str],
  ],
  "forbid",
);

export const billModel: PyModelSchema = pyModelSchema(
  "Bill",
  [
    ["bill_id", pyT.str],
    ["customer_id", pyT.str],
    ["period_start", pyT.date],
    ["period_end", pyT.date],
    ["issue_date", pyT.date],
    ["total_due", pyT.float],
    ["due_date", pyT.date],
    ["line_items", pyT.list(pyT.model(() => lineItemModel)), () => []],
    ["status", BillStatus.type, () => BillStatus.members.DRAFT],
  ],
  "forbid",
);

export const paymentMethodModel: PyModelSchema = pyModelSchema(
  "PaymentMethod",
  [
    ["method_type", PaymentMethodType.type],
    ["account_number_last_4", pyT.str],
    ["expiration_date", pyT.str],
  ],
  "forbid",
);

export const customerModel: PyModelSchema = pyModelSchema(
  "Customer",
  [
    ["customer_id", pyT.str],
    ["full_name", pyT.str],
    ["date_of_birth", pyT.str],
    ["email", pyT.str],
    ["phone_number", pyT.str],
    ["address", pyT.model(() => addressModel)],
    ["account_status", AccountStatus.type, () => AccountStatus.members.PENDING_VERIFICATION],
    ["payment_methods", pyT.list(pyT.model(() => paymentMethodModel)), () => []],
    ["line_ids", pyT.list(pyT.str), () => []],
    ["bill_ids", pyT.list(pyT.str), () => []],
    ["created_at", pyT.datetime, () => DEFAULT_START_DATE],
    ["last_extension_date", pyT.optional(pyT.date), () => null],
    ["goodwill_credit_used_this_year", pyT.float, () => pyFloat(0)],
  ],
  "forbid",
);

export const telecomDbModel: PyModelSchema = pyModelSchema(
  "TelecomDB",
  [
    ["plans", pyT.list(pyT.model(() => planModel)), () => []],
    ["customers", pyT.list(pyT.model(() => customerModel)), () => []],
    ["lines", pyT.list(pyT.model(() => lineModel)), () => []],
    ["bills", pyT.list(pyT.model(() => billModel)), () => []],
    ["devices", pyT.list(pyT.model(() => deviceModel)), () => []],
  ],
  "forbid",
);
