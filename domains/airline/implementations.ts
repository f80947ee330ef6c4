/**
 * The eleven airline-specific τ-bench (v1) tools, written from the specification
 * (`docs/reference/tau-bench-v1.md` §6, quirks §13, exception texts Appendix C).
 *
 * Each tool is a literal reading of the original's behaviour, including its bugs, because the
 * benchmark's rewards compare database hashes: a "fixed" tool would change scores. Arguments arrive
 * unvalidated from the model, so every expression on them goes through `python-ops.ts`, which
 * reproduces Python's semantics and error texts.
 *
 * Database rule: `db.get` may return the shared base record, so every change goes through
 * `db.mutable(collection, key)` (copy-on-write) and only what that returns is modified.
 *
 * Aliasing: the original stores the caller's `passengers` / `payment_methods` lists (and scalars
 * such as `amount`) in the database. Write tools here deep-copy their arguments on entry, so no
 * argument object (e.g. a task's ground-truth kwargs, replayed many times) is ever shared with an
 * episode's database. Within one call this is indistinguishable from the original (spec §6.2 note).
 */
import type { EpisodeDatabase } from "../../src/engine/database.ts";
import type { ToolImplementation } from "../../src/engine/tool.ts";
import { deepCopy, pyJsonDumps, type PyDict, type PyValue } from "../../src/value/python-value.ts";
import {
  append,
  contains,
  delItem,
  eq,
  extend,
  fromCollection,
  getItem,
  gt,
  iadd,
  inCollection,
  isub,
  iterate,
  lastTwo,
  len,
  lt,
  maxZero,
  mul,
  mutableRecord,
  ne,
  neg,
  setItem,
  str,
  sum,
  sub,
  toInt,
  add,
} from "./python-ops.ts";

type Args = Readonly<Record<string, PyValue>>;

/** The fixed creation time of every booking (the wiki's "now"). */
const CREATED_AT = "2024-05-15T15:00:00";

/** Booking ids in the order they are tried; a fourth booking overwrites the last one (quirk §13 #23). */
const NEW_RESERVATION_IDS = ["HATHAT", "HATHAU", "HATHAV"] as const;

/** `send_certificate` tries these ids in order and returns None once all exist (quirk §13 #5). */
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
  for (const key of Object.keys(args)) copy[key] = deepCopy(args[key]);
  return copy;
}

/** `{k: v for k, v in flight.items() if k != "dates"}` followed by `.update(date_record)`. */
function flightWithDate(flight: PyValue, dateRecord: PyValue): PyDict {
  const result: PyDict = new Map();
  for (const key of iterate(flight)) {
    if (key !== "dates") result.set(key as string, getItem(flight, key));
  }
  for (const key of iterate(dateRecord)) result.set(key as string, getItem(dateRecord, key));
  return result;
}

/**
 * The four flight checks shared by booking and flight changes, in their order, each returning the
 * original's error text; on success the segment gets `price`, `origin` and `destination`.
 */
function priceNewSegment(db: EpisodeDatabase, segment: PyValue, cabin: PyValue, passengers: PyValue): string | undefined {
  const flightNumber = getItem(segment, "flight_number");
  if (!inCollection(db, "flights", flightNumber)) return `Error: flight ${str(flightNumber)} not found`;
  const flightData = fromCollection(db, "flights", flightNumber);
  if (!contains(getItem(flightData, "dates"), getItem(segment, "date"))) {
    return `Error: flight ${str(flightNumber)} not found on date ${str(getItem(segment, "date"))}`;
  }
  const dateData = getItem(getItem(flightData, "dates"), getItem(segment, "date"));
  if (ne(getItem(dateData, "status"), "available")) {
    return `Error: flight ${str(flightNumber)} not available on date ${str(getItem(segment, "date"))}`;
  }
  if (lt(getItem(getItem(dateData, "available_seats"), cabin), len(passengers))) {
    return `Error: not enough seats on flight ${str(flightNumber)}`;
  }
  setItem(segment, "price", getItem(getItem(dateData, "prices"), cabin));
  setItem(segment, "origin", getItem(flightData, "origin"));
  setItem(segment, "destination", getItem(flightData, "destination"));
  return undefined;
}

/**
 * The payment-method checks of the two update tools (certificates refused, gift card balance),
 * returning the error text or undefined.
 */
function checkUpdatePayment(method: PyValue, total: PyValue): string | undefined {
  if (eq(getItem(method, "source"), "certificate")) return "Error: certificate cannot be used to update reservation";
  if (eq(getItem(method, "source"), "gift_card") && lt(getItem(method, "amount"), total)) {
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
export const bookReservation: ToolImplementation = {
  name: "book_reservation",
  className: "BookReservation",
  parameters: [
    "user_id",
    "origin",
    "destination",
    "flight_type",
    "cabin",
    "flights",
    "passengers",
    "payment_methods",
    "total_baggages",
    "nonfree_baggages",
    "insurance",
  ],
  kind: "write",
  invoke(db, rawArgs) {
    const args = ownArgs(rawArgs);
    const { user_id, cabin, passengers, payment_methods, nonfree_baggages, insurance } = args;
    if (!inCollection(db, "users", user_id)) return "Error: user not found";
    const user = fromCollection(db, "users", user_id);

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
      ["flights", deepCopy(args.flights)],
      ["passengers", passengers],
      ["payment_history", payment_methods],
      ["created_at", CREATED_AT],
      ["total_baggages", args.total_baggages],
      ["nonfree_baggages", nonfree_baggages],
      ["insurance", insurance],
    ]);

    let total: PyValue = 0;
    for (const segment of iterate(reservation.get("flights"))) {
      const failure = priceNewSegment(db, segment, cabin, passengers);
      if (failure !== undefined) return failure;
      total = iadd(total, mul(getItem(segment, "price"), len(passengers)));
    }
    if (eq(insurance, "yes")) total = iadd(total, mul(30, len(passengers)));
    total = iadd(total, mul(50, nonfree_baggages));

    const methods = getItem(user, "payment_methods");
    for (const payment of iterate(payment_methods)) {
      const paymentId = getItem(payment, "payment_id");
      const amount = getItem(payment, "amount");
      if (!contains(methods, paymentId)) return `Error: payment method ${str(paymentId)} not found`;
      if (contains(["gift_card", "certificate"], getItem(getItem(methods, paymentId), "source"))) {
        if (lt(getItem(getItem(methods, paymentId), "amount"), amount)) {
          return `Error: not enough balance in payment method ${str(paymentId)}`;
        }
      }
    }
    const paid = sum(iterate(payment_methods).map((payment) => getItem(payment, "amount")));
    if (ne(paid, total)) {
      return `Error: payment amount does not add up, total price is ${str(total)}, but paid ${str(paid)}`;
    }

    // Effects. The user is copied into the episode first; a KeyError below keeps earlier changes.
    const owner = mutableRecord(db, "users", user_id);
    const ownerMethods = getItem(owner, "payment_methods");
    for (const payment of iterate(payment_methods)) {
      const paymentId = getItem(payment, "payment_id");
      const amount = getItem(payment, "amount");
      if (eq(getItem(getItem(ownerMethods, paymentId), "source"), "gift_card")) {
        const method = getItem(ownerMethods, paymentId);
        setItem(method, "amount", isub(getItem(method, "amount"), amount));
      } else if (eq(getItem(getItem(ownerMethods, paymentId), "source"), "certificate")) {
        delItem(ownerMethods, paymentId);
      }
    }
    db.set("reservations", reservationId, reservation);
    append(getItem(owner, "reservations"), reservationId);
    return pyJsonDumps(reservation);
  },
};

/**
 * cancel_reservation: appends a negated copy of every current payment entry and sets
 * `status = "cancelled"`. No refund to balances, no status check: cancelling twice negates again.
 */
export const cancelReservation: ToolImplementation = {
  name: "cancel_reservation",
  className: "CancelReservation",
  parameters: ["reservation_id"],
  kind: "write",
  invoke(db, rawArgs) {
    const { reservation_id } = ownArgs(rawArgs);
    if (!inCollection(db, "reservations", reservation_id)) return "Error: reservation not found";
    const reservation = mutableRecord(db, "reservations", reservation_id);
    const refunds: PyValue[] = [];
    for (const payment of iterate(getItem(reservation, "payment_history"))) {
      const paymentId = getItem(payment, "payment_id");
      refunds.push(
        new Map<string, PyValue>([
          ["payment_id", paymentId],
          ["amount", neg(getItem(payment, "amount"))],
        ]),
      );
    }
    extend(getItem(reservation, "payment_history"), refunds);
    setItem(reservation, "status", "cancelled");
    return pyJsonDumps(reservation);
  },
};

/** get_reservation_details: the record as JSON; a miss says `Error: user not found` (quirk §13 #4). */
export const getReservationDetails: ToolImplementation = {
  name: "get_reservation_details",
  className: "GetReservationDetails",
  parameters: ["reservation_id"],
  kind: "read",
  invoke(db, { reservation_id }) {
    if (inCollection(db, "reservations", reservation_id)) {
      return pyJsonDumps(fromCollection(db, "reservations", reservation_id));
    }
    return "Error: user not found";
  },
};

/** get_user_details: the user record as JSON, or `Error: user not found`. */
export const getUserDetails: ToolImplementation = {
  name: "get_user_details",
  className: "GetUserDetails",
  parameters: ["user_id"],
  kind: "read",
  invoke(db, { user_id }) {
    if (inCollection(db, "users", user_id)) return pyJsonDumps(fromCollection(db, "users", user_id));
    return "Error: user not found";
  },
};

/** list_all_airports: a fixed 20-entry map (it does not read the data). */
export const listAllAirports: ToolImplementation = {
  name: "list_all_airports",
  className: "ListAllAirports",
  parameters: [],
  kind: "read",
  invoke() {
    return pyJsonDumps(new Map<string, PyValue>(AIRPORTS.map(([code, city]) => [code, city])));
  },
};

/** search_direct_flight: available direct flights on that date, in file order, fields + date record. */
export const searchDirectFlight: ToolImplementation = {
  name: "search_direct_flight",
  className: "SearchDirectFlight",
  parameters: ["origin", "destination", "date"],
  kind: "read",
  invoke(db, { origin, destination, date }) {
    const results: PyValue[] = [];
    for (const [, flight] of db.entries("flights")) {
      if (eq(getItem(flight, "origin"), origin) && eq(getItem(flight, "destination"), destination)) {
        const dates = getItem(flight, "dates");
        if (contains(dates, date) && eq(getItem(getItem(dates, date), "status"), "available")) {
          results.push(flightWithDate(flight, getItem(dates, date)));
        }
      }
    }
    return pyJsonDumps(results);
  },
};

/**
 * search_onestop_flight, bugs included (quirk §13 #3): the second day is `"2024-05-" + (day + 1)`
 * without padding, times compare as strings, and the second leg shows the first day's record.
 */
export const searchOnestopFlight: ToolImplementation = {
  name: "search_onestop_flight",
  className: "SearchOnestopFlight",
  parameters: ["origin", "destination", "date"],
  kind: "read",
  invoke(db, { origin, destination, date }) {
    const results: PyValue[] = [];
    for (const [, flight1] of db.entries("flights")) {
      if (!eq(getItem(flight1, "origin"), origin)) continue;
      for (const [, flight2] of db.entries("flights")) {
        if (!(eq(getItem(flight2, "destination"), destination) && eq(getItem(flight1, "destination"), getItem(flight2, "origin")))) {
          continue;
        }
        const date2 = contains(getItem(flight1, "scheduled_arrival_time_est"), "+1")
          ? `2024-05-${str(add(toInt(lastTwo(date)), 1))}`
          : date;
        if (gt(getItem(flight1, "scheduled_arrival_time_est"), getItem(flight2, "scheduled_departure_time_est"))) continue;
        const dates1 = getItem(flight1, "dates");
        const dates2 = getItem(flight2, "dates");
        if (
          contains(dates1, date) &&
          contains(dates2, date2) &&
          eq(getItem(getItem(dates1, date), "status"), "available") &&
          eq(getItem(getItem(dates2, date2), "status"), "available")
        ) {
          const result1 = flightWithDate(flight1, getItem(dates1, date));
          setItem(result1, "date", date);
          const result2 = flightWithDate(flight2, getItem(dates2, date));
          setItem(result2, "date", date2);
          results.push([result1, result2]);
        }
      }
    }
    return pyJsonDumps(results);
  },
};

/**
 * send_certificate: adds the first free of three fixed certificate ids. When all three exist it
 * returns None (`null`), which `invokeTool` turns into the escaping ValidationError (quirk §13 #5).
 */
export const sendCertificate: ToolImplementation = {
  name: "send_certificate",
  className: "SendCertificate",
  parameters: ["user_id", "amount"],
  kind: "write",
  invoke(db, rawArgs) {
    const { user_id, amount } = ownArgs(rawArgs);
    if (!inCollection(db, "users", user_id)) return "Error: user not found";
    const user = mutableRecord(db, "users", user_id);
    for (const number of CERTIFICATE_NUMBERS) {
      const paymentId = `certificate_${number}`;
      if (!contains(getItem(user, "payment_methods"), paymentId)) {
        setItem(
          getItem(user, "payment_methods"),
          paymentId,
          new Map<string, PyValue>([
            ["source", "certificate"],
            ["amount", amount],
            ["id", paymentId],
          ]),
        );
        return `Certificate ${paymentId} added to user ${str(user_id)} with amount ${str(amount)}.`;
      }
    }
    return null;
  },
};

/**
 * update_reservation_baggages: charges 50 per extra non-free bag (no refund on a decrease), refuses
 * certificates, charges a gift card, and logs a payment only when the charge is non-zero.
 */
export const updateReservationBaggages: ToolImplementation = {
  name: "update_reservation_baggages",
  className: "UpdateReservationBaggages",
  parameters: ["reservation_id", "total_baggages", "nonfree_baggages", "payment_id"],
  kind: "write",
  invoke(db, rawArgs) {
    const { reservation_id, total_baggages, nonfree_baggages, payment_id } = ownArgs(rawArgs);
    if (!inCollection(db, "reservations", reservation_id)) return "Error: reservation not found";
    const reservation = mutableRecord(db, "reservations", reservation_id);
    const total = mul(50, maxZero(sub(nonfree_baggages, getItem(reservation, "nonfree_baggages"))));
    const ownerId = getItem(reservation, "user_id");
    if (!contains(getItem(fromCollection(db, "users", ownerId), "payment_methods"), payment_id)) {
      return "Error: payment method not found";
    }
    const method = getItem(getItem(fromCollection(db, "users", ownerId), "payment_methods"), payment_id);
    const refusal = checkUpdatePayment(method, total);
    if (refusal) return refusal;

    setItem(reservation, "total_baggages", total_baggages);
    setItem(reservation, "nonfree_baggages", nonfree_baggages);
    if (eq(getItem(method, "source"), "gift_card")) chargeGiftCard(db, ownerId, payment_id, total);
    if (ne(total, 0)) {
      append(
        getItem(reservation, "payment_history"),
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
  const method = getItem(getItem(mutableRecord(db, "users", ownerId), "payment_methods"), paymentId);
  setItem(method, "amount", isub(getItem(method, "amount"), total));
}

/**
 * update_reservation_flights: keeps the old price of an unchanged segment only when the requested
 * cabin equals the reservation's cabin, prices the others at today's fare, charges (or refunds) the
 * difference, and does NOT update `reservation.cabin` (quirk §13 #2).
 */
export const updateReservationFlights: ToolImplementation = {
  name: "update_reservation_flights",
  className: "UpdateReservationFlights",
  parameters: ["reservation_id", "cabin", "flights", "payment_id"],
  kind: "write",
  invoke(db, rawArgs) {
    const { reservation_id, cabin, flights, payment_id } = ownArgs(rawArgs);
    if (!inCollection(db, "reservations", reservation_id)) return "Error: reservation not found";
    const reservation = mutableRecord(db, "reservations", reservation_id);
    let total: PyValue = 0;
    const newFlights = deepCopy(flights);
    for (const segment of iterate(newFlights)) {
      const same = iterate(getItem(reservation, "flights")).filter(
        (old) =>
          eq(getItem(old, "flight_number"), getItem(segment, "flight_number")) &&
          eq(getItem(old, "date"), getItem(segment, "date")) &&
          eq(cabin, getItem(reservation, "cabin")),
      );
      if (same.length > 0) {
        const kept = same[0];
        total = iadd(total, mul(getItem(kept, "price"), len(getItem(reservation, "passengers"))));
        setItem(segment, "price", getItem(kept, "price"));
        setItem(segment, "origin", getItem(kept, "origin"));
        setItem(segment, "destination", getItem(kept, "destination"));
        continue;
      }
      const failure = priceNewSegment(db, segment, cabin, getItem(reservation, "passengers"));
      if (failure !== undefined) return failure;
      total = iadd(total, mul(getItem(segment, "price"), len(getItem(reservation, "passengers"))));
    }
    const oldPrices = sum(iterate(getItem(reservation, "flights")).map((old) => getItem(old, "price")));
    total = isub(total, mul(oldPrices, len(getItem(reservation, "passengers"))));

    const ownerId = getItem(reservation, "user_id");
    if (!contains(getItem(fromCollection(db, "users", ownerId), "payment_methods"), payment_id)) {
      return "Error: payment method not found";
    }
    const method = getItem(getItem(fromCollection(db, "users", ownerId), "payment_methods"), payment_id);
    const refusal = checkUpdatePayment(method, total);
    if (refusal) return refusal;

    if (eq(getItem(method, "source"), "gift_card")) chargeGiftCard(db, ownerId, payment_id, total);
    setItem(reservation, "flights", newFlights);
    if (ne(total, 0)) {
      append(
        getItem(reservation, "payment_history"),
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
export const updateReservationPassengers: ToolImplementation = {
  name: "update_reservation_passengers",
  className: "UpdateReservationPassengers",
  parameters: ["reservation_id", "passengers"],
  kind: "write",
  invoke(db, rawArgs) {
    const { reservation_id, passengers } = ownArgs(rawArgs);
    if (!inCollection(db, "reservations", reservation_id)) return "Error: reservation not found";
    const current = fromCollection(db, "reservations", reservation_id);
    if (ne(len(passengers), len(getItem(current, "passengers")))) return "Error: number of passengers does not match";
    const reservation = mutableRecord(db, "reservations", reservation_id);
    setItem(reservation, "passengers", passengers);
    return pyJsonDumps(reservation);
  },
};
