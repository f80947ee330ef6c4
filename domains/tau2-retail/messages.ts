/**
 * The retail tools' result and error sentences, read from τ²'s `domains/retail/tools.py` in the
 * data directory when the domain loads (see src/suites/tau2/engine/upstream-messages.ts): each key says
 * where the original writes the sentence (method, position among its string literals).
 */
import { UpstreamMessages } from "../../src/suites/tau2/engine/upstream-messages.ts";

export const retailMessages = new UpstreamMessages("domains/retail/tools.py", {
  orderNotFound: { in: "RetailTools._get_order", at: 0 },
  userNotFound: { in: "RetailTools._get_user", at: 0 },
  productNotFound: { in: "RetailTools._get_product", at: 0 },
  itemNotFound: { in: "RetailTools._get_item", at: 0 },
  variantNotFound: { in: "RetailTools._get_variant", at: 0 },
  paymentMethodNotFound: { in: "RetailTools._get_payment_method", at: 0 },
  noUserMatches: { in: "RetailTools.find_user_id_by_name_zip", at: 0 },
  invalidCharacters: { in: "RetailTools.calculate", at: 1 },
  cancelNeedsPending: { in: "RetailTools.cancel_pending_order", at: 1 },
  invalidCancelReason: { in: "RetailTools.cancel_pending_order", at: 4 },
  exchangeNeedsDelivered: { in: "RetailTools.exchange_delivered_order_items", at: 1 },
  exchangeItemCountMissing: { in: "RetailTools.exchange_delivered_order_items", at: 2 },
  exchangeCountsDiffer: { in: "RetailTools.exchange_delivered_order_items", at: 3 },
  orderItemNotFound: { in: "RetailTools.exchange_delivered_order_items", at: 4 },
  newItemUnavailable: { in: "RetailTools.exchange_delivered_order_items", at: 5 },
  giftCardShortForDifference: { in: "RetailTools.exchange_delivered_order_items", at: 6 },
  modifyNeedsPending: { in: "RetailTools.modify_pending_order_address", at: 0 },
  modifyItemMissing: { in: "RetailTools.modify_pending_order_items", at: 2 },
  modifyCountsDiffer: { in: "RetailTools.modify_pending_order_items", at: 3 },
  sameItemRefused: { in: "RetailTools.modify_pending_order_items", at: 4 },
  giftCardShortForNewItem: { in: "RetailTools.modify_pending_order_items", at: 7 },
  notExactlyOnePayment: { in: "RetailTools.modify_pending_order_payment", at: 2 },
  samePaymentMethodRefused: { in: "RetailTools.modify_pending_order_payment", at: 3 },
  giftCardShortForOrder: { in: "RetailTools.modify_pending_order_payment", at: 4 },
  returnNeedsDelivered: { in: "RetailTools.return_delivered_order_items", at: 1 },
  returnNeedsOriginalPayment: { in: "RetailTools.return_delivered_order_items", at: 2 },
  returnItemMissing: { in: "RetailTools.return_delivered_order_items", at: 3 },
  transferred: { in: "RetailTools.transfer_to_human_agents", at: 0 },
});
