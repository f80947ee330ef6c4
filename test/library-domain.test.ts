/**
 * The bundled `library` domain: every task's ground truth earns reward 1.0 through the real
 * environment, wrong end states earn 0, every tool error branch has its exact text, the schemas
 * match the implementations, and episodes never leak writes into the shared base data.
 * Needs no shared data: everything used here ships in `domains/library/data`.
 */
import { describe, expect, it } from "vitest";
import { libraryDomain } from "../domains/library/index.ts";
import { addDays, daysBetween } from "../domains/library/tools.ts";
import type { Action, Task } from "../src/core/types.ts";
import { readPythonJsonFile } from "../src/data/data-files.ts";
import { loadBaseDatabase } from "../src/suites/tau-bench/engine/database.ts";
import { loadDomain, type LoadedDomain } from "../src/suites/tau-bench/engine/domain.ts";
import type { Participant, Turn } from "../src/core/contracts.ts";
import { simulatedUser, type UserSimulator } from "../src/suites/tau-bench/participants/simulated-user.ts";
import { runEpisode } from "../src/suites/tau-bench/loop.ts";
import { invokeTool } from "../src/suites/tau-bench/engine/tool.ts";
import { pyFloat, pyJsonDumps, type PyDict, type PyValue } from "../src/value/index.ts";

/** A user simulator that says the instruction, then stops at the agent's first message. */
class ScriptedUser implements UserSimulator {
  async reset(instruction: string): Promise<string> {
    return instruction;
  }
  async step(): Promise<string> {
    return "Thanks. ###STOP###";
  }
  reportedCost(): number | null {
    return null;
  }
}

const scriptedUser = simulatedUser("scripted", () => new ScriptedUser());
const domain: LoadedDomain = loadDomain(libraryDomain, undefined);

function action(name: string, kwargs: Record<string, PyValue>): Action {
  return { name, kwargs: new Map(Object.entries(kwargs)) };
}

/** Runs one tool on a fresh episode database and returns the observation. */
function call(name: string, kwargs: Record<string, PyValue>, db = domain.newDatabase()): string {
  const tool = domain.toolsByName.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return invokeTool(tool, libraryDomain.dataSubdirectory, db, new Map(Object.entries(kwargs)));
}

/** An agent that takes the given actions, one per turn, then says `message` to the user. */
function actionsAgent(actions: readonly Action[], message: string): Participant<Task> {
  return {
    name: "scripted-actions",
    start: () => {
      let next = 0;
      return {
        next: async (): Promise<Turn> => {
          const step = actions[next++];
          return step ? { content: null, toolCalls: [{ id: "", name: step.name, arguments: step.kwargs }] } : { content: message, toolCalls: [] };
        },
      };
    },
  };
}

/**
 * Plays an episode through the orchestrator: the given actions, then (unless a terminate tool
 * already ended it) one message to the user, which stops. Returns the final reward.
 */
async function play(task: Task, actions: readonly Action[], message: string): Promise<number> {
  const result = await runEpisode({ domain, task, taskIndex: 0, trial: 0, agent: actionsAgent(actions, message), user: scriptedUser, maxSteps: 100 });
  expect(["user_stop", "agent_stop"]).toContain(result.termination);
  return result.reward;
}

function baseText(): string {
  return pyJsonDumps(new Map(domain.base.collections) as PyDict);
}

const initialBaseText = baseText();
const initialHash = domain.newDatabase().tauBenchHash();

describe("library domain: data and schemas", () => {
  it("loads from the bundled directory with the collections in order", () => {
    expect(domain.dataDirectory.endsWith("library/data")).toBe(true);
    expect([...domain.base.collections.keys()]).toEqual(["members", "catalog", "loans"]);
    expect(domain.base.collections.get("members")!.size).toBe(15);
    expect(domain.base.collections.get("catalog")!.size).toBe(25);
    expect(domain.base.collections.get("loans")!.size).toBe(23);
    expect(domain.policy).toContain("2025-03-14");
  });

  it("keeps integral floats as floats (5.0 stays 5.0)", () => {
    const ava = domain.base.collections.get("members")!.get("ava_lindqvist_4102") as PyDict;
    expect(pyJsonDumps(ava.get("fines_balance"))).toBe("5.0");
    expect(call("get_member_details", { member_id: "ava_lindqvist_4102" })).toContain('"fines_balance": 5.0,');
  });

  it("has tool schemas whose names match the implementations, in order", () => {
    const names = domain.toolSchemas.json.map((schema) => (schema.function as { name: string }).name);
    expect(names).toEqual(libraryDomain.tools.map((tool) => tool.name));
    expect(names).toEqual([
      "calculate",
      "find_member_id_by_email",
      "find_member_id_by_name_zip",
      "get_book_details",
      "get_loan_details",
      "get_member_details",
      "pay_fine",
      "place_hold",
      "renew_loan",
      "report_lost_copy",
      "search_catalog",
      "think",
      "transfer_to_human_agents",
    ]);
    for (const [index, schema] of domain.toolSchemas.json.entries()) {
      const fn = schema.function as { parameters: { properties: Record<string, unknown>; required: string[] } };
      expect(Object.keys(fn.parameters.properties)).toEqual([...libraryDomain.tools[index].parameters]);
      expect(fn.parameters.required).toEqual([...libraryDomain.tools[index].parameters]);
    }
  });

  it("has consistent records: copies on loan match active loans, members list their loans and holds", () => {
    const members = domain.base.collections.get("members")!;
    const catalog = domain.base.collections.get("catalog")!;
    const loans = domain.base.collections.get("loans")!;
    const activeCopies = new Set<string>();
    for (const [loanId, loan] of loans as Map<string, PyDict>) {
      const member = members.get(loan.get("member_id") as string) as PyDict;
      expect(member.get("loans") as string[]).toContain(loanId);
      const book = catalog.get(loan.get("book_id") as string) as PyDict;
      const copy = (book.get("copies") as PyDict[]).find((entry) => entry.get("copy_id") === loan.get("copy_id"))!;
      const expected = { active: "on_loan", lost: "lost" }[loan.get("status") as string];
      if (expected) expect(copy.get("status")).toBe(expected);
      if (loan.get("status") === "active") activeCopies.add(loan.get("copy_id") as string);
    }
    for (const [bookId, book] of catalog as Map<string, PyDict>) {
      for (const copy of book.get("copies") as PyDict[]) {
        expect(["available", "on_loan", "on_hold", "lost"]).toContain(copy.get("status"));
        if (copy.get("status") === "on_loan") expect(activeCopies.has(copy.get("copy_id") as string)).toBe(true);
      }
      for (const holder of book.get("holds") as string[]) {
        expect((members.get(holder) as PyDict).get("holds") as string[]).toContain(bookId);
      }
    }
  });
});

describe("library domain: ground-truth replays", () => {
  for (const split of Object.keys(libraryDomain.splits)) {
    const tasks = domain.tasks(split);

    it(`${split} split has its tasks, all annotated by taubridge`, () => {
      expect(tasks.length).toBe(split === "test" ? 11 : 3);
      for (const task of tasks) expect(task.annotator).toBe("taubridge");
    });

    tasks.forEach((task, index) => {
      it(`${split} task ${index} (${task.user_id}): ground truth then the outputs earns 1.0`, async () => {
        const message = task.outputs.length > 0 ? `Here you go: ${task.outputs.join(" and ")}.` : "All done.";
        expect(await play(task, task.actions, message)).toBe(1.0);
      });
    });
  }

  it("covers the required task kinds: read-only with outputs, writes, a transfer, an erroring action", () => {
    const tasks = domain.tasks("test");
    const writes = new Set(["pay_fine", "place_hold", "renew_loan", "report_lost_copy"]);
    const readOnly = tasks.filter((task) => task.actions.every((step) => !writes.has(step.name) && step.name !== "transfer_to_human_agents"));
    expect(readOnly.some((task) => task.outputs.length > 0)).toBe(true);
    expect(tasks.filter((task) => task.actions.some((step) => writes.has(step.name))).length).toBeGreaterThanOrEqual(5);
    expect(tasks.filter((task) => task.actions.at(-1)?.name === "transfer_to_human_agents")).toHaveLength(1);
    const erroring = tasks.flatMap((task) => {
      const db = domain.newDatabase();
      return task.actions
        .filter((step) => step.name !== "transfer_to_human_agents")
        .map((step) => ({ step, observation: invokeTool(domain.toolsByName.get(step.name)!, "library", db, step.kwargs) }))
        .filter(({ observation }) => observation.startsWith("Error: "));
    });
    expect(erroring.map(({ step, observation }) => `${step.name} ${pyJsonDumps(step.kwargs)} -> ${observation}`)).toEqual([
      'renew_loan {"loan_id": "L2002"} -> Error: another member has a hold on this book',
    ]);
  });

  it("write tasks change the data and read-only tasks leave it unchanged", () => {
    for (const task of [...domain.tasks("test"), ...domain.tasks("dev")]) {
      const db = domain.newDatabase();
      for (const step of task.actions) invokeTool(domain.toolsByName.get(step.name)!, "library", db, step.kwargs);
      const writes = task.actions.some((step) => ["pay_fine", "place_hold", "renew_loan", "report_lost_copy"].includes(step.name));
      expect(db.tauBenchHash() !== initialHash).toBe(writes);
    }
  });

  it("a wrong action sequence earns 0", async () => {
    const tasks = domain.tasks("test");
    // Ava: forgetting the renewal that works.
    const ava = tasks[2];
    expect(
      await play(
        ava,
        ava.actions.filter((step) => step.name !== "renew_loan"),
        "2025-03-28",
      ),
    ).toBe(0);
    // Mateo: paying more than needed.
    const mateo = tasks[3];
    const overpay = mateo.actions.map((step) => (step.name === "pay_fine" ? action("pay_fine", { member_id: "mateo_rossi_6152", amount: pyFloat(18.0), payment_method_id: "card_5547" }) : step));
    expect(await play(mateo, overpay, "Done.")).toBe(0);
    // Elias: a hold on the wrong book.
    const elias = tasks[4];
    const wrongHold = [...elias.actions.slice(0, -1), action("place_hold", { member_id: "elias_brandt_3307", book_id: "B1022" })];
    expect(await play(elias, wrongHold, "Done.")).toBe(0);
    // A read-only task with a stray write.
    const hana = tasks[0];
    expect(await play(hana, [...hana.actions, action("place_hold", { member_id: "hana_sato_6620", book_id: "B1009" })], "Eastside")).toBe(0);
    // The right actions but a missing output.
    expect(await play(tasks[5], tasks[5].actions, "You were charged twelve dollars.")).toBe(0);
  });

  it("an int amount gives the same end state as the float in the ground truth", async () => {
    const mateo = domain.tasks("test")[3];
    const intAmount = mateo.actions.map((step) => (step.name === "pay_fine" ? action("pay_fine", { member_id: "mateo_rossi_6152", amount: 8, payment_method_id: "card_5547" }) : step));
    expect(await play(mateo, intAmount, "Done.")).toBe(1.0);
  });

  it("never mutates the shared base data", () => {
    expect(baseText()).toBe(initialBaseText);
    expect(domain.newDatabase().tauBenchHash()).toBe(initialHash);
    const fresh = loadBaseDatabase(domain.dataDirectory, libraryDomain.collections);
    expect(pyJsonDumps(new Map(fresh.collections) as PyDict)).toBe(initialBaseText);
  });
});

describe("library domain: tool outputs", () => {
  it("find_member_id_by_email / find_member_id_by_name_zip", () => {
    expect(call("find_member_id_by_email", { email: "Ava.Lindqvist@Example.com" })).toBe("ava_lindqvist_4102");
    expect(call("find_member_id_by_email", { email: "nobody@example.com" })).toBe("Error: member not found");
    expect(call("find_member_id_by_email", { email: 42 })).toBe("Error: 'int' object has no attribute 'lower'");
    expect(call("find_member_id_by_name_zip", { first_name: "ava", last_name: "MORENO", zip: "78704" })).toBe("ava_moreno_2676");
    expect(call("find_member_id_by_name_zip", { first_name: "Ava", last_name: "Moreno", zip: "02139" })).toBe("Error: member not found");
    expect(call("find_member_id_by_name_zip", { first_name: null, last_name: "Moreno", zip: "78704" })).toBe("Error: 'NoneType' object has no attribute 'lower'");
    expect(call("find_member_id_by_name_zip", { first_name: "Ava", last_name: "Moreno" })).toBe("Error: FindMemberIdByNameZip.invoke() missing 1 required positional argument: 'zip'");
  });

  it("get_*_details return the record or a not-found error", () => {
    expect(call("get_loan_details", { loan_id: "L2001" })).toBe(
      '{"loan_id": "L2001", "member_id": "ava_lindqvist_4102", "book_id": "B1007", "copy_id": "B1007-1", "checkout_date": "2025-02-21", "due_date": "2025-03-14", "renewals": 0, "status": "active"}',
    );
    expect(call("get_book_details", { book_id: "B1010" })).toBe(
      '{"book_id": "B1010", "title": "Tidewater Stories for Children", "author": "Agnes Holloway", "year": 1999, "replacement_fee": 15.0, "copies": [{"copy_id": "B1010-1", "branch": "Harbor", "status": "on_hold"}], "holds": ["lena_fischer_7315"]}',
    );
    expect(call("get_book_details", { book_id: "B9999" })).toBe("Error: book not found");
    expect(call("get_loan_details", { loan_id: 2001 })).toBe("Error: loan not found");
    expect(call("get_member_details", { member_id: "nobody" })).toBe("Error: member not found");
  });

  it("search_catalog matches title or author, ignores case, sorts by title", () => {
    expect(call("search_catalog", { query: "clara ashdown" })).toBe(
      '[{"book_id": "B1024", "title": "Ghosts of the Lending Desk", "author": "Clara Ashdown", "year": 2022, "available_copies": 0}, ' +
        '{"book_id": "B1013", "title": "The Night Ferry Murders", "author": "Clara Ashdown", "year": 2017, "available_copies": 0}, ' +
        '{"book_id": "B1014", "title": "The Night Ferry Returns", "author": "Clara Ashdown", "year": 2019, "available_copies": 1}]',
    );
    const river = JSON.parse(call("search_catalog", { query: "RIVER" })) as { title: string }[];
    expect(river.map((book) => book.title)).toEqual(["A Field Guide to Quiet Rivers", "River Glass", "The Quiet Riverbank"]);
    expect(call("search_catalog", { query: "zzz" })).toBe("[]");
    expect(call("search_catalog", { query: ["x"] })).toBe("Error: 'list' object has no attribute 'lower'");
  });

  it("renew_loan: success and every refusal", () => {
    expect(call("renew_loan", { loan_id: "L2001" })).toBe(
      '{"loan_id": "L2001", "member_id": "ava_lindqvist_4102", "book_id": "B1007", "copy_id": "B1007-1", "checkout_date": "2025-02-21", "due_date": "2025-03-28", "renewals": 1, "status": "active"}',
    );
    expect(call("renew_loan", { loan_id: "L9999" })).toBe("Error: loan not found");
    expect(call("renew_loan", { loan_id: "L2003" })).toBe("Error: only active loans can be renewed");
    expect(call("renew_loan", { loan_id: "L2021" })).toBe("Error: only active loans can be renewed");
    expect(call("renew_loan", { loan_id: "L2008" })).toBe("Error: loan is 10 days overdue; loans more than 7 days overdue cannot be renewed");
    expect(call("renew_loan", { loan_id: "L2002" })).toBe("Error: another member has a hold on this book");
    expect(call("renew_loan", { loan_id: "L2004" })).toBe("Error: renewals are blocked while the fines balance is above 10.00");
    // A standard loan renewed twice; a patron loan renewed three times.
    const db = domain.newDatabase();
    expect(call("renew_loan", { loan_id: "L2005" }, db)).toBe("Error: renewals are blocked while the fines balance is above 10.00");
    call("pay_fine", { member_id: "mateo_rossi_6152", amount: 8, payment_method_id: "card_5547" }, db);
    expect(call("renew_loan", { loan_id: "L2005" }, db)).toContain('"due_date": "2025-03-31", "renewals": 2,');
    expect(call("renew_loan", { loan_id: "L2005" }, db)).toBe("Error: loan has already been renewed 2 times, the limit for the standard tier");
    expect(call("renew_loan", { loan_id: "L2012" }, db)).toContain('"due_date": "2025-03-28", "renewals": 3,');
    expect(call("renew_loan", { loan_id: "L2012" }, db)).toBe("Error: loan has already been renewed 3 times, the limit for the patron tier");
  });

  it("place_hold: success and every refusal", () => {
    expect(call("place_hold", { member_id: "lena_fischer_7315", book_id: "B1023" })).toBe('{"member_id": "lena_fischer_7315", "book_id": "B1023", "title": "Harbor Lights", "queue_position": 2}');
    expect(call("place_hold", { member_id: "nobody", book_id: "B1023" })).toBe("Error: member not found");
    expect(call("place_hold", { member_id: "lena_fischer_7315", book_id: "B0000" })).toBe("Error: book not found");
    expect(call("place_hold", { member_id: "lena_fischer_7315", book_id: "B1010" })).toBe("Error: member already has a hold on this book");
    expect(call("place_hold", { member_id: "lena_fischer_7315", book_id: "B1009" })).toBe("Error: member already has this book on loan");
    expect(call("place_hold", { member_id: "lena_fischer_7315", book_id: "B1001" })).toBe("Error: a copy is available on the shelf, so no hold is needed");
    const db = domain.newDatabase();
    for (const bookId of ["B1002", "B1009"]) call("place_hold", { member_id: "hana_sato_6620", book_id: bookId }, db);
    expect(call("place_hold", { member_id: "hana_sato_6620", book_id: "B1016" }, db)).toBe("Error: hold limit of 3 reached for the standard tier");
    expect(call("get_member_details", { member_id: "hana_sato_6620" }, db)).toContain('"holds": ["B1013", "B1002", "B1009"]');
    expect(call("get_book_details", { book_id: "B1009" }, db)).toContain('"holds": ["hana_sato_6620"]');
  });

  it("pay_fine: stores a float amount, rounds the balance, and refuses bad payments", () => {
    const db = domain.newDatabase();
    expect(call("pay_fine", { member_id: "george_pike_1196", amount: pyFloat(1.1), payment_method_id: "debit_1150" }, db)).toContain('"fines_balance": 2.3, "payment_methods"');
    const george = call("pay_fine", { member_id: "george_pike_1196", amount: 2, payment_method_id: "card_6602" }, db);
    expect(george).toContain('"fines_balance": 0.3,');
    expect(george).toContain('"payments": [{"amount": 1.1, "payment_method_id": "debit_1150", "date": "2025-03-14"}, {"amount": 2.0, "payment_method_id": "card_6602", "date": "2025-03-14"}]}');
    expect(call("pay_fine", { member_id: "george_pike_1196", amount: pyFloat(0.3), payment_method_id: "card_6602" }, db)).toContain('"fines_balance": 0.0,');
    expect(call("pay_fine", { member_id: "nobody", amount: 1, payment_method_id: "card_6602" })).toBe("Error: member not found");
    expect(call("pay_fine", { member_id: "george_pike_1196", amount: 1, payment_method_id: "card_5120" })).toBe("Error: payment method not found");
    expect(call("pay_fine", { member_id: "george_pike_1196", amount: "1.00", payment_method_id: "card_6602" })).toBe("Error: amount must be a number");
    expect(call("pay_fine", { member_id: "george_pike_1196", amount: true, payment_method_id: "card_6602" })).toBe("Error: amount must be a number");
    expect(call("pay_fine", { member_id: "george_pike_1196", amount: pyFloat(0.0), payment_method_id: "card_6602" })).toBe("Error: amount must be positive");
    expect(call("pay_fine", { member_id: "george_pike_1196", amount: 4, payment_method_id: "card_6602" })).toBe("Error: amount exceeds the fines balance of 3.4");
    expect(call("pay_fine", { member_id: "hana_sato_6620", amount: 1, payment_method_id: "card_7055" })).toBe("Error: amount exceeds the fines balance of 0.0");
  });

  it("report_lost_copy: full fee, the student half (round half even), and refusals", () => {
    const db = domain.newDatabase();
    expect(call("report_lost_copy", { loan_id: "L2006" }, db)).toBe(
      '{"loan_id": "L2006", "member_id": "chen_wei_2290", "book_id": "B1018", "copy_id": "B1018-1", "checkout_date": "2025-02-20", "due_date": "2025-03-13", "renewals": 0, "status": "lost", "replacement_fee": 12.88}',
    );
    expect(call("get_member_details", { member_id: "chen_wei_2290" }, db)).toContain('"fines_balance": 15.63,');
    expect(call("get_book_details", { book_id: "B1018" }, db)).toContain('"status": "lost"');
    expect(call("report_lost_copy", { loan_id: "L2006" }, db)).toBe("Error: only active loans can be reported lost");
    expect(call("report_lost_copy", { loan_id: "L2007" }, db)).toContain('"status": "lost", "replacement_fee": 18.0}');
    expect(call("get_member_details", { member_id: "kofi_mensah_2048" }, db)).toContain('"fines_balance": 19.0,');
    expect(call("report_lost_copy", { loan_id: "nope" })).toBe("Error: loan not found");
    expect(call("report_lost_copy", { loan_id: "L2019" })).toBe("Error: only active loans can be reported lost");
  });

  it("calculate, think and transfer_to_human_agents are the shared tools", () => {
    expect(call("calculate", { expression: "1.0 + 18.0" })).toBe("19.0");
    expect(call("think", { thought: "check the holds" })).toBe("");
    expect(call("transfer_to_human_agents", { summary: "fine dispute" })).toBe("Transfer successful");
    expect(call("renew_loan", { loan_id: "L2001", extra: 1 })).toBe("Error: RenewLoan.invoke() got an unexpected keyword argument 'extra'");
  });

  it("date helpers are calendar-correct and time-zone independent", () => {
    expect(addDays("2025-02-21", 21)).toBe("2025-03-14");
    expect(addDays("2024-02-20", 14)).toBe("2024-03-05");
    expect(addDays("2025-12-25", 14)).toBe("2026-01-08");
    expect(daysBetween("2025-03-04", "2025-03-14")).toBe(10);
    expect(daysBetween("2025-03-21", "2025-03-14")).toBe(-7);
  });

  it("the policy and schema files are valid and mention the rules the tools enforce", () => {
    expect(Array.isArray(readPythonJsonFile(`${domain.dataDirectory}/tools_info.json`))).toBe(true);
    for (const rule of ["14 days", "7 days overdue", "10.00", "3 for `patron`", "half of the replacement fee"]) {
      expect(domain.policy).toContain(rule);
    }
  });
});
