/**
 * The A2A client against wire fixtures (`test/fixtures/a2a/replies/*.json`): every reply shape real
 * agents send, in both protocol versions — message-only agents, ADK tasks with artifacts, status-only
 * and history-only tasks, input-required hybrids, parts without `kind`, the v1.0 wrappers, every
 * action style — served by a raw HTTP fake and read by the real client through one agent turn. Each
 * fixture says what the turn must be (words, tool calls with their Python-JSON arguments, how they
 * were written) or which typed error and termination it must end in.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createA2AAgent } from "../../src/a2a/client/create-agent.ts";
import type { A2AAgent } from "../../src/a2a/client/a2a-agent.ts";
import { terminationForError } from "../../src/kernel/episode-kernel.ts";
import { pyJsonDumps } from "../../src/value/index.ts";
import { CARD_V03, cardV1, startFakeAgent, type FakeAgent } from "../support/a2a-fake-agent.ts";
import { testParticipantContext } from "../support/participant-context.ts";

interface Fixture {
  description: string;
  version: "0.3" | "1.0";
  result: unknown;
  expect: {
    calls?: Array<{ name: string; arguments: string; id?: string }>;
    content?: string | null;
    style?: string;
    tokens?: { input: number; output: number; source: string };
    continuesTask?: string;
    contextId?: null;
    error?: string;
    termination?: string;
    message?: string;
  };
}

const DIRECTORY = join(import.meta.dirname, "..", "fixtures", "a2a", "replies");
const fixtures = readdirSync(DIRECTORY)
  .filter((name) => name.endsWith(".json"))
  .map((name) => [name.replace(/\.json$/, ""), JSON.parse(readFileSync(join(DIRECTORY, name), "utf8")) as Fixture] as const);

let fake: FakeAgent | undefined;
let agent: A2AAgent | undefined;
afterEach(async () => {
  await agent?.close();
  await fake?.close();
  agent = undefined;
  fake = undefined;
});

/** A fake serving the fixture's result for the first send, and a plain reply after. */
async function serve(fixture: Fixture): Promise<{ fake: FakeAgent; agent: A2AAgent }> {
  fake = await startFakeAgent({
    card: fixture.version === "1.0" ? cardV1 : CARD_V03,
    answer: (_request, index) => (index === 0 ? { result: fixture.result } : { result: { kind: "message", role: "agent", messageId: "m-2", parts: [{ kind: "text", text: "ok" }] } }),
  });
  agent = await createA2AAgent({ endpoint: fake.url, retryDelay: "0" });
  return { fake, agent };
}

describe("A2A reply shapes (wire fixtures, both versions)", () => {
  it("has a fixture for each version and each family of shapes", () => {
    const names = fixtures.map(([name]) => name);
    expect(names.filter((name) => name.startsWith("v03-")).length).toBeGreaterThanOrEqual(15);
    expect(names.filter((name) => name.startsWith("v1-")).length).toBeGreaterThanOrEqual(6);
  });

  for (const [name, fixture] of fixtures) {
    it(`${name}: ${fixture.description}`, async () => {
      const { fake, agent } = await serve(fixture);
      const usage: Array<[number, number, number]> = [];
      const session = await agent.start(testParticipantContext({}, { usage: { add: () => undefined, addUnpriced: (calls, input, output) => usage.push([calls, input, output]) } }));
      const first = fake.rpc()[0];
      const expected = fixture.expect;
      const turn = session.next({ type: "text", content: "I want to exchange a keyboard." }, new AbortController().signal);
      if (expected.error) {
        const error = await turn.then(
          () => undefined,
          (failure: unknown) => failure as Error,
        );
        expect(error?.name).toBe(expected.error);
        expect(terminationForError(error)).toBe(expected.termination);
        if (expected.message) expect(error?.message).toContain(expected.message);
        const log = session.extra?.()?.protocol as { exchanges: Array<{ error: unknown }> };
        expect(log.exchanges).toHaveLength(1);
        return;
      }
      const result = await turn;
      expect(result.content).toBe(expected.content ?? null);
      expect(result.toolCalls.map((call) => ({ name: call.name, arguments: pyJsonDumps(call.arguments), ...(expected.calls?.some((e) => e.id) ? { id: call.id } : {}) }))).toEqual(
        expected.calls ?? [],
      );
      expect((result.raw as { style: string }).style).toBe(expected.style);
      // The request was in the version's wire shape.
      const sent = fake.rpc()[0] ?? first;
      expect(sent.body?.method).toBe(fixture.version === "1.0" ? "SendMessage" : "message/send");
      expect(sent.headers["a2a-version"]).toBe(fixture.version);
      const message = (sent.body?.params as { message: Record<string, unknown> }).message;
      if (fixture.version === "0.3") expect(message).toMatchObject({ kind: "message", role: "user", parts: [{ kind: "text" }] });
      else expect(message).toMatchObject({ role: "ROLE_USER", parts: [{ text: expect.any(String) }] });
      expect(message.contextId).toBeUndefined();
      const log = session.extra?.()?.protocol as { exchanges: Array<{ tokens: unknown; taskState: unknown; httpStatus: number }> };
      expect(log.exchanges[0].httpStatus).toBe(200);
      if (expected.tokens) {
        expect(log.exchanges[0].tokens).toEqual(expected.tokens);
        expect(usage).toEqual([[1, expected.tokens.input, expected.tokens.output]]);
      } else {
        expect((log.exchanges[0].tokens as { source: string }).source).toBe("estimated");
        expect(usage).toEqual([[1, 0, 0]]); // a call of unknown cost; estimates stay in the protocol log
      }
      expect(result.cost).toBeNull();
      // The second turn continues the conversation: the same contextId (when the agent gave one), the task id only while it waits for input.
      await session.next({ type: "tool_results", results: [{ id: "x", name: "get_order_details", content: "{}", error: false }] }, new AbortController().signal);
      const second = (fake.rpc()[1].body?.params as { message: Record<string, unknown> }).message;
      expect(second.contextId).toBe(expected.contextId === null ? undefined : "ctx-1");
      expect(second.taskId).toBe(expected.continuesTask);
      expect(JSON.stringify(second.parts)).toContain("Tool 'get_order_details' result: {}");
      expect(second.messageId).not.toBe(message.messageId);
    });
  }
});
