/**
 * The airline domain's agent toolkit (τ² `AirlineTools`), tools in the order τ² lists them.
 *
 * Arguments arrive unvalidated: a wrong type does what the Python expression does with it (`"3"`
 * baggages fail at `"3" - 1`, `3.0` is stored as `3.0`), and only values that pass through a model
 * constructor are coerced (`Payment.amount` 100.0 → 100, a certificate's `"100"` → 100.0).
 */
import { airlineMessages, airportTable } from "./messages.ts";
import { type Tau2ToolkitDefinition, tau2Tool } from "../../src/suites/tau2/engine/toolkit.ts";
import {
  type PyDict,
  type PyModel,
  type PyValue,
  pyAdd,
  pyAppend,
  pyContains,
  pyDeepCopy,
  pyDelItem,
  pyEquals,
  pyExtend,
  pyGetAttr,
  pyGetItem,
  pyIAdd,
  pyInt,
  pyISub,
  pyIterate,
  pyLen,
  pyLessThan,
  pyMax,
  pyModelValidate,
  pyMul,
  pyNeg,
  pyNotEquals,
  pySetItem,
  pySlice,
  pyStr,
  pySub,
  pySum,
  pyValueError,
} from "../../src/value/index.ts";
import { tau2Calculate } from "./calculate.ts";
import { airportCodeModel, certificateModel, flightInfoModel, passengerModel, paymentModel, reservationFlightModel, reservationModel } from "./data-model.ts";
import {
  AIRLINE_NOW,
  NEW_PAYMENT_NUMBERS,
  attr,
  getFlight,
  getFlightInstance,
  getReservation,
  getUser,
  modelsFromDicts,
  newReservationId,
  paymentForUpdate,
  requireAvailable,
  searchDirectFlights,
} from "./lookups.ts";

function record(entries: [string, PyValue][]): PyDict {
  return new Map(entries);
}

/** `book_reservation`: checks flights, seats and payments, then debits, decrements seats and stores. */
function bookReservation(db: PyModel, args: Record<string, PyValue>): PyModel {
  const flights = modelsFromDicts(args.flights, flightInfoModel);
  const passengers = modelsFromDicts(args.passengers, passengerModel);
  const paymentMethods = modelsFromDicts(args.payment_methods, paymentModel);
  const user = getUser(db, args.user_id);
  const reservationId = newReservationId(db);
  const reservation = pyModelValidate(
    reservationModel,
    record([
      ["reservation_id", reservationId],
      ["user_id", args.user_id],
      ["origin", args.origin],
      ["destination", args.destination],
      ["flight_type", args.flight_type],
      ["cabin", args.cabin],
      ["flights", []],
      ["passengers", pyDeepCopy(passengers)],
      ["payment_history", pyDeepCopy(paymentMethods)],
      ["created_at", AIRLINE_NOW],
      ["total_baggages", args.total_baggages],
      ["nonfree_baggages", args.nonfree_baggages],
      ["insurance", args.insurance],
    ]),
  );
  const cabin = args.cabin;
  let totalPrice: PyValue = 0;
  const flightDates: PyModel[] = [];
  for (const flightInfo of pyIterate(flights)) {
    const flightNumber = attr(flightInfo, "flight_number");
    const flight = getFlight(db, flightNumber);
    const date = attr(flightInfo, "date");
    const flightDate = getFlightInstance(db, flightNumber, date);
    requireAvailable(flightDate, flightNumber, date);
    if (pyLessThan(pyGetItem(attr(flightDate, "available_seats"), cabin), pyLen(passengers))) throw pyValueError(airlineMessages.format("notEnoughSeats", { flight_number: pyStr(flightNumber) }));
    const price = pyGetItem(attr(flightDate, "prices"), cabin);
    const reservationFlight = record([
      ["origin", attr(flight, "origin")],
      ["destination", attr(flight, "destination")],
      ["flight_number", flightNumber],
      ["date", date],
      ["price", price],
    ]);
    pyAppend(attr(reservation, "flights"), pyModelValidate(reservationFlightModel, reservationFlight));
    flightDates.push(flightDate);
    totalPrice = pyIAdd(totalPrice, pyMul(price, pyLen(passengers)));
  }
  if (pyEquals(args.insurance, "yes")) totalPrice = pyIAdd(totalPrice, pyMul(30, pyLen(passengers)));
  totalPrice = pyIAdd(totalPrice, pyMul(50, args.nonfree_baggages));
  const userMethods = attr(user, "payment_methods");
  for (const paymentMethod of pyIterate(paymentMethods)) {
    const paymentId = attr(paymentMethod, "payment_id");
    const amount = attr(paymentMethod, "amount");
    if (!pyContains(userMethods, paymentId)) throw pyValueError(airlineMessages.format("bookingPaymentNotFound", { payment_id: pyStr(paymentId) }));
    const userMethod = pyGetItem(userMethods, paymentId);
    const source = attr(userMethod, "source");
    if ((source === "gift_card" || source === "certificate") && pyLessThan(attr(userMethod, "amount"), amount)) {
      throw pyValueError(airlineMessages.format("paymentMethodShort", { payment_id: pyStr(paymentId) }));
    }
  }
  const totalPayment = pySum(pyIterate(paymentMethods).map((payment) => attr(payment, "amount")));
  if (pyNotEquals(totalPayment, totalPrice)) throw pyValueError(airlineMessages.format("paymentsDoNotAddUp", { total_price: pyStr(totalPrice), total_payment: pyStr(totalPayment) }));
  for (const paymentMethod of pyIterate(paymentMethods)) {
    const paymentId = attr(paymentMethod, "payment_id");
    const amount = attr(paymentMethod, "amount");
    const userMethod = pyGetItem(userMethods, paymentId) as PyModel;
    const source = attr(userMethod, "source");
    if (source === "gift_card") userMethod.set("amount", pyISub(attr(userMethod, "amount"), amount));
    else if (source === "certificate") pyDelItem(userMethods, paymentId);
  }
  for (const flightDate of flightDates) {
    const seats = attr(flightDate, "available_seats");
    pySetItem(seats, cabin as string, pyISub(pyGetItem(seats, cabin), pyLen(passengers)));
  }
  pySetItem(pyGetAttr(db, "reservations"), reservationId, reservation);
  pyAppend(attr(pyGetItem(pyGetAttr(db, "users"), args.user_id), "reservations"), reservationId);
  return reservation;
}

/** `cancel_reservation`: appends a negated copy of every payment and marks it cancelled (seats are not released, as in τ²). */
function cancelReservation(db: PyModel, args: Record<string, PyValue>): PyModel {
  const reservation = getReservation(db, args.reservation_id);
  const history = attr(reservation, "payment_history");
  const refunds = pyIterate(history).map((payment) =>
    pyModelValidate(
      paymentModel,
      record([
        ["payment_id", attr(payment, "payment_id")],
        ["amount", pyNeg(attr(payment, "amount"))],
      ]),
    ),
  );
  pyExtend(history, refunds);
  reservation.set("status", "cancelled"); // assignment is not validated
  return reservation;
}

/** `search_onestop_flight`: second legs from each first leg's destination, the next day when it arrives "+1". */
function searchOnestopFlight(db: PyModel, args: Record<string, PyValue>): PyValue[] {
  const results: PyValue[] = [];
  const date = args.date;
  for (const first of searchDirectFlights(db, date, args.origin, null, null)) {
    first.set("date", date);
    const arrival = attr(first, "scheduled_arrival_time_est");
    // The original builds the next day's text without zero padding (`2024-05-9`).
    const secondDate = pyContains(arrival, "+1") ? `2024-05-${pyStr(pyAdd(pyInt(pySlice(date, -2)), 1))}` : date;
    for (const second of searchDirectFlights(db, secondDate, attr(first, "destination"), args.destination, arrival)) {
      second.set("date", secondDate);
      results.push([first, second]);
    }
  }
  return results;
}

/** `send_certificate`: the first free `certificate_<n>` id; the message echoes the raw amount. */
function sendCertificate(db: PyModel, args: Record<string, PyValue>): string {
  const user = getUser(db, args.user_id);
  const methods = attr(user, "payment_methods");
  for (const number of NEW_PAYMENT_NUMBERS) {
    const paymentId = `certificate_${number}`;
    if (pyContains(methods, paymentId)) continue;
    const certificate = record([
      ["id", paymentId],
      ["amount", args.amount],
      ["source", "certificate"],
    ]);
    pySetItem(methods, paymentId, pyModelValidate(certificateModel, certificate));
    return airlineMessages.format("certificateAdded", { payment_id: paymentId, user_id: pyStr(args.user_id), amount: pyStr(args.amount) });
  }
  throw pyValueError(airlineMessages.text("certificateIdsExhausted"));
}

/** `update_reservation_baggages`: charges 50 per added non-free bag; stores the counts as given. */
function updateReservationBaggages(db: PyModel, args: Record<string, PyValue>): PyModel {
  const reservation = getReservation(db, args.reservation_id);
  const user = getUser(db, attr(reservation, "user_id"));
  const totalPrice = pyMul(50, pyMax(0, pySub(args.nonfree_baggages, attr(reservation, "nonfree_baggages"))));
  const payment = paymentForUpdate(user, args.payment_id, totalPrice);
  if (payment !== null) pyAppend(attr(reservation, "payment_history"), payment);
  reservation.set("total_baggages", args.total_baggages);
  reservation.set("nonfree_baggages", args.nonfree_baggages);
  return reservation;
}

/** `next(flight for flight in reservation.flights if …)`: an unchanged segment keeps its price (only when the cabin is unchanged). */
function matchingReservationFlight(reservation: PyModel, flightInfo: PyValue, cabin: PyValue): PyValue | null {
  for (const flight of pyIterate(attr(reservation, "flights"))) {
    if (pyEquals(attr(flight, "flight_number"), attr(flightInfo, "flight_number")) && pyEquals(attr(flight, "date"), attr(flightInfo, "date")) && pyEquals(cabin, attr(reservation, "cabin"))) {
      return flight;
    }
  }
  return null;
}

/** `update_reservation_flights`: reprices the whole itinerary, charges or refunds the difference, sets the cabin. */
function updateReservationFlights(db: PyModel, args: Record<string, PyValue>): PyModel {
  const flights = modelsFromDicts(args.flights, flightInfoModel);
  const reservation = getReservation(db, args.reservation_id);
  const user = getUser(db, attr(reservation, "user_id"));
  const cabin = args.cabin;
  let totalPrice: PyValue = 0;
  const reservationFlights: PyValue[] = [];
  for (const flightInfo of pyIterate(flights)) {
    const matching = matchingReservationFlight(reservation, flightInfo, cabin);
    if (matching !== null) {
      totalPrice = pyIAdd(totalPrice, pyMul(attr(matching, "price"), pyLen(attr(reservation, "passengers"))));
      reservationFlights.push(matching);
      continue;
    }
    const flight = getFlight(db, attr(flightInfo, "flight_number"));
    const flightDate = getFlightInstance(db, attr(flightInfo, "flight_number"), attr(flightInfo, "date"));
    requireAvailable(flightDate, attr(flightInfo, "flight_number"), attr(flightInfo, "date"));
    if (pyLessThan(pyGetItem(attr(flightDate, "available_seats"), cabin), pyLen(attr(reservation, "passengers")))) {
      throw pyValueError(airlineMessages.format("notEnoughSeats", { flight_number: pyStr(attr(flightInfo, "flight_number")) }));
    }
    const reservationFlight = pyModelValidate(
      reservationFlightModel,
      record([
        ["flight_number", attr(flightInfo, "flight_number")],
        ["date", attr(flightInfo, "date")],
        ["price", pyGetItem(attr(flightDate, "prices"), cabin)],
        ["origin", attr(flight, "origin")],
        ["destination", attr(flight, "destination")],
      ]),
    );
    totalPrice = pyIAdd(totalPrice, pyMul(attr(reservationFlight, "price"), pyLen(attr(reservation, "passengers"))));
    reservationFlights.push(reservationFlight);
  }
  const alreadyPaid = pySum(pyIterate(attr(reservation, "flights")).map((flight) => attr(flight, "price")));
  totalPrice = pyISub(totalPrice, pyMul(alreadyPaid, pyLen(attr(reservation, "passengers"))));
  const payment = paymentForUpdate(user, args.payment_id, totalPrice);
  if (payment !== null) pyAppend(attr(reservation, "payment_history"), payment);
  reservation.set("flights", reservationFlights);
  reservation.set("cabin", cabin);
  return reservation;
}

/** `update_reservation_passengers`: the same number of passengers, replaced as given. */
function updateReservationPassengers(db: PyModel, args: Record<string, PyValue>): PyModel {
  const passengers = modelsFromDicts(args.passengers, passengerModel);
  const reservation = getReservation(db, args.reservation_id);
  if (pyLen(passengers) !== pyLen(attr(reservation, "passengers"))) throw pyValueError(airlineMessages.text("passengerCountDiffers"));
  reservation.set("passengers", pyDeepCopy(passengers));
  return reservation;
}

export const airlineTools: Tau2ToolkitDefinition = {
  className: "AirlineTools",
  methods: [
    tau2Tool(
      "book_reservation",
      "write",
      ["user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers", "payment_methods", "total_baggages", "nonfree_baggages", "insurance"],
      ({ db }, args) => bookReservation(db, args),
    ),
    tau2Tool("calculate", "generic", ["expression"], (_self, { expression }) => tau2Calculate(expression, airlineMessages.text("invalidCharacters"))),
    tau2Tool("cancel_reservation", "write", ["reservation_id"], ({ db }, args) => cancelReservation(db, args)),
    tau2Tool("get_reservation_details", "read", ["reservation_id"], ({ db }, { reservation_id }) => getReservation(db, reservation_id)),
    tau2Tool("get_user_details", "read", ["user_id"], ({ db }, { user_id }) => getUser(db, user_id)),
    tau2Tool("list_all_airports", "read", [], () =>
      airportTable().map(([iata, city]) =>
        pyModelValidate(
          airportCodeModel,
          record([
            ["iata", iata],
            ["city", city],
          ]),
        ),
      ),
    ),
    tau2Tool("search_direct_flight", "read", ["origin", "destination", "date"], ({ db }, { origin, destination, date }) => searchDirectFlights(db, date, origin, destination, null)),
    tau2Tool("search_onestop_flight", "read", ["origin", "destination", "date"], ({ db }, args) => searchOnestopFlight(db, args)),
    tau2Tool("send_certificate", "write", ["user_id", "amount"], ({ db }, args) => sendCertificate(db, args)),
    tau2Tool("transfer_to_human_agents", "generic", ["summary"], () => airlineMessages.text("transferred")),
    tau2Tool("update_reservation_baggages", "write", ["reservation_id", "total_baggages", "nonfree_baggages", "payment_id"], ({ db }, args) => updateReservationBaggages(db, args)),
    tau2Tool("update_reservation_flights", "write", ["reservation_id", "cabin", "flights", "payment_id"], ({ db }, args) => updateReservationFlights(db, args)),
    tau2Tool("update_reservation_passengers", "write", ["reservation_id", "passengers"], ({ db }, args) => updateReservationPassengers(db, args)),
    tau2Tool("get_flight_status", "read", ["flight_number", "date"], ({ db }, { flight_number, date }) => attr(getFlightInstance(db, flight_number, date), "status")),
  ],
};
