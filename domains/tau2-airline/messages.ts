/**
 * The airline tools' result and error sentences, and `list_all_airports`' table, read from τ²'s
 * `domains/airline/tools.py` in the data directory when the domain loads (see
 * src/suites/tau2/engine/upstream-messages.ts): each key says where the original writes it.
 */
import { UpstreamMessages } from "../../src/suites/tau2/engine/upstream-messages.ts";

export const airlineMessages = new UpstreamMessages("domains/airline/tools.py", {
  userNotFound: { in: "AirlineTools._get_user", at: 0 },
  reservationNotFound: { in: "AirlineTools._get_reservation", at: 0 },
  flightNotFound: { in: "AirlineTools._get_flight", at: 0 },
  flightNotOnDate: { in: "AirlineTools._get_flight_instance", at: 0 },
  reservationIdsExhausted: { in: "AirlineTools._get_new_reservation_id", at: 3 },
  updatePaymentNotFound: { in: "AirlineTools._payment_for_update", at: 0 },
  certificateRefusedForUpdate: { in: "AirlineTools._payment_for_update", at: 2 },
  giftCardShortForUpdate: { in: "AirlineTools._payment_for_update", at: 4 },
  flightUnavailableOnDate: { in: "AirlineTools.book_reservation", at: 0 },
  notEnoughSeats: { in: "AirlineTools.book_reservation", at: 1 },
  bookingPaymentNotFound: { in: "AirlineTools.book_reservation", at: 3 },
  paymentMethodShort: { in: "AirlineTools.book_reservation", at: 6 },
  paymentsDoNotAddUp: { in: "AirlineTools.book_reservation", at: 7 },
  invalidCharacters: { in: "AirlineTools.calculate", at: 1 },
  certificateAdded: { in: "AirlineTools.send_certificate", at: 2 },
  certificateIdsExhausted: { in: "AirlineTools.send_certificate", at: 3 },
  transferred: { in: "AirlineTools.transfer_to_human_agents", at: 0 },
  passengerCountDiffers: { in: "AirlineTools.update_reservation_passengers", at: 0 },
});

/** `list_all_airports` writes its table as 20 (code, city) literal pairs: positions 0 to 39. */
const AIRPORT_LITERALS = 40;

export const airportLiterals = new UpstreamMessages(
  "domains/airline/tools.py",
  Object.fromEntries(Array.from({ length: AIRPORT_LITERALS }, (_, at) => [String(at), { in: "AirlineTools.list_all_airports", at }])),
);

/** `list_all_airports`' (IATA code, city) pairs, in the original's order. */
export function airportTable(): Array<[string, string]> {
  return Array.from({ length: AIRPORT_LITERALS / 2 }, (_, index) => [airportLiterals.text(String(2 * index)), airportLiterals.text(String(2 * index + 1))]);
}
