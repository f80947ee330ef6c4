/**
 * The private helpers of τ²'s `AirlineTools` (`_get_user`, `_get_flight_instance`,
 * `_search_direct_flight`, `_payment_for_update`, the deterministic ids and "now"), over the
 * database model. Every lookup is a dict lookup as in the original; only the flight search walks
 * the 300 flights, as the original does.
 */
import { airlineMessages } from "./messages.ts";
import {
  PyModel,
  type PyDict,
  type PyModelSchema,
  type PyValue,
  pyAttributeError,
  pyContains,
  pyEquals,
  pyGetAttr,
  pyGetItem,
  pyGreaterOrEqual,
  pyIterate,
  pyISub,
  pyLessThan,
  pyModelValidate,
  pyNotEquals,
  pyStr,
  pyValueError,
} from "../../src/value/index.ts";
import { directFlightModel, flightDateStatusAvailableModel, paymentModel } from "./data-model.ts";

/**
 * `_get_datetime()`: the domain's fixed "now" (τ²: src/tau2/domains/airline/tools.py,
 * AirlineTools._get_datetime), so gold and predicted runs hash alike.
 */
export const AIRLINE_NOW = "2024-05-15T15:00:00";

/** `_get_new_reservation_id()` candidates: the first one not in use is taken. */
export const NEW_RESERVATION_IDS: readonly string[] = ["HATHAT", "HATHAU", "HATHAV"];

/** `_get_new_payment_id()`: the numbers of new certificates (`certificate_3221322`, …). */
export const NEW_PAYMENT_NUMBERS: readonly number[] = [3221322, 3221323, 3221324];

/** `obj.name` for any value: a model's field, or Python's AttributeError naming the type. */
export function attr(value: PyValue, name: string): PyValue {
  if (value instanceof PyModel) return pyGetAttr(value, name);
  throw pyAttributeError(value, name);
}

/** `isinstance(value, Model)`. */
export function isModelOf(value: PyValue, schema: PyModelSchema): boolean {
  return value instanceof PyModel && value.schema === schema;
}

/**
 * The `FlightInfo | dict` idiom: when every element of the argument is a dict, build a model from
 * each (`Model(**item)`, pydantic's coercion and errors); otherwise the argument stays as given, and
 * whatever the tool then does with it fails the Python way.
 */
export function modelsFromDicts(values: PyValue, schema: PyModelSchema): PyValue {
  const items = pyIterate(values);
  if (!items.every((item) => item instanceof Map && !(item instanceof PyModel))) return values;
  return items.map((item) => pyModelValidate(schema, item));
}

function table(db: PyModel, name: string): PyDict {
  return pyGetAttr(db, name) as PyDict;
}

function lookUp(db: PyModel, name: string, key: PyValue, missing: () => string): PyModel {
  const records = table(db, name);
  if (!pyContains(records, key)) throw pyValueError(missing());
  return pyGetItem(records, key) as PyModel;
}

/** `_get_user`. */
export function getUser(db: PyModel, userId: PyValue): PyModel {
  return lookUp(db, "users", userId, () => airlineMessages.format("userNotFound", { user_id: pyStr(userId) }));
}

/** `_get_reservation`. */
export function getReservation(db: PyModel, reservationId: PyValue): PyModel {
  return lookUp(db, "reservations", reservationId, () => airlineMessages.format("reservationNotFound", { reservation_id: pyStr(reservationId) }));
}

/** `_get_flight`. */
export function getFlight(db: PyModel, flightNumber: PyValue): PyModel {
  return lookUp(db, "flights", flightNumber, () => airlineMessages.format("flightNotFound", { flight_number: pyStr(flightNumber) }));
}

/** `_get_flight_instance`: the flight's status object on a date. */
export function getFlightInstance(db: PyModel, flightNumber: PyValue, date: PyValue): PyModel {
  const dates = attr(getFlight(db, flightNumber), "dates");
  if (!pyContains(dates, date)) throw pyValueError(airlineMessages.format("flightNotOnDate", { flight_number: pyStr(flightNumber), date: pyStr(date) }));
  return pyGetItem(dates, date) as PyModel;
}

/** The "available" check the write tools make before using a flight date. */
export function requireAvailable(instance: PyModel, flightNumber: PyValue, date: PyValue): void {
  if (!isModelOf(instance, flightDateStatusAvailableModel))
    throw pyValueError(airlineMessages.format("flightUnavailableOnDate", { flight_number: pyStr(flightNumber), "flight_info.date": pyStr(date) }));
}

/** `_get_new_reservation_id`. */
export function newReservationId(db: PyModel): string {
  const reservations = table(db, "reservations");
  for (const id of NEW_RESERVATION_IDS) if (!pyContains(reservations, id)) return id;
  throw pyValueError(airlineMessages.text("reservationIdsExhausted"));
}

/** `_search_direct_flight(date, origin, destination, leave_after)`: `null` filters nothing. */
export function searchDirectFlights(db: PyModel, date: PyValue, origin: PyValue, destination: PyValue, leaveAfter: PyValue): PyModel[] {
  const results: PyModel[] = [];
  for (const flight of table(db, "flights").values()) {
    if (!matches(flight as PyModel, date, origin, destination, leaveAfter)) continue;
    const instance = pyGetItem(attr(flight, "dates"), date);
    results.push(
      pyModelValidate(
        directFlightModel,
        new Map<string, PyValue>([
          ["flight_number", attr(flight, "flight_number")],
          ["origin", attr(flight, "origin")],
          ["destination", attr(flight, "destination")],
          ["status", "available"],
          ["scheduled_departure_time_est", attr(flight, "scheduled_departure_time_est")],
          ["scheduled_arrival_time_est", attr(flight, "scheduled_arrival_time_est")],
          ["available_seats", attr(instance, "available_seats")],
          ["prices", attr(instance, "prices")],
        ]),
      ),
    );
  }
  return results;
}

/** The original's `check`, its conditions in order and short-circuiting (a bad `date` only fails on a matching flight). */
function matches(flight: PyModel, date: PyValue, origin: PyValue, destination: PyValue, leaveAfter: PyValue): boolean {
  if (origin !== null && !pyEquals(attr(flight, "origin"), origin)) return false;
  if (destination !== null && !pyEquals(attr(flight, "destination"), destination)) return false;
  const dates = attr(flight, "dates");
  if (!pyContains(dates, date)) return false;
  if (!pyEquals(attr(pyGetItem(dates, date), "status"), "available")) return false;
  return leaveAfter === null || pyGreaterOrEqual(attr(flight, "scheduled_departure_time_est"), leaveAfter);
}

/**
 * `_payment_for_update`: checks the payment method (certificates refused, gift card balance), debits
 * a gift card, and returns the `Payment` to record, or null when the price is 0. The gift card is
 * debited before the `Payment` is built, so a price pydantic rejects still leaves the debit (as in τ²).
 */
export function paymentForUpdate(user: PyModel, paymentId: PyValue, totalPrice: PyValue): PyModel | null {
  const methods = attr(user, "payment_methods");
  if (!pyContains(methods, paymentId)) throw pyValueError(airlineMessages.text("updatePaymentNotFound"));
  const method = pyGetItem(methods, paymentId) as PyModel;
  const source = attr(method, "source");
  if (pyEquals(source, "certificate")) throw pyValueError(airlineMessages.text("certificateRefusedForUpdate"));
  if (pyEquals(source, "gift_card") && pyLessThan(attr(method, "amount"), totalPrice)) throw pyValueError(airlineMessages.text("giftCardShortForUpdate"));
  if (pyEquals(source, "gift_card")) method.set("amount", pyISub(attr(method, "amount"), totalPrice));
  if (!pyNotEquals(totalPrice, 0)) return null;
  return pyModelValidate(
    paymentModel,
    new Map<string, PyValue>([
      ["payment_id", paymentId],
      ["amount", totalPrice],
    ]),
  );
}
