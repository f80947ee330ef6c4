/**
 * The private helpers of τ²'s `RetailTools` (`_get_order`, `_get_user`, `_get_product`,
 * `_get_item`, `_get_variant`, `_get_payment_method`, `_is_pending_order`) and the small idioms its
 * tools repeat (the duplicate-aware item check, `next(item for item in order.items …)`). Records are
 * looked up by key, as the original does, so an environment owns what it may change; only
 * `_get_item` walks the 50 products, as the original does.
 */
import { PyModel, type PyDict, type PyModelSchema, type PyValue, pyContains, pyCount, pyEquals, pyGetAttr, pyGetItem, pyGreaterThan, pyIterate, pyValueError } from "../../src/value/index.ts";
import { retailMessages } from "./messages.ts";
import { giftCardModel } from "./data-model.ts";

/** `isinstance(value, Model)`. */
export function isModelOf(value: PyValue, schema: PyModelSchema): boolean {
  return value instanceof PyModel && value.schema === schema;
}

/** `isinstance(payment_method, GiftCard)`. */
export function isGiftCard(value: PyValue): boolean {
  return isModelOf(value, giftCardModel);
}

function lookUp(db: PyModel, table: string, key: PyValue, missing: string): PyModel {
  const records = pyGetAttr(db, table);
  if (!pyContains(records, key)) throw pyValueError(missing);
  return pyGetItem(records, key) as PyModel;
}

/** `_get_order`. */
export function getOrder(db: PyModel, orderId: PyValue): PyModel {
  return lookUp(db, "orders", orderId, retailMessages.text("orderNotFound"));
}

/** `_get_user`. */
export function getUser(db: PyModel, userId: PyValue): PyModel {
  return lookUp(db, "users", userId, retailMessages.text("userNotFound"));
}

/** `_get_product`. */
export function getProduct(db: PyModel, productId: PyValue): PyModel {
  return lookUp(db, "products", productId, retailMessages.text("productNotFound"));
}

/**
 * `_get_item`: the first product whose variants hold the id. The walk only reads; the variant it
 * returns may be the shared (sealed) record and must not be changed.
 */
export function getItem(db: PyModel, itemId: PyValue): PyValue {
  for (const product of (pyGetAttr(db, "products") as PyDict).values()) {
    const variants = pyGetAttr(product, "variants");
    if (pyContains(variants, itemId)) return pyGetItem(variants, itemId);
  }
  throw pyValueError(retailMessages.text("itemNotFound"));
}

/** `_get_variant`. */
export function getVariant(db: PyModel, productId: PyValue, variantId: PyValue): PyModel {
  const variants = pyGetAttr(getProduct(db, productId), "variants");
  if (!pyContains(variants, variantId)) throw pyValueError(retailMessages.text("variantNotFound"));
  return pyGetItem(variants, variantId) as PyModel;
}

/** `_get_payment_method`. */
export function getPaymentMethod(db: PyModel, userId: PyValue, paymentMethodId: PyValue): PyModel {
  const methods = pyGetAttr(getUser(db, userId), "payment_methods");
  if (!pyContains(methods, paymentMethodId)) throw pyValueError(retailMessages.text("paymentMethodNotFound"));
  return pyGetItem(methods, paymentMethodId) as PyModel;
}

/** `_is_pending_order`: a substring test, so `pending (item modified)` counts as pending. */
export function isPendingOrder(order: PyModel): boolean {
  return pyContains(pyGetAttr(order, "status"), "pending");
}

/**
 * The check every item tool makes: each requested id occurs in the order at least as often as in
 * the request. Python's `count` on whatever was passed (a str of ids counts substrings).
 */
export function firstMissingItem(order: PyModel, itemIds: PyValue): PyValue | undefined {
  const allItemIds = pyIterate(pyGetAttr(order, "items")).map((item) => pyGetAttr(item, "item_id"));
  for (const itemId of pyIterate(itemIds)) {
    if (pyGreaterThan(pyCount(itemIds, itemId), pyCount(allItemIds, itemId))) return itemId;
  }
  return undefined;
}

/** The first item of the order with this item id, or null (the original's first-match lookup, Python equality). */
export function findOrderItem(order: PyModel, itemId: PyValue): PyModel | null {
  for (const item of pyIterate(pyGetAttr(order, "items"))) if (pyEquals(pyGetAttr(item, "item_id"), itemId)) return item as PyModel;
  return null;
}
