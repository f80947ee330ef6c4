/**
 * The 16 τ-bench (v1) retail tools (τ-bench: tau_bench/envs/retail/tools/, one class's `invoke` per
 * tool), in registration (`ALL_TOOLS`, `tools_info.json`) order. Every observation, error text and
 * database change must match the original byte for byte, because rewards compare a hash of the
 * database and agents see the raw tool output.
 *
 * Rules this file follows:
 * - reads go through `db.get` (read-only, possibly the shared base record); a record is changed
 *   only through what `db.mutable` returns, and only after every check has passed, in the
 *   original's order of mutation;
 * - arguments are not validated: every Python expression on them is the matching `py*` operation
 *   of `src/value`, so a wrong type takes the Python path and gives Python's error text;
 * - money uses Python's typing (int + float → float, `round(x, 2)` half-even on the binary value).
 *
 * `calculate`, `think` and `transfer_to_human_agents` are the implementations shared with the
 * airline domain (`domains/common`).
 */
import type { EpisodeDatabase } from "../../src/suites/tau-bench/engine/database.ts";
import type { ToolImplementation } from "../../src/suites/tau-bench/engine/tool.ts";
import {
  pyAbs,
  pyAdd,
  pyBool,
  pyCollectionContains,
  pyCollectionGet,
  pyCompareStrings,
  pyContains,
  pyCount,
  pyDeepCopy,
  pyEquals,
  pyGetItem,
  pyGreaterThan,
  pyIndexError,
  pyIterate,
  pyJsonDumps,
  pyLen,
  pyLessThan,
  pyLower,
  pyNotEquals,
  pyRound,
  pySorted,
  pyStr,
  pySub,
  pyTypeError,
  pyTypeName,
  pyZip,
  type PyDict,
  type PyValue,
} from "../../src/value/index.ts";
import { calculateTool, thinkTool, transferToHumanAgentsTool } from "../common/index.ts";

type Args = Readonly<Record<string, PyValue>>;

const ORDERS = "orders";
const PRODUCTS = "products";
const USERS = "users";

// ---------------------------------------------------------------------------------------------
// Shared lookups
// ---------------------------------------------------------------------------------------------

/** A read-only record that the caller has already proven to exist. */
function record(db: EpisodeDatabase, collection: string, key: string): PyDict {
  return db.get(collection, key) as PyDict;
}

/** `data[collection][key]`: the record, or Python's KeyError / unhashable TypeError (data inconsistencies only). */
function lookup(db: EpisodeDatabase, collection: string, key: PyValue): PyDict {
  return pyCollectionGet(db, collection, key) as PyDict;
}

/** `value[key]` where the data guarantees a dict (a record, an address, a payment method). */
function dictItem(value: PyValue | undefined, key: PyValue | undefined): PyDict {
  const item = pyGetItem(value, key);
  if (!(item instanceof Map)) throw pyTypeError(`'${pyTypeName(item)}' object is not subscriptable`);
  return item;
}

/** `value[key]` where the data guarantees a list (items, payment_history). */
function listItem(value: PyValue | undefined, key: PyValue | undefined): PyValue[] {
  const item = pyGetItem(value, key);
  if (!Array.isArray(item)) throw pyTypeError(`'${pyTypeName(item)}' object is not iterable`);
  return item;
}

/** The payment methods dict of the order's user (read-only). */
function userPaymentMethods(db: EpisodeDatabase, order: PyDict): PyDict {
  return dictItem(lookup(db, USERS, pyGetItem(order, "user_id")), "payment_methods");
}

/** `[item["item_id"] for item in order["items"]]` */
function orderItemIds(order: PyDict): PyValue[] {
  return listItem(order, "items").map((item) => pyGetItem(item, "item_id"));
}

/**
 * The multiplicity check shared by exchange, modify-items and return: for each requested id (in
 * Python iteration order of the argument), it may not occur more often in the request than in the
 * order. Returns the first offending id, or undefined.
 */
function firstOverRequested(itemIds: PyValue, order: PyDict): { id: PyValue } | undefined {
  const present = orderItemIds(order);
  for (const itemId of pyIterate(itemIds)) {
    if (pyCount(itemIds, itemId) > pyCount(present, itemId)) return { id: itemId };
  }
  return undefined;
}

/** `[item for item in order["items"] if item["item_id"] == item_id][0]` */
function firstItemWithId(items: PyValue[], itemId: PyValue): PyDict {
  for (const item of items) {
    if (pyEquals(pyGetItem(item, "item_id"), itemId)) return item as PyDict;
  }
  throw pyIndexError("list index out of range");
}

/** A new address dict in the tools' key order (differs from the data's order; see README). */
function newAddress(args: Args): PyDict {
  const address: PyDict = new Map();
  for (const key of ["address1", "address2", "city", "state", "country", "zip"]) address.set(key, pyDeepCopy(args[key]));
  return address;
}

/**
 * The price check and sum shared by exchange and modify-items: for each position, the first order
 * item with that id, its product, and the requested variant (must exist and be available).
 * Returns the accumulated `new − old` price difference (starting from int 0), or an error text.
 */
function priceDifference(db: EpisodeDatabase, order: PyDict, itemIds: PyValue, newItemIds: PyValue): { diff: PyValue } | { error: string } {
  const items = listItem(order, "items");
  let diff: PyValue = 0;
  for (const [itemId, newItemId] of pyZip(itemIds, newItemIds)) {
    const item = firstItemWithId(items, itemId);
    const product = lookup(db, PRODUCTS, pyGetItem(item, "product_id"));
    const variants = dictItem(product, "variants");
    if (!(pyContains(variants, newItemId) && pyBool(pyGetItem(pyGetItem(variants, newItemId), "available")))) {
      return { error: `Error: new item ${pyStr(newItemId)} not found or available` };
    }
    const oldPrice = pyGetItem(item, "price");
    const newPrice = pyGetItem(pyGetItem(variants, newItemId), "price");
    diff = pyAdd(diff, pySub(newPrice, oldPrice));
  }
  return { diff };
}

function isGiftCardSource(method: PyValue): boolean {
  return pyEquals(pyGetItem(method, "source"), "gift_card");
}

// ---------------------------------------------------------------------------------------------
// Tools, in tools_info.json order
// ---------------------------------------------------------------------------------------------

/** Cancels a pending order: refunds every payment (gift cards immediately), status `cancelled`. */
const cancelPendingOrder: ToolImplementation = {
  name: "cancel_pending_order",
  className: "CancelPendingOrder",
  parameters: ["order_id", "reason"],
  kind: "write",
  invoke(db, args) {
    const { order_id: orderId, reason } = args;
    if (!pyCollectionContains(db, ORDERS, orderId)) return "Error: order not found";
    const current = record(db, ORDERS, orderId);
    if (pyNotEquals(pyGetItem(current, "status"), "pending")) return "Error: non-pending order cannot be cancelled";
    if (!pyContains(["no longer needed", "ordered by mistake"], reason)) return "Error: invalid reason";
    const order = db.mutable(ORDERS, orderId);
    const history = listItem(order, "payment_history");
    const refunds: PyDict[] = [];
    for (const payment of history) {
      const paymentId = pyGetItem(payment, "payment_method_id");
      const amount = pyGetItem(payment, "amount");
      refunds.push(
        new Map<string, PyValue>([
          ["transaction_type", "refund"],
          ["amount", amount],
          ["payment_method_id", paymentId],
        ]),
      );
      if (pyContains(paymentId, "gift_card")) {
        const userId = pyGetItem(order, "user_id");
        lookup(db, USERS, userId); // KeyError if the user is missing, before any copy
        const methods = dictItem(db.mutable(USERS, userId as string), "payment_methods");
        const method = dictItem(methods, paymentId as string);
        method.set("balance", pyRound(pyAdd(pyGetItem(method, "balance"), amount), 2));
      }
    }
    order.set("status", "cancelled");
    order.set("cancel_reason", reason);
    history.push(...refunds);
    return pyJsonDumps(order);
  },
};

/**
 * The checks exchange and modify-items share, in the original's order: the order exists, has the
 * required status, every item id is present often enough, the lists have equal length, and every
 * new variant exists and is available. Returns the error text, or the order and the unrounded
 * price difference.
 */
function checkItemSwap(db: EpisodeDatabase, args: Readonly<Record<string, PyValue>>, requiredStatus: string, statusError: string): string | { orderId: string; current: PyDict; diff: PyValue } {
  const { order_id: orderId, item_ids: itemIds, new_item_ids: newItemIds } = args;
  if (!pyCollectionContains(db, ORDERS, orderId)) return "Error: order not found";
  const current = record(db, ORDERS, orderId);
  if (pyNotEquals(pyGetItem(current, "status"), requiredStatus)) return statusError;
  const missing = firstOverRequested(itemIds, current);
  if (missing) return `Error: ${pyStr(missing.id)} not found`;
  if (pyLen(itemIds) !== pyLen(newItemIds)) return "Error: the number of items to be exchanged should match";
  const priced = priceDifference(db, current, itemIds, newItemIds);
  if ("error" in priced) return priced.error;
  return { orderId, current, diff: priced.diff };
}

/** Requests an exchange of delivered items; records the (rounded) price difference, moves no money. */
const exchangeDeliveredOrderItems: ToolImplementation = {
  name: "exchange_delivered_order_items",
  className: "ExchangeDeliveredOrderItems",
  parameters: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
  kind: "write",
  invoke(db, args) {
    const { item_ids: itemIds, new_item_ids: newItemIds, payment_method_id: paymentMethodId } = args;
    const checked = checkItemSwap(db, args, "delivered", "Error: non-delivered order cannot be exchanged");
    if (typeof checked === "string") return checked;
    const { orderId, current } = checked;
    const diff = pyRound(checked.diff, 2);
    const methods = userPaymentMethods(db, current);
    if (!pyContains(methods, paymentMethodId)) return "Error: payment method not found";
    const method = pyGetItem(methods, paymentMethodId);
    if (isGiftCardSource(method) && pyLessThan(pyGetItem(method, "balance"), diff)) {
      return "Error: insufficient gift card balance to pay for the price difference";
    }
    const order = db.mutable(ORDERS, orderId);
    order.set("status", "exchange requested");
    order.set("exchange_items", pySorted(itemIds));
    order.set("exchange_new_items", pySorted(newItemIds));
    order.set("exchange_payment_method_id", paymentMethodId);
    order.set("exchange_price_difference", diff);
    return pyJsonDumps(order);
  },
};

/** First user (file order) whose email matches case-insensitively. */
const findUserIdByEmail: ToolImplementation = {
  name: "find_user_id_by_email",
  className: "FindUserIdByEmail",
  parameters: ["email"],
  kind: "read",
  invoke(db, args) {
    for (const [userId, profile] of db.entries(USERS)) {
      if (pyLower(pyGetItem(profile, "email")) === pyLower(args.email)) return userId;
    }
    return "Error: user not found";
  },
};

/**
 * First user whose first and last names match case-insensitively and whose zip is equal.
 * Python's `and` short-circuits, so `last_name.lower()` is only evaluated once a first name matched.
 */
const findUserIdByNameZip: ToolImplementation = {
  name: "find_user_id_by_name_zip",
  className: "FindUserIdByNameZip",
  parameters: ["first_name", "last_name", "zip"],
  kind: "read",
  invoke(db, args) {
    for (const [userId, profile] of db.entries(USERS)) {
      const name = pyGetItem(profile, "name");
      if (
        pyLower(pyGetItem(name, "first_name")) === pyLower(args.first_name) &&
        pyLower(pyGetItem(name, "last_name")) === pyLower(args.last_name) &&
        pyEquals(pyGetItem(pyGetItem(profile, "address"), "zip"), args.zip)
      ) {
        return userId;
      }
    }
    return "Error: user not found";
  },
};

/** Builds a read tool that returns json(record) for an exact key, or `Error: <what> not found`. */
function detailsTool(name: string, className: string, parameter: string, collection: string, what: string): ToolImplementation {
  return {
    name,
    className,
    parameters: [parameter],
    kind: "read",
    invoke(db, args) {
      const key = args[parameter];
      if (pyCollectionContains(db, collection, key)) return pyJsonDumps(record(db, collection, key));
      return `Error: ${what} not found`;
    },
  };
}

const getOrderDetails = detailsTool("get_order_details", "GetOrderDetails", "order_id", ORDERS, "order");
const getProductDetails = detailsTool("get_product_details", "GetProductDetails", "product_id", PRODUCTS, "product");
const getUserDetails = detailsTool("get_user_details", "GetUserDetails", "user_id", USERS, "user");

/** `{name: product_id}` over all products, sorted by name. */
const listAllProductTypes: ToolImplementation = {
  name: "list_all_product_types",
  className: "ListAllProductTypes",
  parameters: [],
  kind: "read",
  invoke(db) {
    const byName: PyDict = new Map();
    for (const [, product] of db.entries(PRODUCTS)) {
      const productName = pyGetItem(product, "name");
      if (typeof productName !== "string") throw new Error("product name is not a string");
      byName.set(productName, pyGetItem(product, "product_id"));
    }
    const sorted: PyDict = new Map([...byName].sort(([a], [b]) => pyCompareStrings(a, b)));
    return pyJsonDumps(sorted);
  },
};

/** Replaces a pending order's address (new key order: address1, address2, city, state, country, zip). */
const modifyPendingOrderAddress: ToolImplementation = {
  name: "modify_pending_order_address",
  className: "ModifyPendingOrderAddress",
  parameters: ["order_id", "address1", "address2", "city", "state", "country", "zip"],
  kind: "write",
  invoke(db, args) {
    const orderId = args.order_id;
    if (!pyCollectionContains(db, ORDERS, orderId)) return "Error: order not found";
    if (pyNotEquals(pyGetItem(record(db, ORDERS, orderId), "status"), "pending")) {
      return "Error: non-pending order cannot be modified";
    }
    const order = db.mutable(ORDERS, orderId);
    order.set("address", newAddress(args));
    return pyJsonDumps(order);
  },
};

/**
 * Modifies items of a pending order: books the unrounded difference (float noise kept), adjusts a
 * gift card, rewrites the first matching item per position (duplicates walk forward), and sets
 * the status `pending (item modified)`, after which the order can no longer be changed.
 */
const modifyPendingOrderItems: ToolImplementation = {
  name: "modify_pending_order_items",
  className: "ModifyPendingOrderItems",
  parameters: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
  kind: "write",
  invoke(db, args) {
    const { item_ids: itemIds, new_item_ids: newItemIds, payment_method_id: paymentMethodId } = args;
    const checked = checkItemSwap(db, args, "pending", "Error: non-pending order cannot be modified");
    if (typeof checked === "string") return checked;
    const { orderId, current, diff } = checked;
    const methods = userPaymentMethods(db, current);
    if (!pyContains(methods, paymentMethodId)) return "Error: payment method not found";
    const giftCard = isGiftCardSource(pyGetItem(methods, paymentMethodId));
    if (giftCard && pyLessThan(pyGetItem(pyGetItem(methods, paymentMethodId), "balance"), diff)) {
      return "Error: insufficient gift card balance to pay for the new item";
    }
    const order = db.mutable(ORDERS, orderId);
    listItem(order, "payment_history").push(
      new Map<string, PyValue>([
        ["transaction_type", pyGreaterThan(diff, 0) ? "payment" : "refund"],
        ["amount", pyAbs(diff)],
        ["payment_method_id", paymentMethodId],
      ]),
    );
    if (giftCard) {
      const userId = pyGetItem(order, "user_id") as string;
      const method = dictItem(dictItem(db.mutable(USERS, userId), "payment_methods"), paymentMethodId);
      method.set("balance", pyRound(pySub(pyGetItem(method, "balance"), diff), 2));
    }
    const items = listItem(order, "items");
    for (const [itemId, newItemId] of pyZip(itemIds, newItemIds)) {
      const item = firstItemWithId(items, itemId);
      const variant = dictItem(dictItem(lookup(db, PRODUCTS, pyGetItem(item, "product_id")), "variants"), newItemId as string);
      item.set("item_id", newItemId);
      item.set("price", pyGetItem(variant, "price"));
      item.set("options", pyDeepCopy(pyGetItem(variant, "options")));
    }
    order.set("status", "pending (item modified)");
    return pyJsonDumps(order);
  },
};

/**
 * Switches the single payment of a pending order to another method: appends the new payment and
 * the refund of the old one, debits a new gift card (by `source`) and credits an old one (by id).
 */
const modifyPendingOrderPayment: ToolImplementation = {
  name: "modify_pending_order_payment",
  className: "ModifyPendingOrderPayment",
  parameters: ["order_id", "payment_method_id"],
  kind: "write",
  invoke(db, args) {
    const { order_id: orderId, payment_method_id: paymentMethodId } = args;
    if (!pyCollectionContains(db, ORDERS, orderId)) return "Error: order not found";
    const current = record(db, ORDERS, orderId);
    if (pyNotEquals(pyGetItem(current, "status"), "pending")) return "Error: non-pending order cannot be modified";
    const methods = userPaymentMethods(db, current);
    if (!pyContains(methods, paymentMethodId)) return "Error: payment method not found";
    const history = listItem(current, "payment_history");
    if (history.length > 1 || pyNotEquals(pyGetItem(firstOf(history), "transaction_type"), "payment")) {
      return "Error: there should be exactly one payment for a pending order";
    }
    if (pyEquals(pyGetItem(history[0], "payment_method_id"), paymentMethodId)) {
      return "Error: the new payment method should be different from the current one";
    }
    const amount = pyGetItem(history[0], "amount");
    const newIsGiftCard = isGiftCardSource(pyGetItem(methods, paymentMethodId));
    if (newIsGiftCard && pyLessThan(pyGetItem(pyGetItem(methods, paymentMethodId), "balance"), amount)) {
      return "Error: insufficient gift card balance to pay for the order";
    }
    const order = db.mutable(ORDERS, orderId);
    const orderHistory = listItem(order, "payment_history");
    const oldPaymentId = pyGetItem(orderHistory[0], "payment_method_id");
    orderHistory.push(
      new Map<string, PyValue>([
        ["transaction_type", "payment"],
        ["amount", amount],
        ["payment_method_id", paymentMethodId],
      ]),
      new Map<string, PyValue>([
        ["transaction_type", "refund"],
        ["amount", amount],
        ["payment_method_id", oldPaymentId],
      ]),
    );
    const userId = pyGetItem(order, "user_id") as string;
    if (newIsGiftCard) {
      const method = dictItem(dictItem(db.mutable(USERS, userId), "payment_methods"), paymentMethodId);
      method.set("balance", pyRound(pySub(pyGetItem(method, "balance"), amount), 2));
    }
    if (pyContains(oldPaymentId, "gift_card")) {
      const method = dictItem(dictItem(db.mutable(USERS, userId), "payment_methods"), oldPaymentId as string);
      method.set("balance", pyRound(pyAdd(pyGetItem(method, "balance"), amount), 2));
    }
    return pyJsonDumps(order);
  },
};

/** `history[0]`, with Python's IndexError for an empty list. */
function firstOf(list: PyValue[]): PyValue {
  if (list.length === 0) throw pyIndexError("list index out of range");
  return list[0];
}

/** Replaces a user's default address (same key order as the order-address tool). */
const modifyUserAddress: ToolImplementation = {
  name: "modify_user_address",
  className: "ModifyUserAddress",
  parameters: ["user_id", "address1", "address2", "city", "state", "country", "zip"],
  kind: "write",
  invoke(db, args) {
    const userId = args.user_id;
    if (!pyCollectionContains(db, USERS, userId)) return "Error: user not found";
    const user = db.mutable(USERS, userId);
    user.set("address", newAddress(args));
    return pyJsonDumps(user);
  },
};

/**
 * Requests a return of delivered items to the original method or any gift card. Note the check
 * order (payment before items) and the generic `some item not found`; no refund is booked.
 */
const returnDeliveredOrderItems: ToolImplementation = {
  name: "return_delivered_order_items",
  className: "ReturnDeliveredOrderItems",
  parameters: ["order_id", "item_ids", "payment_method_id"],
  kind: "write",
  invoke(db, args) {
    const { order_id: orderId, item_ids: itemIds, payment_method_id: paymentMethodId } = args;
    if (!pyCollectionContains(db, ORDERS, orderId)) return "Error: order not found";
    const current = record(db, ORDERS, orderId);
    if (pyNotEquals(pyGetItem(current, "status"), "delivered")) return "Error: non-delivered order cannot be returned";
    if (!pyContains(userPaymentMethods(db, current), paymentMethodId)) return "Error: payment method not found";
    if (!pyContains(paymentMethodId, "gift_card") && pyNotEquals(paymentMethodId, pyGetItem(firstOf(listItem(current, "payment_history")), "payment_method_id"))) {
      return "Error: payment method should be either the original payment method or a gift card";
    }
    if (firstOverRequested(itemIds, current)) return "Error: some item not found";
    const order = db.mutable(ORDERS, orderId);
    order.set("status", "return requested");
    order.set("return_items", pySorted(itemIds));
    order.set("return_payment_method_id", paymentMethodId);
    return pyJsonDumps(order);
  },
};

/** The 16 retail tools in registration (`tools_info.json`) order: schemas and reports follow it. */
export const retailTools: readonly ToolImplementation[] = Object.freeze([
  calculateTool,
  cancelPendingOrder,
  exchangeDeliveredOrderItems,
  findUserIdByEmail,
  findUserIdByNameZip,
  getOrderDetails,
  getProductDetails,
  getUserDetails,
  listAllProductTypes,
  modifyPendingOrderAddress,
  modifyPendingOrderItems,
  modifyPendingOrderPayment,
  modifyUserAddress,
  returnDeliveredOrderItems,
  thinkTool,
  transferToHumanAgentsTool,
]);
