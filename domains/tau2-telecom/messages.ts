/**
 * The telecom agent tools' result and error sentences, read from τ²'s `domains/telecom/tools.py`
 * in the data directory when the domain loads (see src/suites/tau2/engine/upstream-messages.ts): each
 * key says where the original writes the sentence.
 */
import { UpstreamMessages } from "../../src/suites/tau2/engine/upstream-messages.ts";

export const telecomMessages = new UpstreamMessages("domains/telecom/tools.py", {
  customerWithPhoneNotFound: { in: "TelecomTools.get_customer_by_phone", at: 0 },
  customerWithIdNotFound: { in: "TelecomTools.get_customer_by_id", at: 0 },
  lineWithPhoneNotFound: { in: "TelecomTools._get_line_by_phone", at: 0 },
  lineWithIdNotFound: { in: "TelecomTools._get_line_by_id", at: 0 },
  planNotFound: { in: "TelecomTools._get_plan_by_id", at: 0 },
  deviceNotFound: { in: "TelecomTools._get_device_by_id", at: 0 },
  billNotFound: { in: "TelecomTools._get_bill_by_id", at: 0 },
  lineNotCustomers: { in: "TelecomTools._get_target_line", at: 0 },
  unknownIdFormat: { in: "TelecomTools.get_details_by_id", at: 5 },
  suspendNeedsActive: { in: "TelecomTools.suspend_line", at: 0 },
  suspended: { in: "TelecomTools.suspend_line", at: 3 },
  resumeNeedsSuspended: { in: "TelecomTools.resume_line", at: 0 },
  resumed: { in: "TelecomTools.resume_line", at: 3 },
  billAlreadyAwaiting: { in: "TelecomTools.send_payment_request", at: 1 },
  billNotCustomers: { in: "TelecomTools.send_payment_request", at: 2 },
  paymentRequestSent: { in: "TelecomTools.send_payment_request", at: 3 },
  dataUsageSet: { in: "TelecomTools.set_data_usage", at: 0 },
  roamingAlreadyOn: { in: "TelecomTools.enable_roaming", at: 0 },
  roamingEnabled: { in: "TelecomTools.enable_roaming", at: 2 },
  roamingAlreadyOff: { in: "TelecomTools.disable_roaming", at: 0 },
  roamingDisabled: { in: "TelecomTools.disable_roaming", at: 2 },
  transferred: { in: "TelecomTools.transfer_to_human_agents", at: 0 },
  refuelNeedsPositive: { in: "TelecomTools.refuel_data", at: 0 },
  refuelCharge: { in: "TelecomTools.refuel_data", at: 2 },
  refueled: { in: "TelecomTools.refuel_data", at: 5 },
  overdueSuspendNeedsActive: { in: "TelecomTools.suspend_line_for_overdue_bill", at: 0 },
  overdueCharge: { in: "TelecomTools.suspend_line_for_overdue_bill", at: 1 },
  overdueNeedsPositive: { in: "TelecomTools.suspend_line_for_overdue_bill", at: 2 },
  overdueAlreadyExists: { in: "TelecomTools.suspend_line_for_overdue_bill", at: 4 },
  suspendedForOverdue: { in: "TelecomTools.suspend_line_for_overdue_bill", at: 7 },
  overdueBillNotFound: { in: "TelecomTools.assert_overdue_bill_exists", at: 1 },
  overdueBillNotOverdue: { in: "TelecomTools.assert_overdue_bill_exists", at: 2 },
});
