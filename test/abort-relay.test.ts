/**
 * The abort relay keeps a signal's one listener while calls come and go (adding and removing it per
 * model call cost CPU), and drops it once the signal has had no waiter for a while: Node keeps an
 * `AbortSignal.any` signal alive while it has an abort listener, so one kept for good would leak.
 */
import { getEventListeners } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it, vi } from "vitest";

/** A fresh copy of the module (its sweep timer is module state), made after the test's timers are set. */
async function relayModule() {
  vi.resetModules();
  return import("../src/model/abort-relay.ts");
}

afterEach(() => {
  vi.useRealTimers();
});

describe("abort relay", () => {
  it("keeps one listener across waiters, calls the current ones on abort, and not the ones that left", async () => {
    const { onAbort } = await relayModule();
    const controller = new AbortController();
    const calls: string[] = [];
    const first = onAbort(controller.signal, () => calls.push("first"));
    first();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    onAbort(controller.signal, () => calls.push("second"));
    onAbort(controller.signal, () => calls.push("third"));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort();
    expect(calls).toEqual(["second", "third"]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("calls an object waiter's aborted() through the same one listener, and not once it left", async () => {
    const { leaveAbort, onAbort, waitAbort } = await relayModule();
    const controller = new AbortController();
    const calls: string[] = [];
    const waiter = (name: string) => ({ aborted: () => calls.push(name) });
    const left = waiter("left");
    expect(waitAbort(controller.signal, left)).toBe(true);
    leaveAbort(controller.signal, left);
    leaveAbort(controller.signal, left); // a second leave changes nothing
    expect(waitAbort(controller.signal, waiter("object"))).toBe(true);
    onAbort(controller.signal, () => calls.push("function"));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort();
    expect(calls).toEqual(["object", "function"]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    // A signal already aborted: nothing waits, nothing is called.
    expect(waitAbort(controller.signal, waiter("late"))).toBe(false);
    expect(calls).toEqual(["object", "function"]);
  });

  it("drops the listener of a signal left without waiters, so a composite signal can be collected", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const { leaveAbort, onAbort, waitAbort } = await relayModule();
    const source = new AbortController();
    const composite = AbortSignal.any([source.signal]);
    const busy = new AbortController();
    onAbort(composite, () => undefined)();
    const stillWaiting = onAbort(busy.signal, () => undefined);
    // An object waiter that left leaves the relay to the sweep too.
    const objectWaiter = { aborted: () => undefined };
    const objectSource = new AbortController();
    const objectComposite = AbortSignal.any([objectSource.signal]);
    waitAbort(objectComposite, objectWaiter);
    leaveAbort(objectComposite, objectWaiter);
    expect(getEventListeners(composite, "abort")).toHaveLength(1);
    expect(getEventListeners(objectComposite, "abort")).toHaveLength(1);
    vi.advanceTimersByTime(25_000);
    expect(getEventListeners(composite, "abort")).toHaveLength(0);
    expect(getEventListeners(objectComposite, "abort")).toHaveLength(0);
    // A signal with a waiter keeps its listener, and the relay still works after a sweep.
    expect(getEventListeners(busy.signal, "abort")).toHaveLength(1);
    const heard: string[] = [];
    onAbort(composite, () => heard.push("later"));
    source.abort();
    expect(heard).toEqual(["later"]);
    stillWaiting();
  });

  it("does not keep a waiter that left alive with the relay (the first operation's state lived as long as the signal)", async () => {
    const { onAbort } = await relayModule();
    setFlagsFromString("--expose-gc");
    const collect = runInNewContext("gc") as () => void;
    const controller = new AbortController();
    // The first waiter (an operation's state in its listener) comes and leaves; the relay stays for the next.
    const kept = ((): WeakRef<object> => {
      const state = { payload: new Array(1000).fill(1) };
      onAbort(controller.signal, () => state.payload.push(0))();
      return new WeakRef(state);
    })();
    onAbort(controller.signal, () => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    expect(kept.deref()).toBeUndefined();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
  });
});
