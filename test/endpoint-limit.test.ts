/**
 * The per-endpoint limit of the run's model clients: at most `limit` calls at once, the others
 * started in the order they came as calls end, failures freeing their slot like answers.
 */
import { describe, expect, it } from "vitest";
import { EndpointLimit } from "../src/run/model-clients.ts";

/** A call that ends when told to: `end(value)` answers, `fail(error)` rejects. */
function pendingCall() {
  let end!: (value: string) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<string>((resolve, reject) => {
    end = resolve;
    fail = reject;
  });
  return { promise, end, fail };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("EndpointLimit", () => {
  it("runs at most `limit` calls at once and starts the waiting ones in order as calls end or fail", async () => {
    const limit = new EndpointLimit(2);
    const calls = [pendingCall(), pendingCall(), pendingCall(), pendingCall()];
    const started: number[] = [];
    const results = calls.map((call, index) =>
      limit
        .run(() => {
          started.push(index);
          return call.promise;
        })
        .catch((error: Error) => `failed: ${error.message}`),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    calls[1]?.fail(new Error("refused"));
    await settle();
    expect(started).toEqual([0, 1, 2]);
    calls[0]?.end("a");
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    calls[2]?.end("c");
    calls[3]?.end("d");
    expect(await Promise.all(results)).toEqual(["a", "failed: refused", "c", "d"]);
    // Every slot is free again: two calls start at once.
    const again = [pendingCall(), pendingCall()];
    const startedAgain: number[] = [];
    const more = again.map((call, index) =>
      limit.run(() => {
        startedAgain.push(index);
        return call.promise;
      }),
    );
    expect(startedAgain).toEqual([0, 1]);
    for (const call of again) call.end("x");
    await Promise.all(more);
  });

  it("enter() takes a free slot at once; a full limit hands each slot left to the next waiting entry, in order", async () => {
    const limit = new EndpointLimit(1);
    expect(limit.enter()).toBeUndefined();
    const entered: string[] = [];
    const second = limit.enter()?.then(() => entered.push("second"));
    const third = limit.enter()?.then(() => entered.push("third"));
    expect(second).toBeDefined();
    await settle();
    expect(entered).toEqual([]);
    limit.leave();
    await second;
    expect(entered).toEqual(["second"]);
    limit.leave();
    await third;
    expect(entered).toEqual(["second", "third"]);
    limit.leave();
    // Free again: the next entry needs no wait.
    expect(limit.enter()).toBeUndefined();
    limit.leave();
  });

  it("frees the slot of a call that throws before it returns a promise", async () => {
    const limit = new EndpointLimit(1);
    await expect(
      limit.run(() => {
        throw new Error("bad request");
      }),
    ).rejects.toThrow("bad request");
    expect(await limit.run(async () => "next")).toBe("next");
  });
});
