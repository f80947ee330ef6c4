/**
 * The retail domain's agent toolkit (τ² `RetailTools`), tools in the order τ² lists them.
 *
 * Arguments arrive unvalidated: a wrong type does what the Python expression does with it (a str of
 * item ids is iterated by character, an int zip never matches), and only values that pass through a
 * model constructor are coerced (`OrderPayment.amount`, `UserAddress`). Assignments to model fields
 * are not validated, as in pydantic (`exchange_price_difference` keeps an int `0`).
 */
import { type Tau2ToolkitDefinition, tau2Tool } from "../../src/suites/tau2/engine/toolkit.ts";
import {
  type PyModel,
  type PyDict,
  type PyValue,
  pyAbs,
  pyBool,
  pyEquals,
  pyExtend,
  pyAppend,
  pyGetAttr,
  pyGetItem,
  pyGreaterThan,
  pyIAdd,
  pyISub,
  pyIterate,
  pyJsonDumpsSortedKeys,
  pyLen,
  pyLessThan,
  pyLower,
  pyModelValidate,
  pyNotEquals,
  pyRequireHashable,
  pyRound,
  pySetAttr,
  pySorted,
  pyStr,
  pySub,
  pyValueError,
  pyZip,
} from "../../src/value/index.ts";
import { tau2Calculate } from "../tau2-airline/calculate.ts";
import { retailMessages } from "./messages.ts";
import { orderPaymentModel, userAddressModel } from "./data-model.ts";
import { findOrderItem, firstMissingItem, getItem, getOrder, getPaymentMethod, getProduct, getUser, getVariant, isGiftCard, isPendingOrder } from "./lookups.ts";

const CANCEL_REASONS: readonly string[] = ["no longer needed", "ordered by mistake"];

function orderPayment(transactionType: PyValue, amount: PyValue, paymentMethodId: PyValue): PyModel {
  return pyModelValidate(
    orderPaymentModel,
    new Map<string, PyValue>([
      ["transaction_type", transactionType],
      ["amount", amount],
      ["payment_method_id", paymentMethodId],
    ]),
  );
}

function userAddress(args: Record<string, PyValue>): PyModel {
  return pyModelValidate(
    userAddressModel,
    new Map<string, PyValue>([
      ["address1", args.address1],
      ["address2", args.address2],
      ["city", args.city],
      ["state", args.state],
      ["country", args.country],
      ["zip", args.zip],
    ]),
  );
}

/** `payment_method.balance = round(payment_method.balance ± amount, 2)` on a gift card. */
function adjustBalance(giftCard: PyModel, delta: (balance: PyValue) => PyValue): void {
  pySetAttr(giftCard, "balance", delta(pyGetAttr(giftCard, "balance")));
  pySetAttr(giftCard, "balance", pyRound(pyGetAttr(giftCard, "balance"), 2));
}

/** `cancel_pending_order`: refunds every payment (gift cards at once), then marks the order cancelled. */
function cancelPendingOrder(db: PyModel, args: Record<string, PyValue>): PyModel {
  const order = getOrder(db, args.order_id);
  if (pyNotEquals(pyGetAttr(order, "status"), "pending")) throw pyValueError(retailMessages.text("cancelNeedsPending"));
  // `reason not in {…}`: a set lookup, so an unhashable reason raises.
  pyRequireHashable(args.reason);
  if (!CANCEL_REASONS.some((reason) => pyEquals(reason, args.reason))) throw pyValueError(retailMessages.text("invalidCancelReason"));
  const refunds: PyModel[] = [];
  for (const payment of pyIterate(pyGetAttr(order, "payment_history"))) {
    const paymentId = pyGetAttr(payment, "payment_method_id");
    refunds.push(orderPayment("refund", pyGetAttr(payment, "amount"), paymentId));
    const user = getUser(db, pyGetAttr(order, "user_id"));
    const paymentMethod = getPaymentMethod(db, pyGetAttr(user, "user_id"), paymentId);
    if (isGiftCard(paymentMethod)) adjustBalance(paymentMethod, (balance) => pyIAdd(balance, pyGetAttr(payment, "amount")));
  }
  pySetAttr(order, "status", "cancelled");
  pySetAttr(order, "cancel_reason", args.reason);
  pyExtend(pyGetAttr(order, "payment_history"), refunds);
  return order;
}

/** The price difference of swapping each item for a variant of its product (checks included); `variant` is the last one looked up. */
function priceDifference(db: PyModel, order: PyModel, pairs: Array<[PyValue, PyValue]>, refuseSameItem: boolean): { difference: PyValue; lastVariant: PyModel | undefined } {
  let difference: PyValue = 0;
  let lastVariant: PyModel | undefined;
  for (const [itemId, newItemId] of pairs) {
    if (refuseSameItem && pyEquals(itemId, newItemId)) throw pyValueError(retailMessages.text("sameItemRefused"));
    const item = findOrderItem(order, itemId);
    if (item === null) throw pyValueError(retailMessages.format("orderItemNotFound", { item_id: pyStr(itemId) }));
    lastVariant = getVariant(db, pyGetAttr(item, "product_id"), newItemId);
    if (!pyBool(pyGetAttr(lastVariant, "available"))) throw pyValueError(retailMessages.format("newItemUnavailable", { new_item_id: pyStr(newItemId) }));
    difference = pyIAdd(difference, pySub(pyGetAttr(lastVariant, "price"), pyGetAttr(item, "price")));
  }
  return { difference, lastVariant };
}

/** `exchange_delivered_order_items`: records the requested exchange and its rounded price difference. */
function exchangeDeliveredOrderItems(db: PyModel, args: Record<string, PyValue>): PyModel {
  const order = getOrder(db, args.order_id);
  if (pyNotEquals(pyGetAttr(order, "status"), "delivered")) throw pyValueError(retailMessages.text("exchangeNeedsDelivered"));
  const missing = firstMissingItem(order, args.item_ids);
  if (missing !== undefined) throw pyValueError(retailMessages.format("exchangeItemCountMissing", { item_id: pyStr(missing) }));
  if (pyLen(args.item_ids) !== pyLen(args.new_item_ids)) throw pyValueError(retailMessages.text("exchangeCountsDiffer"));
  const difference = pyRound(priceDifference(db, order, pyZip(args.item_ids, args.new_item_ids), false).difference, 2);
  const paymentMethod = getPaymentMethod(db, pyGetAttr(order, "user_id"), args.payment_method_id);
  if (isGiftCard(paymentMethod) && pyLessThan(pyGetAttr(paymentMethod, "balance"), difference)) {
    throw pyValueError(retailMessages.text("giftCardShortForDifference"));
  }
  pySetAttr(order, "status", "exchange requested");
  pySetAttr(order, "exchange_items", pySorted(args.item_ids));
  pySetAttr(order, "exchange_new_items", pySorted(args.new_item_ids));
  pySetAttr(order, "exchange_payment_method_id", args.payment_method_id);
  pySetAttr(order, "exchange_price_difference", difference);
  return order;
}

/** `find_user_id_by_name_zip`: case-insensitive names, exact zip; the first match in the users' order. */
function findUserIdByNameZip(db: PyModel, args: Record<string, PyValue>): string {
  for (const [userId, user] of pyGetAttr(db, "users") as PyDict) {
    const name = pyGetAttr(user, "name");
    if (
      pyEquals(pyLower(pyGetAttr(name, "first_name")), pyLower(args.first_name)) &&
      pyEquals(pyLower(pyGetAttr(name, "last_name")), pyLower(args.last_name)) &&
      pyEquals(pyGetAttr(pyGetAttr(user, "address"), "zip"), args.zip)
    ) {
      return userId;
    }
  }
  throw pyValueError(retailMessages.text("noUserMatches"));
}

/** `find_user_id_by_email`: case-insensitive. */
function findUserIdByEmail(db: PyModel, args: Record<string, PyValue>): string {
  for (const [userId, user] of pyGetAttr(db, "users") as PyDict) {
    if (pyEquals(pyLower(pyGetAttr(user, "email")), pyLower(args.email))) return userId;
  }
  throw pyValueError(retailMessages.text("noUserMatches"));
}

/** `list_all_product_types`: `json.dumps({name: product_id}, sort_keys=True)`, a str result. */
function listAllProductTypes(db: PyModel): string {
  const names: PyDict = new Map();
  for (const product of (pyGetAttr(db, "products") as PyDict).values()) {
    const name = pyGetAttr(product, "name");
    pyRequireHashable(name);
    names.set(name as string, pyGetAttr(product, "product_id"));
  }
  return pyJsonDumpsSortedKeys(names);
}

/** `modify_pending_order_address`. */
function modifyPendingOrderAddress(db: PyModel, args: Record<string, PyValue>): PyModel {
  const order = getOrder(db, args.order_id);
  if (!isPendingOrder(order)) throw pyValueError(retailMessages.text("modifyNeedsPending"));
  pySetAttr(order, "address", userAddress(args));
  return order;
}

/**
 * `modify_pending_order_items`: records the payment or refund, adjusts a gift card, then swaps the
 * items. As in τ², every swapped item takes the price and options of the *last* variant looked up,
 * and its options are that variant's own dict.
 */
function modifyPendingOrderItems(db: PyModel, args: Record<string, PyValue>): PyModel {
  const order = getOrder(db, args.order_id);
  if (pyNotEquals(pyGetAttr(order, "status"), "pending")) throw pyValueError(retailMessages.text("modifyNeedsPending"));
  const missing = firstMissingItem(order, args.item_ids);
  if (missing !== undefined) throw pyValueError(retailMessages.format("modifyItemMissing", { item_id: pyStr(missing) }));
  if (pyLen(args.item_ids) !== pyLen(args.new_item_ids)) throw pyValueError(retailMessages.text("modifyCountsDiffer"));
  const { difference, lastVariant } = priceDifference(db, order, pyZip(args.item_ids, args.new_item_ids), true);
  const paymentMethod = getPaymentMethod(db, pyGetAttr(order, "user_id"), args.payment_method_id);
  if (isGiftCard(paymentMethod) && pyLessThan(pyGetAttr(paymentMethod, "balance"), difference)) throw pyValueError(retailMessages.text("giftCardShortForNewItem"));
  pyAppend(pyGetAttr(order, "payment_history"), orderPayment(pyGreaterThan(difference, 0) ? "payment" : "refund", pyAbs(difference), args.payment_method_id));
  if (isGiftCard(paymentMethod)) adjustBalance(paymentMethod, (balance) => pyISub(balance, difference));
  for (const [itemId, newItemId] of pyZip(args.item_ids, args.new_item_ids)) {
    const item = findOrderItem(order, itemId);
    if (item === null) throw pyValueError(retailMessages.format("orderItemNotFound", { item_id: pyStr(itemId) }));
    const variant = lastVariant as PyModel;
    pySetAttr(item, "item_id", newItemId);
    pySetAttr(item, "price", pyGetAttr(variant, "price"));
    pySetAttr(item, "options", pyGetAttr(variant, "options"));
  }
  pySetAttr(order, "status", "pending (item modified)");
  return order;
}

/** `modify_pending_order_payment`: a payment with the new method and a refund to the old one. */
function modifyPendingOrderPayment(db: PyModel, args: Record<string, PyValue>): PyModel {
  const order = getOrder(db, args.order_id);
  if (!isPendingOrder(order)) throw pyValueError(retailMessages.text("modifyNeedsPending"));
  const paymentMethod = getPaymentMethod(db, pyGetAttr(order, "user_id"), args.payment_method_id);
  const history = pyGetAttr(order, "payment_history");
  if (pyLen(history) !== 1 || pyNotEquals(pyGetAttr(pyGetItem(history, 0), "transaction_type"), "payment")) {
    throw pyValueError(retailMessages.text("notExactlyOnePayment"));
  }
  const first = () => pyGetItem(history, 0);
  if (pyEquals(pyGetAttr(first(), "payment_method_id"), args.payment_method_id)) throw pyValueError(retailMessages.text("samePaymentMethodRefused"));
  const amount = pyGetAttr(first(), "amount");
  if (isGiftCard(paymentMethod) && pyLessThan(pyGetAttr(paymentMethod, "balance"), amount)) throw pyValueError(retailMessages.text("giftCardShortForOrder"));
  pyExtend(history, [orderPayment("payment", amount, args.payment_method_id), orderPayment("refund", amount, pyGetAttr(first(), "payment_method_id"))]);
  if (isGiftCard(paymentMethod)) adjustBalance(paymentMethod, (balance) => pyISub(balance, amount));
  const oldPaymentMethod = getPaymentMethod(db, pyGetAttr(order, "user_id"), pyGetAttr(first(), "payment_method_id"));
  if (isGiftCard(oldPaymentMethod)) adjustBalance(oldPaymentMethod, (balance) => pyIAdd(balance, amount));
  return order;
}

/** `modify_user_address`. */
function modifyUserAddress(db: PyModel, args: Record<string, PyValue>): PyModel {
  const user = getUser(db, args.user_id);
  pySetAttr(user, "address", userAddress(args));
  return user;
}

/** `return_delivered_order_items`: to the original payment method or any gift card of the user. */
function returnDeliveredOrderItems(db: PyModel, args: Record<string, PyValue>): PyModel {
  const order = getOrder(db, args.order_id);
  if (pyNotEquals(pyGetAttr(order, "status"), "delivered")) throw pyValueError(retailMessages.text("returnNeedsDelivered"));
  const user = getUser(db, pyGetAttr(order, "user_id"));
  const paymentMethod = getPaymentMethod(db, pyGetAttr(user, "user_id"), args.payment_method_id);
  if (!isGiftCard(paymentMethod) && pyNotEquals(args.payment_method_id, pyGetAttr(pyGetItem(pyGetAttr(order, "payment_history"), 0), "payment_method_id"))) {
    throw pyValueError(retailMessages.text("returnNeedsOriginalPayment"));
  }
  if (firstMissingItem(order, args.item_ids) !== undefined) throw pyValueError(retailMessages.text("returnItemMissing"));
  pySetAttr(order, "status", "return requested");
  pySetAttr(order, "return_items", pySorted(args.item_ids));
  pySetAttr(order, "return_payment_method_id", args.payment_method_id);
  return order;
}

export const retailTools: Tau2ToolkitDefinition = {
  className: "RetailTools",
  methods: [
    tau2Tool("calculate", "generic", ["expression"], (_self, { expression }) => tau2Calculate(expression, retailMessages.text("invalidCharacters"))),
    tau2Tool("cancel_pending_order", "write", ["order_id", "reason"], ({ db }, args) => cancelPendingOrder(db, args)),
    tau2Tool("exchange_delivered_order_items", "write", ["order_id", "item_ids", "new_item_ids", "payment_method_id"], ({ db }, args) => exchangeDeliveredOrderItems(db, args)),
    tau2Tool("find_user_id_by_name_zip", "read", ["first_name", "last_name", "zip"], ({ db }, args) => findUserIdByNameZip(db, args)),
    tau2Tool("find_user_id_by_email", "read", ["email"], ({ db }, args) => findUserIdByEmail(db, args)),
    tau2Tool("get_order_details", "read", ["order_id"], ({ db }, { order_id }) => getOrder(db, order_id)),
    tau2Tool("get_product_details", "read", ["product_id"], ({ db }, { product_id }) => getProduct(db, product_id)),
    tau2Tool("get_item_details", "read", ["item_id"], ({ db }, { item_id }) => getItem(db, item_id)),
    tau2Tool("get_user_details", "read", ["user_id"], ({ db }, { user_id }) => getUser(db, user_id)),
    tau2Tool("list_all_product_types", "read", [], ({ db }) => listAllProductTypes(db)),
    tau2Tool("modify_pending_order_address", "write", ["order_id", "address1", "address2", "city", "state", "country", "zip"], ({ db }, args) => modifyPendingOrderAddress(db, args)),
    tau2Tool("modify_pending_order_items", "write", ["order_id", "item_ids", "new_item_ids", "payment_method_id"], ({ db }, args) => modifyPendingOrderItems(db, args)),
    tau2Tool("modify_pending_order_payment", "write", ["order_id", "payment_method_id"], ({ db }, args) => modifyPendingOrderPayment(db, args)),
    tau2Tool("modify_user_address", "write", ["user_id", "address1", "address2", "city", "state", "country", "zip"], ({ db }, args) => modifyUserAddress(db, args)),
    tau2Tool("return_delivered_order_items", "write", ["order_id", "item_ids", "payment_method_id"], ({ db }, args) => returnDeliveredOrderItems(db, args)),
    tau2Tool("transfer_to_human_agents", "generic", ["summary"], () => retailMessages.text("transferred")),
  ],
};
