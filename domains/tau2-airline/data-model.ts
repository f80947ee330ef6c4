/**
 * The τ² airline domain's pydantic models (τ² `domains/airline/data_model.py`), field order as
 * pydantic lays it out: inherited fields first, a field re-declared in a subclass keeps its
 * inherited place (`GiftCard` dumps `source, id, amount`). Types decide the coercion that reaches
 * results and hashes: `Payment.amount` and prices are `int` (`100.0` becomes `100`), gift card and
 * certificate balances are `float` (`100` becomes `100.0`). Every model ignores extra keys except
 * `FlightDB`, which (as τ²'s `DB`) forbids them.
 */
import { type PyModelSchema, pyModelSchema, pyT } from "../../src/value/index.ts";

export const FLIGHT_TYPE = pyT.literal("round_trip", "one_way");
export const CABIN_CLASS = pyT.literal("business", "economy", "basic_economy");
export const INSURANCE = pyT.literal("yes", "no");
export const MEMBERSHIP_LEVEL = pyT.literal("gold", "silver", "regular");

export const airportCodeModel: PyModelSchema = pyModelSchema("AirportCode", [
  ["iata", pyT.str],
  ["city", pyT.str],
]);

export const nameModel: PyModelSchema = pyModelSchema("Name", [
  ["first_name", pyT.str],
  ["last_name", pyT.str],
]);

export const addressModel: PyModelSchema = pyModelSchema("Address", [
  ["address1", pyT.str],
  ["address2", pyT.optional(pyT.str), () => null],
  ["city", pyT.str],
  ["country", pyT.str],
  ["state", pyT.str],
  ["zip", pyT.str],
]);

export const paymentModel: PyModelSchema = pyModelSchema("Payment", [
  ["payment_id", pyT.str],
  ["amount", pyT.int],
]);

export const creditCardModel: PyModelSchema = pyModelSchema("CreditCard", [
  ["source", pyT.literal("credit_card")],
  ["id", pyT.str],
  ["brand", pyT.str],
  ["last_four", pyT.str],
]);

export const giftCardModel: PyModelSchema = pyModelSchema("GiftCard", [
  ["source", pyT.literal("gift_card")],
  ["id", pyT.str],
  ["amount", pyT.float],
]);

export const certificateModel: PyModelSchema = pyModelSchema("Certificate", [
  ["source", pyT.literal("certificate")],
  ["id", pyT.str],
  ["amount", pyT.float],
]);

/** `PaymentMethod = Union[CreditCard, GiftCard, Certificate]`; the `source` literal tells them apart. */
export const PAYMENT_METHOD = pyT.union(
  pyT.model(() => creditCardModel),
  pyT.model(() => giftCardModel),
  pyT.model(() => certificateModel),
);

export const passengerModel: PyModelSchema = pyModelSchema("Passenger", [
  ["first_name", pyT.str],
  ["last_name", pyT.str],
  ["dob", pyT.str],
]);

/** `dict[CabinClass, int]` (seat counts and prices); the keys in the data are all valid cabins. */
const PER_CABIN = pyT.dict(pyT.int);

export const flightDateStatusAvailableModel: PyModelSchema = pyModelSchema("FlightDateStatusAvailable", [
  ["status", pyT.literal("available")],
  ["available_seats", PER_CABIN],
  ["prices", PER_CABIN],
]);

export const flightDataStatusOnTimeModel: PyModelSchema = pyModelSchema("FlightDataStatusOnTime", [
  ["status", pyT.literal("on time")],
  ["estimated_departure_time_est", pyT.str],
  ["estimated_arrival_time_est", pyT.str],
]);

export const flightDataStatusFlyingModel: PyModelSchema = pyModelSchema("FlightDataStatusFlying", [
  ["status", pyT.literal("flying")],
  ["actual_departure_time_est", pyT.str],
  ["estimated_arrival_time_est", pyT.str],
]);

export const flightDateStatusLandedModel: PyModelSchema = pyModelSchema("FlightDateStatusLanded", [
  ["status", pyT.literal("landed")],
  ["actual_departure_time_est", pyT.str],
  ["actual_arrival_time_est", pyT.str],
]);

export const flightDateStatusCancelledModel: PyModelSchema = pyModelSchema("FlightDateStatusCancelled", [["status", pyT.literal("cancelled")]]);

export const flightDateStatusDelayedModel: PyModelSchema = pyModelSchema("FlightDateStatusDelayed", [
  ["status", pyT.literal("delayed")],
  ["estimated_departure_time_est", pyT.str],
  ["estimated_arrival_time_est", pyT.str],
]);

/** `FlightDateStatus`, in the original's union order; the `status` literal tells them apart. */
export const FLIGHT_DATE_STATUS = pyT.union(
  pyT.model(() => flightDateStatusAvailableModel),
  pyT.model(() => flightDateStatusLandedModel),
  pyT.model(() => flightDateStatusCancelledModel),
  pyT.model(() => flightDateStatusDelayedModel),
  pyT.model(() => flightDataStatusFlyingModel),
  pyT.model(() => flightDataStatusOnTimeModel),
);

export const flightModel: PyModelSchema = pyModelSchema("Flight", [
  ["flight_number", pyT.str],
  ["origin", pyT.str],
  ["destination", pyT.str],
  ["scheduled_departure_time_est", pyT.str],
  ["scheduled_arrival_time_est", pyT.str],
  ["dates", pyT.dict(FLIGHT_DATE_STATUS)],
]);

export const directFlightModel: PyModelSchema = pyModelSchema("DirectFlight", [
  ["flight_number", pyT.str],
  ["origin", pyT.str],
  ["destination", pyT.str],
  ["status", pyT.literal("available")],
  ["scheduled_departure_time_est", pyT.str],
  ["scheduled_arrival_time_est", pyT.str],
  ["date", pyT.optional(pyT.str), () => null],
  ["available_seats", PER_CABIN],
  ["prices", PER_CABIN],
]);

export const reservationFlightModel: PyModelSchema = pyModelSchema("ReservationFlight", [
  ["flight_number", pyT.str],
  ["origin", pyT.str],
  ["destination", pyT.str],
  ["date", pyT.str],
  ["price", pyT.int],
]);

export const flightInfoModel: PyModelSchema = pyModelSchema("FlightInfo", [
  ["flight_number", pyT.str],
  ["date", pyT.str],
]);

export const userModel: PyModelSchema = pyModelSchema("User", [
  ["user_id", pyT.str],
  ["name", pyT.model(() => nameModel)],
  ["address", pyT.model(() => addressModel)],
  ["email", pyT.str],
  ["dob", pyT.str],
  ["payment_methods", pyT.dict(PAYMENT_METHOD)],
  ["saved_passengers", pyT.list(pyT.model(() => passengerModel))],
  ["membership", MEMBERSHIP_LEVEL],
  ["reservations", pyT.list(pyT.str)],
]);

export const reservationModel: PyModelSchema = pyModelSchema("Reservation", [
  ["reservation_id", pyT.str],
  ["user_id", pyT.str],
  ["origin", pyT.str],
  ["destination", pyT.str],
  ["flight_type", FLIGHT_TYPE],
  ["cabin", CABIN_CLASS],
  ["flights", pyT.list(pyT.model(() => reservationFlightModel))],
  ["passengers", pyT.list(pyT.model(() => passengerModel))],
  ["payment_history", pyT.list(pyT.model(() => paymentModel))],
  ["created_at", pyT.str],
  ["total_baggages", pyT.int],
  ["nonfree_baggages", pyT.int],
  ["insurance", INSURANCE],
  ["status", pyT.optional(pyT.literal("cancelled")), () => null],
]);

export const flightDbModel: PyModelSchema = pyModelSchema(
  "FlightDB",
  [
    ["flights", pyT.dict(pyT.model(() => flightModel))],
    ["users", pyT.dict(pyT.model(() => userModel))],
    ["reservations", pyT.dict(pyT.model(() => reservationModel))],
  ],
  "forbid",
);
