/**
 * τ-bench airline tools against the reference fixtures (exact observations and data hashes), plus
 * focused tests of the quirks and Python-typing branches the fixtures touch only lightly.
 *
 * Data-dependent: the shared τ-bench export is located through `TAUBRIDGE_SHARED`; without it these
 * suites skip and say so once.
 *
 * Not covered here: a call to an unknown tool name (`Unknown action <name>`) is answered by the
 * environment's `step`, not by a tool, so such probe calls are skipped (the airline probes have none;
 * the one probe of that kind is a retail case).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { airlineTools } from "../domains/airline/tools.ts";
import { loadBaseDatabase } from "../src/suites/tau-bench/engine/database.ts";
import { BaseDatabase, EpisodeDatabase } from "../src/suites/tau-bench/engine/database.ts";
import { ToolReturnedNoneError, invokeTool, type ToolImplementation } from "../src/suites/tau-bench/engine/tool.ts";
import { parsePythonJson, PyFloat, fromJs, pyJsonDumps, type PyDict, type PyValue } from "../src/value/index.ts";
import { tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";

warnIfMissingShared();

const INITIAL_AIRLINE_HASH = "4587e6b48ad2b2c4f3e1fecb40aabec7bb2286513273b8f8cec3f5865222f290";

const toolsByName = new Map<string, ToolImplementation>(airlineTools.map((tool) => [tool.name, tool]));

/** One env.step on a tool call (the test drives tools directly; unknown names are the env's job). */
function step(db: EpisodeDatabase, name: string, kwargs: PyDict | Record<string, unknown>): string {
  const tool = toolsByName.get(name);
  if (!tool) throw new Error(`not an airline tool: ${name}`);
  const args = kwargs instanceof Map ? kwargs : (fromJs(kwargs) as PyDict);
  return invokeTool(tool, "airline", db, args);
}

/** Parses a JSON observation into the value model (so tests can look inside with Python types intact). */
function parsed(observation: string): PyDict {
  return parsePythonJson(observation) as PyDict;
}

function path(value: PyValue, ...keys: Array<string | number>): PyValue {
  let current = value;
  for (const key of keys) current = typeof key === "number" ? (current as PyValue[])[key] : (current as PyDict).get(key)!;
  return current;
}

describe("airline tool registration (no data needed)", () => {
  it("lists the 14 tools with their Python class names and signature order", () => {
    expect(airlineTools.map((tool) => [tool.name, tool.className])).toEqual([
      ["book_reservation", "BookReservation"],
      ["calculate", "Calculate"],
      ["cancel_reservation", "CancelReservation"],
      ["get_reservation_details", "GetReservationDetails"],
      ["get_user_details", "GetUserDetails"],
      ["list_all_airports", "ListAllAirports"],
      ["search_direct_flight", "SearchDirectFlight"],
      ["search_onestop_flight", "SearchOnestopFlight"],
      ["send_certificate", "SendCertificate"],
      ["think", "Think"],
      ["transfer_to_human_agents", "TransferToHumanAgents"],
      ["update_reservation_baggages", "UpdateReservationBaggages"],
      ["update_reservation_flights", "UpdateReservationFlights"],
      ["update_reservation_passengers", "UpdateReservationPassengers"],
    ]);
  });
});

/** A fixture file's text, or undefined when the shared data is absent (the suite is skipped then). */
function fixtureText(...parts: string[]): string | undefined {
  return tauBenchDirectory ? readFileSync(join(tauBenchDirectory, ...parts), "utf8") : undefined;
}

describe.skipIf(!tauBenchDirectory)("airline tools against the τ-bench fixtures", () => {
  const directory = tauBenchDirectory ?? "";
  let base: BaseDatabase;
  const fresh = () => new EpisodeDatabase(base);

  beforeAll(() => {
    base = loadBaseDatabase(join(directory, "airline"), ["flights", "reservations", "users"]);
  });

  it("matches tools_info.json: names, order and parameter order", () => {
    const info = JSON.parse(readFileSync(join(directory, "airline", "tools_info.json"), "utf8")) as Array<{
      function: { name: string; parameters: { required: string[] } };
    }>;
    expect(airlineTools.map((tool) => tool.name)).toEqual(info.map((entry) => entry.function.name));
    for (const [index, entry] of info.entries()) {
      expect(airlineTools[index].parameters, entry.function.name).toEqual(entry.function.parameters.required);
    }
  });

  it("starts from the original's initial hash", () => {
    expect(fresh().tauBenchHash()).toBe(INITIAL_AIRLINE_HASH);
  });

  describe("tool_probes.json (airline cases)", () => {
    const probesText = fixtureText("fixtures", "tool_probes.json");
    const probes = ((probesText ? parsePythonJson(probesText) : []) as PyDict[]).filter((probe) => probe.get("domain") === "airline");
    it("has the airline cases", () => expect(probes.length).toBe(45));

    for (const probe of probes) {
      it(String(probe.get("id")), () => {
        const db = fresh();
        for (const call of probe.get("calls") as PyDict[]) {
          const name = call.get("name") as string;
          const kwargs = call.get("kwargs") as PyDict;
          if (!toolsByName.has(name)) continue; // `Unknown action …` comes from Env.step, not a tool
          if (call.has("exception")) {
            expect(call.get("exception")).toBe("ValidationError");
            expect(() => step(db, name, kwargs)).toThrow(ToolReturnedNoneError);
          } else {
            expect(step(db, name, kwargs), name).toBe(call.get("observation"));
          }
        }
        expect(db.tauBenchHash()).toBe(probe.get("data_hash_after"));
      });
    }
  });

  describe("gt_replay_airline_test.json", () => {
    // Kwargs are parsed from the task file's text so ints and floats are exactly as the model would send them.
    const tasksText = fixtureText("airline", "tasks_test.json");
    const tasks = (tasksText ? parsePythonJson(tasksText) : []) as PyDict[];
    const fixture = JSON.parse(fixtureText("fixtures", "gt_replay_airline_test.json") ?? '{"tasks": []}') as {
      initial_data_hash: string;
      tasks: Array<{ task_index: number; steps: Array<{ name: string; observation: string }>; gt_data_hash: string }>;
    };

    function replay(taskIndex: number): { observations: string[]; hash: string } {
      const db = fresh();
      const observations = (tasks[taskIndex].get("actions") as PyDict[]).map((action) => step(db, action.get("name") as string, action.get("kwargs") as PyDict));
      return { observations, hash: db.tauBenchHash() };
    }

    it("has every task", () => {
      expect(fixture.initial_data_hash).toBe(INITIAL_AIRLINE_HASH);
      expect(fixture.tasks.map((task) => task.task_index)).toEqual(tasks.map((_, index) => index));
    });

    for (const expected of fixture.tasks) {
      it(`task ${expected.task_index}`, () => {
        const { observations, hash } = replay(expected.task_index);
        expect(observations.length).toBe(expected.steps.length);
        expected.steps.forEach((stepFixture, index) => {
          expect(observations[index], `step ${index} ${stepFixture.name}`).toBe(stepFixture.observation);
        });
        expect(hash).toBe(expected.gt_data_hash);
      });
    }

    it("leaves the shared base untouched: a fresh episode still has the initial hash", () => {
      for (const expected of fixture.tasks) replay(expected.task_index);
      expect(fresh().tauBenchHash()).toBe(INITIAL_AIRLINE_HASH);
    });

    it("replays every task twice to the same hash and never changes the task's kwargs", () => {
      const before = tasks.map((task) => pyJsonDumps(task.get("actions")!));
      for (const expected of fixture.tasks) {
        const first = replay(expected.task_index);
        const second = replay(expected.task_index);
        expect(second.hash).toBe(first.hash);
        expect(second.observations).toEqual(first.observations);
        expect(second.hash).toBe(expected.gt_data_hash);
      }
      expect(tasks.map((task) => pyJsonDumps(task.get("actions")!))).toEqual(before);
    });

    it("stores copies: mutating a booking's arguments afterwards does not reach the database", () => {
      const db = fresh();
      const kwargs = (tasks[0].get("actions") as PyDict[])[0].get("kwargs") as PyDict;
      step(db, "book_reservation", kwargs);
      const hash = db.tauBenchHash();
      const ownKwargs = parsePythonJson(pyJsonDumps(kwargs)) as PyDict;
      const db2 = fresh();
      step(db2, "book_reservation", ownKwargs);
      (ownKwargs.get("passengers") as PyValue[]).push("intruder");
      (ownKwargs.get("payment_methods") as PyValue[]).length = 0;
      expect(db2.tauBenchHash()).toBe(hash);
    });
  });

  describe("quirks (domains/airline/README.md; τ-bench: tau_bench/envs/airline/tools/*.py)", () => {
    const mia = "mia_li_3668";
    const chen = "chen_jackson_3290";
    const oneSeatBooking = (overrides: Record<string, unknown> = {}) => ({
      user_id: mia,
      origin: "JFK",
      destination: "SEA",
      flight_type: "one_way",
      cabin: "economy",
      flights: [{ flight_number: "HAT069", date: "2024-05-20" }],
      passengers: [{ first_name: "Mia", last_name: "Li", dob: "1990-04-05" }],
      payment_methods: [{ payment_id: "credit_card_4421486", amount: 121 }],
      total_baggages: 0,
      nonfree_baggages: 0,
      insurance: "no",
      ...overrides,
    });

    it("prices HAT069 economy on 2024-05-20 at 121 (the base for the other cases)", () => {
      const reservation = parsed(step(fresh(), "book_reservation", oneSeatBooking()));
      expect(path(reservation, "flights", 0, "price")).toBe(121);
    });

    it("picks HATHAT, HATHAU, HATHAV, then overwrites HATHAV", () => {
      const db = fresh();
      const ids = [0, 1, 2, 3].map((index) => path(parsed(step(db, "book_reservation", oneSeatBooking({ total_baggages: index }))), "reservation_id"));
      expect(ids).toEqual(["HATHAT", "HATHAU", "HATHAV", "HATHAV"]);
      expect(path(parsed(step(db, "get_reservation_details", { reservation_id: "HATHAV" })), "total_baggages")).toBe(3);
      const reservationKeys = [...db.keys("reservations")];
      expect(reservationKeys.slice(-3)).toEqual(["HATHAT", "HATHAU", "HATHAV"]);
      expect(reservationKeys.length).toBe(2003);
      expect(path(parsed(step(db, "get_user_details", { user_id: mia })), "reservations")).toEqual(["NO6JO3", "AIXC49", "HKEG34", "HATHAT", "HATHAU", "HATHAV", "HATHAV"]);
    });

    it("keeps the int/float distinction in the payment error text", () => {
      const db = fresh();
      const float = step(db, "book_reservation", oneSeatBooking({ payment_methods: [{ payment_id: "credit_card_4421486", amount: new PyFloat(100) }] }));
      expect(float).toBe("Error: payment amount does not add up, total price is 121, but paid 100.0");
      const int = step(db, "book_reservation", oneSeatBooking({ payment_methods: [{ payment_id: "credit_card_4421486", amount: 100 }] }));
      expect(int).toBe("Error: payment amount does not add up, total price is 121, but paid 100");
    });

    it("raises KeyError for a repeated certificate after deleting it once (partial mutation)", () => {
      const db = fresh();
      const observation = step(
        db,
        "book_reservation",
        oneSeatBooking({
          payment_methods: [
            { payment_id: "certificate_4856383", amount: 50 },
            { payment_id: "certificate_4856383", amount: 50 },
            { payment_id: "credit_card_4421486", amount: 21 },
          ],
        }),
      );
      expect(observation).toBe("Error: 'certificate_4856383'");
      expect(db.has("reservations", "HATHAT")).toBe(false);
      const methods = path(parsed(step(db, "get_user_details", { user_id: mia })), "payment_methods") as PyDict;
      expect(methods.has("certificate_4856383")).toBe(false);
      expect(methods.has("certificate_7504069")).toBe(true);
      expect(db.tauBenchHash()).not.toBe(INITIAL_AIRLINE_HASH);
    });

    it("subtracts a float payment from an int gift card balance as a float", () => {
      const db = fresh();
      step(
        db,
        "book_reservation",
        oneSeatBooking({
          user_id: chen,
          passengers: [{ first_name: "Chen", last_name: "Jackson", dob: "1956-07-07" }],
          payment_methods: [
            { payment_id: "gift_card_3576581", amount: new PyFloat(120.5) },
            { payment_id: "gift_card_3576581", amount: new PyFloat(0.5) },
          ],
        }),
      );
      const user = step(db, "get_user_details", { user_id: chen });
      expect(user).toContain('"gift_card_3576581": {"source": "gift_card", "amount": 124.0, "id": "gift_card_3576581"}');
    });

    it("cancels twice by negating the whole history again, and refunds nothing", () => {
      const db = fresh();
      step(db, "cancel_reservation", { reservation_id: "4WQ150" });
      const second = parsed(step(db, "cancel_reservation", { reservation_id: "4WQ150" }));
      expect((path(second, "payment_history") as PyDict[]).map((entry) => entry.get("amount"))).toEqual([4986, -4986, -4986, 4986]);
      expect([...second.keys()].at(-1)).toBe("status");
      expect(step(db, "get_user_details", { user_id: chen })).toContain('"amount": 245');
    });

    it("does not update the cabin when flights change, and refunds to the gift card", () => {
      const db = fresh();
      const flights = [
        { flight_number: "HAT170", date: "2024-05-22" },
        { flight_number: "HAT022", date: "2024-05-26" },
      ];
      const changed = parsed(step(db, "update_reservation_flights", { reservation_id: "4WQ150", cabin: "economy", flights, payment_id: "gift_card_3576581" }));
      expect(path(changed, "cabin")).toBe("business");
      const refund = path(changed, "payment_history", 1, "amount") as number;
      expect(refund).toBeLessThan(0);
      expect(step(db, "get_user_details", { user_id: chen })).toContain(`"amount": ${245 - refund}`);
    });

    it("returns None after three certificates, which escapes as the ValidationError", () => {
      const db = fresh();
      expect(step(db, "send_certificate", { user_id: mia, amount: 100 })).toBe("Certificate certificate_3221322 added to user mia_li_3668 with amount 100.");
      expect(step(db, "send_certificate", { user_id: mia, amount: new PyFloat(50) })).toBe("Certificate certificate_3221323 added to user mia_li_3668 with amount 50.0.");
      step(db, "send_certificate", { user_id: mia, amount: 1 });
      expect(() => step(db, "send_certificate", { user_id: mia, amount: 1 })).toThrow(ToolReturnedNoneError);
    });

    it("says `user not found` for a missing reservation", () => {
      expect(step(fresh(), "get_reservation_details", { reservation_id: "ZZZZZZ" })).toBe("Error: user not found");
      expect(step(fresh(), "get_reservation_details", { reservation_id: 429815 })).toBe("Error: user not found");
    });

    it("does not change seat inventory when booking", () => {
      const db = fresh();
      const before = step(db, "search_direct_flight", { origin: "JFK", destination: "SEA", date: "2024-05-20" });
      step(db, "book_reservation", oneSeatBooking());
      expect(step(db, "search_direct_flight", { origin: "JFK", destination: "SEA", date: "2024-05-20" })).toBe(before);
    });

    it("onestop: unpadded next day and the first day's record on the second leg", () => {
      const db = fresh();
      const pairs = parsePythonJson(step(db, "search_onestop_flight", { origin: "LGA", destination: "SFO", date: "2024-05-20" })) as PyValue[][];
      const overnight = pairs.find((pair) => path(pair[0], "flight_number") === "HAT002")!;
      expect(path(overnight[1], "date")).toBe("2024-05-21");
      expect(step(db, "search_onestop_flight", { origin: "LGA", destination: "SFO", date: "2024-05-05" })).toBe("[]");
    });
  });

  describe("unvalidated arguments give Python's texts (verified against CPython 3.11)", () => {
    const base = {
      user_id: "mia_li_3668",
      origin: "JFK",
      destination: "SEA",
      flight_type: "one_way",
      cabin: "economy",
      flights: [{ flight_number: "HAT069", date: "2024-05-20" }],
      passengers: [{ first_name: "Mia", last_name: "Li", dob: "1990-04-05" }],
      payment_methods: [{ payment_id: "credit_card_4421486", amount: 121 }],
      total_baggages: 0,
      nonfree_baggages: 0,
      insurance: "no",
    };
    const book = (overrides: Record<string, unknown>) => step(fresh(), "book_reservation", { ...base, ...overrides });
    const empty = { flights: [], passengers: [], payment_methods: {} };

    it.each([
      [{ payment_methods: [{ payment_id: "credit_card_4421486", amount: "121" }] }, "Error: unsupported operand type(s) for +: 'int' and 'str'"],
      [{ payment_methods: [{ payment_id: "certificate_4856383", amount: "1" }] }, "Error: '<' not supported between instances of 'int' and 'str'"],
      [{ flights: ["HAT069"] }, "Error: string indices must be integers, not 'str'"],
      [{ flights: [["HAT069"]] }, "Error: list indices must be integers or slices, not str"],
      [{ flights: 5 }, "Error: 'int' object is not iterable"],
      [{ passengers: 1 }, "Error: object of type 'int' has no len()"],
      [{ cabin: "first" }, "Error: 'first'"],
      [{ cabin: null }, "Error: None"],
      [{ flights: [{ flight_number: "HAT069" }] }, "Error: 'date'"],
      [{ flights: [{ flight_number: ["HAT069"], date: "2024-05-20" }] }, "Error: unhashable type: 'list'"],
      [{ flights: [{ flight_number: 69, date: "2024-05-20" }] }, "Error: flight 69 not found"],
      [{ ...empty, payment_methods: [], nonfree_baggages: "2" }, "Error: unsupported operand type(s) for +=: 'int' and 'str'"],
      [{ ...empty, payment_methods: [], nonfree_baggages: null }, "Error: unsupported operand type(s) for *: 'int' and 'NoneType'"],
      [{ payment_methods: [{ payment_id: "credit_card_4421486", amount: true }], insurance: true }, "Error: payment amount does not add up, total price is 121, but paid 1"],
      [{ user_id: { id: "mia_li_3668" } }, "Error: unhashable type: 'dict'"],
    ])("book_reservation %j", (overrides, expected) => {
      expect(book(overrides)).toBe(expected);
    });

    it("a booking stored with an empty dict as payment history cannot be cancelled (AttributeError)", () => {
      const db = fresh();
      const booked = step(db, "book_reservation", { ...base, ...empty });
      expect(booked).toContain('"payment_history": {}');
      expect(step(db, "cancel_reservation", { reservation_id: "HATHAT" })).toBe("Error: 'dict' object has no attribute 'extend'");
    });

    it("a booking with an int passenger count succeeds without flights, then a flight change fails on len()", () => {
      const db = fresh();
      step(db, "book_reservation", { ...base, ...empty, passengers: 5, payment_methods: "" });
      expect(step(db, "cancel_reservation", { reservation_id: "HATHAT" })).toBe("Error: 'str' object has no attribute 'extend'");
      expect(
        step(db, "update_reservation_flights", {
          reservation_id: "HATHAT",
          cabin: "economy",
          flights: [{ flight_number: "HAT069", date: "2024-05-20" }],
          payment_id: "credit_card_4421486",
        }),
      ).toBe("Error: object of type 'int' has no len()");
    });

    it.each([
      ["1", "Error: unsupported operand type(s) for -: 'str' and 'int'"],
      [[1], "Error: unsupported operand type(s) for -: 'list' and 'int'"],
    ])("update_reservation_baggages nonfree_baggages=%j", (nonfree, expected) => {
      const args = { reservation_id: "4WQ150", total_baggages: 1, nonfree_baggages: nonfree, payment_id: "gift_card_3576581" };
      expect(step(fresh(), "update_reservation_baggages", args)).toBe(expected);
    });

    it.each([
      ["2024-05-x0", "Error: invalid literal for int() with base 10: 'x0'"],
      [{ a: 1 }, "Error: unhashable type: 'slice'"],
      [["2024-05-20"], "Error: int() argument must be a string, a bytes-like object or a real number, not 'list'"],
      [20, "Error: 'int' object is not subscriptable"],
      ["\u0661\u0669", "[]"],
    ])("search_onestop_flight date=%j", (date, expected) => {
      expect(step(fresh(), "search_onestop_flight", { origin: "LGA", destination: "SFO", date })).toBe(expected);
    });

    it("lookups are type-strict and reject unhashable ids", () => {
      const db = fresh();
      expect(step(db, "get_reservation_details", { reservation_id: ["4WQ150"] })).toBe("Error: unhashable type: 'list'");
      expect(step(db, "get_user_details", { user_id: { a: 1 } })).toBe("Error: unhashable type: 'dict'");
      expect(step(db, "update_reservation_passengers", { reservation_id: "4WQ150", passengers: 3 })).toBe("Error: object of type 'int' has no len()");
    });

    it("formats any amount the way an f-string does", () => {
      expect(step(fresh(), "send_certificate", { user_id: "mia_li_3668", amount: [1, new PyFloat(2), null] })).toBe(
        "Certificate certificate_3221322 added to user mia_li_3668 with amount [1, 2.0, None].",
      );
    });

    it("reports binding errors with the class name", () => {
      expect(step(fresh(), "update_reservation_passengers", { reservation_id: "4WQ150" })).toBe("Error: UpdateReservationPassengers.invoke() missing 1 required positional argument: 'passengers'");
      expect(step(fresh(), "list_all_airports", { x: 1 })).toBe("Error: ListAllAirports.invoke() got an unexpected keyword argument 'x'");
    });
  });

  it("still has a pristine shared base after every test above (copy-on-write held)", () => {
    expect(fresh().tauBenchHash()).toBe(INITIAL_AIRLINE_HASH);
    // The base caches its hash text, so also compare its live records with a fresh load from disk.
    const reloaded = loadBaseDatabase(join(directory, "airline"), ["flights", "reservations", "users"]);
    for (const name of ["flights", "reservations", "users"]) {
      expect(pyJsonDumps(base.collections.get(name)!) === pyJsonDumps(reloaded.collections.get(name)!), name).toBe(true);
    }
  });
});
