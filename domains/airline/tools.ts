/**
 * The 14 τ-bench (v1) airline tools (τ-bench: tau_bench/envs/airline/tools/, one class's `invoke`
 * per tool; exception texts as tau_bench/envs/base.py, Env.step turns them into observations;
 * quirks in this folder's README), in registration (`ALL_TOOLS`, `tools_info.json`) order.
 *
 * Each tool is a literal reading of the original's behaviour, including its bugs, because the
 * benchmark's rewards compare database hashes: a "fixed" tool would change scores. Arguments arrive
 * unvalidated from the model, so every expression on them is the matching `py*` operation of
 * `src/value`, which reproduces Python's semantics and error texts.
 *
 * Database rule: `db.get` may return the shared base record, so every change goes through
 * `db.mutable(collection, key)` (copy-on-write; `pyCollectionGetMutable`) and only what that
 * returns is modified.
 *
 * Aliasing: the original stores the caller's `passengers` / `payment_methods` lists (and scalars
 * such as `amount`) in the database (`BookReservation.invoke`,
 * `UpdateReservationPassengers.invoke`). Write tools here deep-copy their arguments on entry, so no
 * argument object (e.g. a task's ground-truth kwargs, replayed many times) is ever shared with an
 * episode's database. Within one call this is indistinguishable from the original.
 *
 * `calculate`, `think` and `transfer_to_human_agents` are the implementations shared with the
 * retail domain (`domains/common`).
 */
import type { EpisodeDatabase } from "../../src/suites/tau-bench/engine/database.ts";
import type { ToolImplementation } from "../../src/suites/tau-bench/engine/tool.ts";
import {
  pyAdd,
  pyAppend,
  pyCollectionContains,
  pyCollectionGet,
  pyCollectionGetMutable,
  pyContains,
  pyDeepCopy,
  pyDelItem,
  pyEquals,
  pyExtend,
  pyGetItem,
  pyGreaterThan,
  pyIAdd,
  pyInt,
  pyISub,
  pyIterate,
  pyJsonDumps,
  pyLen,
  pyLessThan,
  pyMax,
  pyMul,
  pyNeg,
  pyNotEquals,
  pySetItem,
  pySlice,
  pyStr,
  pySub,
  pySum,
  type PyDict,
  type PyValue,
} from "../../src/value/index.ts";
import { calculateTool, thinkTool, transferToHumanAgentsTool } from "../common/index.ts";

type Args = Readonly<Record<string, PyValue>>;

/** The fixed creation time of every booking (the wiki's "now"). */
const CREATED_AT = "2024-05-15T15:00:00";

/**
 * Booking ids in the order they are tried; a fourth booking overwrites the last one (quirk #23;
 * τ-bench: book_reservation.py, BookReservation.invoke).
 */
const NEW_RESERVATION_IDS = ["HATHAT", "HATHAU", "HATHAV"] as const;

/**
 * `send_certificate` tries these ids in order and returns None once all exist (quirk #5; τ-bench:
 * send_certificate.py, SendCertificate.invoke).
 */
const CERTIFICATE_NUMBERS = [3221322, 3221323, 3221324] as const;

const AIRPORTS: ReadonlyArray<readonly [string, string]> = [
  ["SFO", "San Francisco"],
  ["JFK", "New York"],
  ["LAX", "Los Angeles"],
  ["ORD", "Chicago"],
  ["DFW", "Dallas"],
  ["DEN", "Denver"],
  ["SEA", "Seattle"],
  ["ATL", "Atlanta"],
  ["MIA", "Miami"],
  ["BOS", "Boston"],
  ["PHX", "Phoenix"],
  ["IAH", "Houston"],
  ["LAS", "Las Vegas"],
  ["MCO", "Orlando"],
  ["EWR", "Newark"],
  ["CLT", "Charlotte"],
  ["MSP", "Minneapolis"],
  ["DTW", "Detroit"],
  ["PHL", "Philadelphia"],
  ["LGA", "LaGuardia"],
];

/** Deep-copies the arguments of a write tool so nothing the caller owns ends up in the database. */
function ownArgs(args: Args): Record<string, PyValue> {
  const copy: Record<string, PyValue> = Object.create(null);
  for (const key of Object.keys(args)) copy[key] = pyDeepCopy(args[key]);
  return copy;
}

/** `{k: v for k, v in flight.items() if k != "dates"}` followed by `.update(date_record)`. */
function flightWithDate(flight: PyValue, dateRecord: PyValue): PyDict {
  const result: PyDict = new Map();
  for (const key of pyIterate(flight)) {
    if (key !== "dates") result.set(key as string, pyGetItem(flight, key));
  }
  for (const key of pyIterate(dateRecord)) result.set(key as string, pyGetItem(dateRecord, key));
  return result;
}

/**
 * The four flight checks shared by booking and flight changes, in their order, each returning the
 * original's error text; on success the segment gets `price`, `origin` and `destination`.
 */
function priceNewSegment(db: EpisodeDatabase, segment: PyValue, cabin: PyValue, passengers: PyValue): string | undefined {
  const flightNumber = pyGetItem(segment, "flight_number");
  if (!pyCollectionContains(db, "flights", flightNumber)) return `Error: flight ${pyStr(flightNumber)} not found`;
  const flightData = pyCollectionGet(db, "flights", flightNumber);
  if (!pyContains(pyGetItem(flightData, "dates"), pyGetItem(segment, "date"))) {
    return `Error: flight ${pyStr(flightNumber)} not found on date ${pyStr(pyGetItem(segment, "date"))}`;
  }
  const dateData = pyGetItem(pyGetItem(flightData, "dates"), pyGetItem(segment, "date"));
  if (pyNotEquals(pyGetItem(dateData, "status"), "available")) {
    return `Error: flight ${pyStr(flightNumber)} not available on date ${pyStr(pyGetItem(segment, "date"))}`;
  }
  if (pyLessThan(pyGetItem(pyGetItem(dateData, "available_seats"), cabin), pyLen(passengers))) {
    return `Error: not enough seats on flight ${pyStr(flightNumber)}`;
  }
  pySetItem(segment, "price", pyGetItem(pyGetItem(dateData, "prices"), cabin));
  pySetItem(segment, "origin", pyGetItem(flightData, "origin"));
  pySetItem(segment, "destination", pyGetItem(flightData, "destination"));
  return undefined;
}

/**
 * The payment-method checks of the two update tools (certificates refused, gift card balance),
 * returning the error text or undefined.
 */
function checkUpdatePayment(method: PyValue, total: PyValue): string | undefined {
  if (pyEquals(pyGetItem(method, "source"), "certificate")) return "Error: certificate cannot be used to update reservation";
  if (pyEquals(pyGetItem(method, "source"), "gift_card") && pyLessThan(pyGetItem(method, "amount"), total)) {
    return "Error: gift card balance is not enough";
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

/**
 * book_reservation: checks the user, picks HATHAT/HATHAU/HATHAV, prices each segment (no seat
 * inventory change), checks payments one entry at a time, then charges gift cards, deletes used
 * certificates (a repeated certificate raises KeyError after partial mutation) and stores the booking.
 */
const bookReservation: ToolImplementation = {
  name: "book_reservation",
  className: "BookReservation",
  parameters: ["user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers", "payment_methods", "total_baggages", "nonfree_baggages", "insurance"],
  kind: "write",
  invoke(db, rawArgs) {
    const args = ownArgs(rawArgs);
    const { user_id, cabin, passengers, payment_methods, nonfree_baggages, insurance } = args;
    if (!pyCollectionContains(db, "users", user_id)) return "Error: user not found";
    const user = pyCollectionGet(db, "users", user_id);

    let reservationId: string = NEW_RESERVATION_IDS[0];
    if (db.has("reservations", reservationId)) {
      reservationId = NEW_RESERVATION_IDS[1];
      if (db.has("reservations", reservationId)) reservationId = NEW_RESERVATION_IDS[2];
    }
    const reservation: PyDict = new Map<string, PyValue>([
      ["reservation_id", reservationId],
      ["user_id", user_id],
      ["origin", args.origin],
      ["destination", args.destination],
      ["flight_type", args.flight_type],
      ["cabin", cabin],
      ["flights", pyDeepCopy(args.flights)],
      ["passengers", passengers],
      ["payment_history", payment_methods],
      ["created_at", CREATED_AT],
      ["total_baggages", args.total_baggages],
      ["nonfree_baggages", nonfree_baggages],
      ["insurance", insurance],
    ]);

    let total: PyValue = 0;
    for (const segment of pyIterate(reservation.get("flights"))) {
      const failure = priceNewSegment(db, segment, cabin, passengers);
      if (failure !== undefined) return failure;
      total = pyIAdd(total, pyMul(pyGetItem(segment, "price"), pyLen(passengers)));
    }
    if (pyEquals(insurance, "yes")) total = pyIAdd(total, pyMul(30, pyLen(passengers)));
    total = pyIAdd(total, pyMul(50, nonfree_baggages));

    const methods = pyGetItem(user, "payment_methods");
    for (const payment of pyIterate(payment_methods)) {
      const paymentId = pyGetItem(payment, "payment_id");
      const amount = pyGetItem(payment, "amount");
      if (!pyContains(methods, paymentId)) return `Error: payment method ${pyStr(paymentId)} not found`;
      if (pyContains(["gift_card", "certificate"], pyGetItem(pyGetItem(methods, paymentId), "source"))) {
        if (pyLessThan(pyGetItem(pyGetItem(methods, paymentId), "amount"), amount)) {
          return `Error: not enough balance in payment method ${pyStr(paymentId)}`;
        }
      }
    }
    const paid = pySum(pyIterate(payment_methods).map((payment) => pyGetItem(payment, "amount")));
    if (pyNotEquals(paid, total)) {
      return `Error: payment amount does not add up, total price is ${pyStr(total)}, but paid ${pyStr(paid)}`;
    }

    // Effects. The user is copied into the episode first; a KeyError below keeps earlier changes.
    const owner = pyCollectionGetMutable(db, "users", user_id);
    const ownerMethods = pyGetItem(owner, "payment_methods");
    for (const payment of pyIterate(payment_methods)) {
      const paymentId = pyGetItem(payment, "payment_id");
      const amount = pyGetItem(payment, "amount");
      if (pyEquals(pyGetItem(pyGetItem(ownerMethods, paymentId), "source"), "gift_card")) {
        const method = pyGetItem(ownerMethods, paymentId);
        pySetItem(method, "amount", pyISub(pyGetItem(method, "amount"), amount));
      } else if (pyEquals(pyGetItem(pyGetItem(ownerMethods, paymentId), "source"), "certificate")) {
        pyDelItem(ownerMethods, paymentId);
      }
    }
    db.set("reservations", reservationId, reservation);
    pyAppend(pyGetItem(owner, "reservations"), reservationId);
    return pyJsonDumps(reservation);
  },
};

/**
 * cancel_reservation: appends a negated copy of every current payment entry and sets
 * `status = "cancelled"`. No refund to balances, no status check: cancelling twice negates again.
 */
const cancelReservation: ToolImplementation = {
  name: "cancel_reservation",
  className: "CancelReservation",
  parameters: ["reservation_id"],
  kind: "write",
  invoke(db, rawArgs) {
    const { reservation_id } = ownArgs(rawArgs);
    if (!pyCollectionContains(db, "reservations", reservation_id)) return "Error: reservation not found";
    const reservation = pyCollectionGetMutable(db, "reservations", reservation_id);
    const refunds: PyValue[] = [];
    for (const payment of pyIterate(pyGetItem(reservation, "payment_history"))) {
      const paymentId = pyGetItem(payment, "payment_id");
      refunds.push(
        new Map<string, PyValue>([
          ["payment_id", paymentId],
          ["amount", pyNeg(pyGetItem(payment, "amount"))],
        ]),
      );
    }
    pyExtend(pyGetItem(reservation, "payment_history"), refunds);
    pySetItem(reservation, "status", "cancelled");
    return pyJsonDumps(reservation);
  },
};

/**
 * get_reservation_details: the record as JSON; a miss says `Error: user not found` (quirk #4;
 * τ-bench: get_reservation_details.py, GetReservationDetails.invoke).
 */
const getReservationDetails: ToolImplementation = {
  name: "get_reservation_details",
  className: "GetReservationDetails",
  parameters: ["reservation_id"],
  kind: "read",
  invoke(db, { reservation_id }) {
    if (pyCollectionContains(db, "reservations", reservation_id)) {
      return pyJsonDumps(pyCollectionGet(db, "reservations", reservation_id));
    }
    return "Error: user not found";
  },
};

/** get_user_details: the user record as JSON, or `Error: user not found`. */
const getUserDetails: ToolImplementation = {
  name: "get_user_details",
  className: "GetUserDetails",
  parameters: ["user_id"],
  kind: "read",
  invoke(db, { user_id }) {
    if (pyCollectionContains(db, "users", user_id)) return pyJsonDumps(pyCollectionGet(db, "users", user_id));
    return "Error: user not found";
  },
};

/** list_all_airports: a fixed 20-entry map (it does not read the data). */
const listAllAirports: ToolImplementation = {
  name: "list_all_airports",
  className: "ListAllAirports",
  parameters: [],
  kind: "read",
  invoke() {
    return pyJsonDumps(new Map<string, PyValue>(AIRPORTS.map(([code, city]) => [code, city])));
  },
};

/** search_direct_flight: available direct flights on that date, in file order, fields + date record. */
const searchDirectFlight: ToolImplementation = {
  name: "search_direct_flight",
  className: "SearchDirectFlight",
  parameters: ["origin", "destination", "date"],
  kind: "read",
  invoke(db, { origin, destination, date }) {
    const results: PyValue[] = [];
    for (const [, flight] of db.entries("flights")) {
      if (pyEquals(pyGetItem(flight, "origin"), origin) && pyEquals(pyGetItem(flight, "destination"), destination)) {
        const dates = pyGetItem(flight, "dates");
        if (pyContains(dates, date) && pyEquals(pyGetItem(pyGetItem(dates, date), "status"), "available")) {
          results.push(flightWithDate(flight, pyGetItem(dates, date)));
        }
      }
    }
    return pyJsonDumps(results);
  },
};

/**
 * search_onestop_flight, bugs included (quirk #3; τ-bench: search_onestop_flight.py,
 * SearchOnestopFlight.invoke): the second day is `"2024-05-" + (day + 1)` without padding, times
 * compare as strings, and the second leg shows the first day's record.
 */
const searchOnestopFlight: ToolImplementation = {
  name: "search_onestop_flight",
  className: "SearchOnestopFlight",
  parameters: ["origin", "destination", "date"],
  kind: "read",
  invoke(db, { origin, destination, date }) {
    const results: PyValue[] = [];
    for (const [, flight1] of db.entries("flights")) {
      if (!pyEquals(pyGetItem(flight1, "origin"), origin)) continue;
      for (const [, flight2] of db.entries("flights")) {
        if (!(pyEquals(pyGetItem(flight2, "destination"), destination) && pyEquals(pyGetItem(flight1, "destination"), pyGetItem(flight2, "origin")))) {
          continue;
        }
        const date2 = pyContains(pyGetItem(flight1, "scheduled_arrival_time_est"), "+1") ? `2024-05-${pyStr(pyAdd(pyInt(pySlice(date, -2)), 1))}` : date;
        if (pyGreaterThan(pyGetItem(flight1, "scheduled_arrival_time_est"), pyGetItem(flight2, "scheduled_departure_time_est"))) continue;
        const dates1 = pyGetItem(flight1, "dates");
        const dates2 = pyGetItem(flight2, "dates");
        if (
          pyContains(dates1, date) &&
          pyContains(dates2, date2) &&
          pyEquals(pyGetItem(pyGetItem(dates1, date), "status"), "available") &&
          pyEquals(pyGetItem(pyGetItem(dates2, date2), "status"), "available")
        ) {
          const result1 = flightWithDate(flight1, pyGetItem(dates1, date));
          pySetItem(result1, "date", date);
          const result2 = flightWithDate(flight2, pyGetItem(dates2, date));
          pySetItem(result2, "date", date2);
          results.push([result1, result2]);
        }
      }
    }
    return pyJsonDumps(results);
  },
};

/**
 * send_certificate: adds the first free of three fixed certificate ids. When all three exist it
 * returns None (`null`), which `invokeTool` turns into the escaping ValidationError (quirk #5;
 * τ-bench: SendCertificate.invoke, then pydantic in tau_bench/envs/base.py, Env.step).
 */
const sendCertificate: ToolImplementation = {
  name: "send_certificate",
  className: "SendCertificate",
  parameters: ["user_id", "amount"],
  kind: "write",
  invoke(db, rawArgs) {
    const { user_id, amount } = ownArgs(rawArgs);
    if (!pyCollectionContains(db, "users", user_id)) return "Error: user not found";
    const user = pyCollectionGetMutable(db, "users", user_id);
    for (const number of CERTIFICATE_NUMBERS) {
      const paymentId = `certificate_${number}`;
      if (!pyContains(pyGetItem(user, "payment_methods"), paymentId)) {
        pySetItem(
          pyGetItem(user, "payment_methods"),
          paymentId,
          new Map<string, PyValue>([
            ["source", "certificate"],
            ["amount", amount],
            ["id", paymentId],
          ]),
        );
        return `Certificate ${paymentId} added to user ${pyStr(user_id)} with amount ${pyStr(amount)}.`;
      }
    }
    return null;
  },
};

/**
 * update_reservation_baggages: charges 50 per extra non-free bag (no refund on a decrease), refuses
 * certificates, charges a gift card, and logs a payment only when the charge is non-zero.
 */
const updateReservationBaggages: ToolImplementation = {
  name: "update_reservation_baggages",
  className: "UpdateReservationBaggages",
  parameters: ["reservation_id", "total_baggages", "nonfree_baggages", "payment_id"],
  kind: "write",
  invoke(db, rawArgs) {
    const { reservation_id, total_baggages, nonfree_baggages, payment_id } = ownArgs(rawArgs);
    if (!pyCollectionContains(db, "reservations", reservation_id)) return "Error: reservation not found";
    const reservation = pyCollectionGetMutable(db, "reservations", reservation_id);
    const total = pyMul(50, pyMax(0, pySub(nonfree_baggages, pyGetItem(reservation, "nonfree_baggages"))));
    const ownerId = pyGetItem(reservation, "user_id");
    if (!pyContains(pyGetItem(pyCollectionGet(db, "users", ownerId), "payment_methods"), payment_id)) {
      return "Error: payment method not found";
    }
    const method = pyGetItem(pyGetItem(pyCollectionGet(db, "users", ownerId), "payment_methods"), payment_id);
    const refusal = checkUpdatePayment(method, total);
    if (refusal) return refusal;

    pySetItem(reservation, "total_baggages", total_baggages);
    pySetItem(reservation, "nonfree_baggages", nonfree_baggages);
    if (pyEquals(pyGetItem(method, "source"), "gift_card")) chargeGiftCard(db, ownerId, payment_id, total);
    if (pyNotEquals(total, 0)) {
      pyAppend(
        pyGetItem(reservation, "payment_history"),
        new Map<string, PyValue>([
          ["payment_id", payment_id],
          ["amount", total],
        ]),
      );
    }
    return pyJsonDumps(reservation);
  },
};

/** `payment_method["amount"] -= total` on the owner's record, copied into the episode first. */
function chargeGiftCard(db: EpisodeDatabase, ownerId: PyValue, paymentId: PyValue, total: PyValue): void {
  const method = pyGetItem(pyGetItem(pyCollectionGetMutable(db, "users", ownerId), "payment_methods"), paymentId);
  pySetItem(method, "amount", pyISub(pyGetItem(method, "amount"), total));
}

/**
 * update_reservation_flights: keeps the old price of an unchanged segment only when the requested
 * cabin equals the reservation's cabin, prices the others at today's fare, charges (or refunds) the
 * difference, and does NOT update `reservation.cabin` (quirk #2; τ-bench:
 * update_reservation_flights.py, UpdateReservationFlights.invoke).
 */
const updateReservationFlights: ToolImplementation = {
  name: "update_reservation_flights",
  className: "UpdateReservationFlights",
  parameters: ["reservation_id", "cabin", "flights", "payment_id"],
  kind: "write",
  invoke(db, rawArgs) {
    const { reservation_id, cabin, flights, payment_id } = ownArgs(rawArgs);
    if (!pyCollectionContains(db, "reservations", reservation_id)) return "Error: reservation not found";
    const reservation = pyCollectionGetMutable(db, "reservations", reservation_id);
    let total: PyValue = 0;
    const newFlights = pyDeepCopy(flights);
    for (const segment of pyIterate(newFlights)) {
      const same = pyIterate(pyGetItem(reservation, "flights")).filter(
        (old) =>
          pyEquals(pyGetItem(old, "flight_number"), pyGetItem(segment, "flight_number")) &&
          pyEquals(pyGetItem(old, "date"), pyGetItem(segment, "date")) &&
          pyEquals(cabin, pyGetItem(reservation, "cabin")),
      );
      if (same.length > 0) {
        const kept = same[0];
        total = pyIAdd(total, pyMul(pyGetItem(kept, "price"), pyLen(pyGetItem(reservation, "passengers"))));
        pySetItem(segment, "price", pyGetItem(kept, "price"));
        pySetItem(segment, "origin", pyGetItem(kept, "origin"));
        pySetItem(segment, "destination", pyGetItem(kept, "destination"));
        continue;
      }
      const failure = priceNewSegment(db, segment, cabin, pyGetItem(reservation, "passengers"));
      if (failure !== undefined) return failure;
      total = pyIAdd(total, pyMul(pyGetItem(segment, "price"), pyLen(pyGetItem(reservation, "passengers"))));
    }
    const oldPrices = pySum(pyIterate(pyGetItem(reservation, "flights")).map((old) => pyGetItem(old, "price")));
    total = pyISub(total, pyMul(oldPrices, pyLen(pyGetItem(reservation, "passengers"))));

    const ownerId = pyGetItem(reservation, "user_id");
    if (!pyContains(pyGetItem(pyCollectionGet(db, "users", ownerId), "payment_methods"), payment_id)) {
      return "Error: payment method not found";
    }
    const method = pyGetItem(pyGetItem(pyCollectionGet(db, "users", ownerId), "payment_methods"), payment_id);
    const refusal = checkUpdatePayment(method, total);
    if (refusal) return refusal;

    if (pyEquals(pyGetItem(method, "source"), "gift_card")) chargeGiftCard(db, ownerId, payment_id, total);
    pySetItem(reservation, "flights", newFlights);
    if (pyNotEquals(total, 0)) {
      pyAppend(
        pyGetItem(reservation, "payment_history"),
        new Map<string, PyValue>([
          ["payment_id", payment_id],
          ["amount", total],
        ]),
      );
    }
    return pyJsonDumps(reservation);
  },
};

/** update_reservation_passengers: replaces the list when the count matches (no other validation). */
const updateReservationPassengers: ToolImplementation = {
  name: "update_reservation_passengers",
  className: "UpdateReservationPassengers",
  parameters: ["reservation_id", "passengers"],
  kind: "write",
  invoke(db, rawArgs) {
    const { reservation_id, passengers } = ownArgs(rawArgs);
    if (!pyCollectionContains(db, "reservations", reservation_id)) return "Error: reservation not found";
    const current = pyCollectionGet(db, "reservations", reservation_id);
    if (pyNotEquals(pyLen(passengers), pyLen(pyGetItem(current, "passengers")))) return "Error: number of passengers does not match";
    const reservation = pyCollectionGetMutable(db, "reservations", reservation_id);
    pySetItem(reservation, "passengers", passengers);
    return pyJsonDumps(reservation);
  },
};

/** The 14 airline tools in registration (`tools_info.json`) order: schemas and reports follow it. */
export const airlineTools: readonly ToolImplementation[] = Object.freeze([
  bookReservation,
  calculateTool,
  cancelReservation,
  getReservationDetails,
  getUserDetails,
  listAllAirports,
  searchDirectFlight,
  searchOnestopFlight,
  sendCertificate,
  thinkTool,
  transferToHumanAgentsTool,
  updateReservationBaggages,
  updateReservationFlights,
  updateReservationPassengers,
]);
