/**
 * The airline tool list as the environment registers it.
 *
 * Order and names matter: the list follows `tools_info.json` (the order the model sees), and each
 * tool carries its Python class name and signature order because argument-binding errors expose
 * them. `calculate`, `think` and `transfer_to_human_agents` are the implementations shared with
 * retail; the other eleven are in `implementations.ts`.
 */
import type { ToolImplementation } from "../../src/engine/tool.ts";
import { calculateTool, thinkTool, transferToHumanAgentsTool } from "../common/index.ts";
import {
  bookReservation,
  cancelReservation,
  getReservationDetails,
  getUserDetails,
  listAllAirports,
  searchDirectFlight,
  searchOnestopFlight,
  sendCertificate,
  updateReservationBaggages,
  updateReservationFlights,
  updateReservationPassengers,
} from "./implementations.ts";

/** The 14 airline tools in `tools_info.json` order. */
export const airlineTools: readonly ToolImplementation[] = [
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
];
