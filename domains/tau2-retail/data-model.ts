/**
 * The τ² retail domain's pydantic models (τ² `domains/retail/data_model.py`), field order as pydantic
 * lays it out: inherited fields first, a field re-declared in a subclass keeps its inherited place
 * (`GiftCard` dumps `source, id, balance`). Types decide the coercion that reaches results and
 * hashes: prices, amounts and gift card balances are `float` (`100` becomes `100.0` when a model is
 * built). Every model ignores extra keys except `RetailDB`, which (as τ²'s `DB`) forbids them.
 * `BaseOrder` is not modelled: it is identical to `Order` and nothing builds one.
 */
import { type PyModelSchema, pyModelSchema, pyT } from "../../src/value/index.ts";

export const ORDER_STATUS = pyT.literal("processed", "pending", "pending (item modified)", "delivered", "cancelled", "exchange requested", "return requested");
export const CANCEL_REASON = pyT.literal("no longer needed", "ordered by mistake");
export const ORDER_PAYMENT_TYPE = pyT.literal("payment", "refund");

export const variantModel: PyModelSchema = pyModelSchema("Variant", [
  ["item_id", pyT.str],
  ["options", pyT.dict(pyT.str)],
  ["available", pyT.bool],
  ["price", pyT.float],
]);

export const productModel: PyModelSchema = pyModelSchema("Product", [
  ["name", pyT.str],
  ["product_id", pyT.str],
  ["variants", pyT.dict(pyT.model(() => variantModel))],
]);

export const userNameModel: PyModelSchema = pyModelSchema("UserName", [
  ["first_name", pyT.str],
  ["last_name", pyT.str],
]);

/** `UserAddress`: every line required (`address2` is a plain `str`, `""` when empty). */
export const userAddressModel: PyModelSchema = pyModelSchema("UserAddress", [
  ["address1", pyT.str],
  ["address2", pyT.str],
  ["city", pyT.str],
  ["country", pyT.str],
  ["state", pyT.str],
  ["zip", pyT.str],
]);

export const creditCardModel: PyModelSchema = pyModelSchema("CreditCard", [
  ["source", pyT.literal("credit_card")],
  ["id", pyT.str],
  ["brand", pyT.str],
  ["last_four", pyT.str],
]);

export const paypalModel: PyModelSchema = pyModelSchema("Paypal", [
  ["source", pyT.literal("paypal")],
  ["id", pyT.str],
]);

export const giftCardModel: PyModelSchema = pyModelSchema("GiftCard", [
  ["source", pyT.literal("gift_card")],
  ["id", pyT.str],
  ["balance", pyT.float],
]);

/** `PaymentMethod = Union[CreditCard, GiftCard, Paypal]`; the `source` literal tells them apart. */
export const PAYMENT_METHOD = pyT.union(
  pyT.model(() => creditCardModel),
  pyT.model(() => giftCardModel),
  pyT.model(() => paypalModel),
);

export const userModel: PyModelSchema = pyModelSchema("User", [
  ["user_id", pyT.str],
  ["name", pyT.model(() => userNameModel)],
  ["address", pyT.model(() => userAddressModel)],
  ["email", pyT.str],
  ["payment_methods", pyT.dict(PAYMENT_METHOD)],
  ["orders", pyT.list(pyT.str)],
]);

/** `OrderFullfilment` (the original's spelling). */
export const orderFulfilmentModel: PyModelSchema = pyModelSchema("OrderFullfilment", [
  ["tracking_id", pyT.list(pyT.str)],
  ["item_ids", pyT.list(pyT.str)],
]);

export const orderItemModel: PyModelSchema = pyModelSchema("OrderItem", [
  ["name", pyT.str],
  ["product_id", pyT.str],
  ["item_id", pyT.str],
  ["price", pyT.float],
  ["options", pyT.dict(pyT.str)],
]);

export const orderPaymentModel: PyModelSchema = pyModelSchema("OrderPayment", [
  ["transaction_type", ORDER_PAYMENT_TYPE],
  ["amount", pyT.float],
  ["payment_method_id", pyT.str],
]);

export const orderModel: PyModelSchema = pyModelSchema("Order", [
  ["order_id", pyT.str],
  ["user_id", pyT.str],
  ["address", pyT.model(() => userAddressModel)],
  ["items", pyT.list(pyT.model(() => orderItemModel))],
  ["status", ORDER_STATUS],
  ["fulfillments", pyT.list(pyT.model(() => orderFulfilmentModel))],
  ["payment_history", pyT.list(pyT.model(() => orderPaymentModel))],
  ["cancel_reason", pyT.optional(CANCEL_REASON), () => null],
  ["exchange_items", pyT.optional(pyT.list(pyT.str)), () => null],
  ["exchange_new_items", pyT.optional(pyT.list(pyT.str)), () => null],
  ["exchange_payment_method_id", pyT.optional(pyT.str), () => null],
  ["exchange_price_difference", pyT.optional(pyT.float), () => null],
  ["return_items", pyT.optional(pyT.list(pyT.str)), () => null],
  ["return_payment_method_id", pyT.optional(pyT.str), () => null],
]);

export const retailDbModel: PyModelSchema = pyModelSchema(
  "RetailDB",
  [
    ["products", pyT.dict(pyT.model(() => productModel))],
    ["users", pyT.dict(pyT.model(() => userModel))],
    ["orders", pyT.dict(pyT.model(() => orderModel))],
  ],
  "forbid",
);
