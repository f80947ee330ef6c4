import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import type { Tau2Environment, Tau2ToolResult } from "../../src/suites/tau2/engine/environment.ts";
import { readTau2Tasks } from "../../src/suites/tau2/tasks.ts";
import { type PyDict, type PyModel, parsePythonJson, pyGetAttr, pyRepr } from "../../src/value/index.ts";
import { pythonCalculate } from "../../domains/common/index.ts";
import { tau2Calculate } from "../../domains/tau2-airline/calculate.ts";
import { tau2AirlineDomain } from "../../domains/tau2-airline/index.ts";
import { airlineMessages } from "../../domains/tau2-airline/messages.ts";
import { describeWithTau2Data, missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { itMatchesTheReferenceFixtures } from "./fixture-checks.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

/** One assistant tool step; arguments are JSON text so ints and floats keep their Python types. */
function call(environment: Tau2Environment, name: string, argumentsJson: string): Tau2ToolResult {
  return environment.getResponse({ id: "call", name, arguments: parsePythonJson(argumentsJson) as PyDict, requestor: "assistant" });
}

/** `db.<table>[key]` of the agent database, as a model. */
function row(environment: Tau2Environment, table: string, key: string): PyModel {
  return (pyGetAttr(environment.agent.db, table) as PyDict).get(key) as PyModel;
}

const PYDANTIC_LINK = "For further information visit https://errors.pydantic.dev/2.12/v/";

describe("τ² airline calculate", () => {
  it("raises the character-check message it is given, and evaluates as τ-bench's calculate otherwise", () => {
    expect(() => tau2Calculate("two + 2", "refused characters")).toThrow("refused characters");
    expect(tau2Calculate("(1000 - 200) / 3", "")).toBe("266.67");
    expect(tau2Calculate("10 / 4 + 0.005", "")).toBe("2.5");
    // Python iterates whatever it gets: a list of allowed strs passes the check, then eval refuses it.
    expect(() => tau2Calculate(["1", "+"], "")).toThrow("eval() arg 1 must be a string, bytes or code object");
    expect(() => tau2Calculate(null, "")).toThrow("'NoneType' object is not iterable");
  });
});

describeWithTau2Data("τ² airline calculate's message", () => {
  it("is τ-bench's character-check message, capitalized, read from τ²'s airline tools", () => {
    loadTau2Domain(tau2AirlineDomain, data as string);
    const tauBench = (() => {
      try {
        pythonCalculate("two + 2");
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error("τ-bench's calculate accepted letters");
    })();
    expect(airlineMessages.text("invalidCharacters")).toBe(tauBench.charAt(0).toUpperCase() + tauBench.slice(1));
    expect(() => tau2Calculate("two + 2", airlineMessages.text("invalidCharacters"))).toThrow(airlineMessages.text("invalidCharacters"));
  });
});

describeWithTau2Data("τ² airline domain against the reference fixtures", () => {
  const domain = loadTau2Domain(tau2AirlineDomain, data as string);
  const tasks = new Map(readTau2Tasks(join(data as string, "airline", "tasks.json")).map((task) => [task.id, task]));

  itMatchesTheReferenceFixtures("airline", data as string, tau2AirlineDomain, domain, tasks);

  // The expected values below came from running the original AirlineTools (CPython 3.11.7, pydantic 2.13,
  // error links written as the fixtures' 2.12) on the same calls.
  describe("behaviour beyond the fixtures", () => {
    const booking = (overrides: string): string =>
      `{"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT083", "date": "2024-05-20"}], "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], "payment_methods": [{"payment_id": "credit_card_4421486", "amount": 100}], "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no", ${overrides}}`;

    it("builds models only when every element is a dict (the `FlightInfo | dict` idiom)", () => {
      const environment = domain.createEnvironment();
      const mixed = call(environment, "book_reservation", booking(`"flights": [{"flight_number": "HAT083", "date": "2024-05-20"}, "x"]`));
      expect(mixed.content).toBe("Error: 'dict' object has no attribute 'flight_number'");
      const asDict = call(
        environment,
        "update_reservation_flights",
        `{"reservation_id": "NO6JO3", "cabin": "business", "flights": {"flight_number": "HAT083", "date": "2024-05-16"}, "payment_id": "credit_card_4421486"}`,
      );
      expect(asDict.content).toBe("Error: 'str' object has no attribute 'flight_number'");
      // An empty dict of passengers passes the all-dicts test: a booking with no passengers, paid 0.
      const nobody = call(environment, "book_reservation", booking(`"passengers": {}, "payment_methods": [{"payment_id": "credit_card_4421486", "amount": 0}]`));
      expect(nobody.error).toBe(false);
      expect(nobody.content).toContain(`"passengers": [], "payment_history": [{"payment_id": "credit_card_4421486", "amount": 0}]`);
    });

    it("adds the raw nonfree_baggages to the price after the model coerced its own copy", () => {
      const environment = domain.createEnvironment();
      expect(call(environment, "book_reservation", booking(`"nonfree_baggages": "1", "total_baggages": 1`)).content).toBe("Error: unsupported operand type(s) for +=: 'int' and 'str'");
      const floats = call(environment, "book_reservation", booking(`"nonfree_baggages": 1.0, "total_baggages": 1.0, "payment_methods": [{"payment_id": "credit_card_4421486", "amount": 150}]`));
      expect(floats.content).toContain(`"total_baggages": 1, "nonfree_baggages": 1,`);
    });

    it("consumes a certificate listed twice and then fails on the missing key, booking nothing", () => {
      const environment = domain.createEnvironment();
      const twice = booking(`"payment_methods": [{"payment_id": "certificate_4856383", "amount": 50}, {"payment_id": "certificate_4856383", "amount": 50}]`);
      expect(call(environment, "book_reservation", twice).content).toBe("Error: 'certificate_4856383'");
      expect([...(row(environment, "users", "mia_li_3668").get("payment_methods") as PyDict).keys()].sort()).toEqual(["certificate_7504069", "credit_card_1955700", "credit_card_4421486"]);
      expect((pyGetAttr(environment.agent.db, "reservations") as PyDict).has("HATHAT")).toBe(false);
    });

    it("debits a gift card before pydantic rejects a fractional baggage price", () => {
      const environment = domain.createEnvironment();
      const result = call(environment, "update_reservation_baggages", `{"reservation_id": "07S7FC", "total_baggages": 2, "nonfree_baggages": 1.25, "payment_id": "gift_card_5309492"}`);
      expect(result.content).toBe(
        `Error: 1 validation error for Payment\namount\n  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=62.5, input_type=float]\n    ${PYDANTIC_LINK}int_from_float`,
      );
      const giftCard = (row(environment, "users", "mei_hernandez_8984").get("payment_methods") as PyDict).get("gift_card_5309492");
      expect(pyRepr(giftCard)).toContain("'amount': 35.5");
      expect(row(environment, "reservations", "07S7FC").get("nonfree_baggages")).toBe(0);
    });

    it("takes the deterministic reservation and certificate ids in turn, then refuses", () => {
      const environment = domain.createEnvironment();
      const ids = [0, 1, 2].map(() => /"reservation_id": "(\w+)"/.exec(call(environment, "book_reservation", booking(`"cabin": "economy"`)).content)?.[1]);
      expect(ids).toEqual(["HATHAT", "HATHAU", "HATHAV"]);
      expect(call(environment, "book_reservation", booking(`"cabin": "economy"`)).content).toBe("Error: Too many reservations");
      expect(call(environment, "send_certificate", `{"user_id": "mia_li_3668", "amount": true}`).content).toBe("Certificate certificate_3221322 added to user mia_li_3668 with amount True.");
      expect(pyRepr((row(environment, "users", "mia_li_3668").get("payment_methods") as PyDict).get("certificate_3221322"))).toContain("'amount': 1.0");
      call(environment, "send_certificate", `{"user_id": "mia_li_3668", "amount": 3}`);
      call(environment, "send_certificate", `{"user_id": "mia_li_3668", "amount": 4}`);
      expect(call(environment, "send_certificate", `{"user_id": "mia_li_3668", "amount": 5}`).content).toBe("Error: Too many certificates");
    });

    it("dates a one-stop second leg on the next day after a '+1' arrival, without zero padding", () => {
      const environment = domain.createEnvironment();
      const nextDay = call(environment, "search_onestop_flight", `{"origin": "SEA", "destination": "ATL", "date": "2024-05-17"}`).content;
      expect(nextDay).toContain(`"scheduled_arrival_time_est": "01:00:00+1", "date": "2024-05-17"`);
      expect(nextDay).toContain(
        `{"flight_number": "HAT057", "origin": "JFK", "destination": "ATL", "status": "available", "scheduled_departure_time_est": "07:00:00", "scheduled_arrival_time_est": "09:30:00", "date": "2024-05-18"`,
      );
      // From 2024-05-08 the next day would be "2024-05-9", a date no flight has.
      expect(call(environment, "search_onestop_flight", `{"origin": "SEA", "destination": "ATL", "date": "2024-05-08"}`).content).toBe("[]");
    });

    it("evaluates the search conditions in order: a bad date only fails on a flight that matched", () => {
      const environment = domain.createEnvironment();
      expect(call(environment, "search_direct_flight", `{"origin": "JFK", "destination": "SEA", "date": ["2024-05-17"]}`).content).toBe("Error: unhashable type: 'list'");
      expect(call(environment, "search_direct_flight", `{"origin": "XXX", "destination": "SEA", "date": ["2024-05-17"]}`).content).toBe("[]");
      expect(call(environment, "search_direct_flight", `{"origin": null, "destination": "ATL", "date": "2024-05-17"}`).content).toContain(`"origin": "LAS", "destination": "ATL"`);
    });
  });
});
