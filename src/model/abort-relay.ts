/**
 * One abort listener per long-lived signal, however many operations wait on it. A run's signal is
 * shared by every episode running at once, an episode's by every model call it has in flight; each
 * of them adding its own listener gave a signal more than ten and Node printed
 * `MaxListenersExceededWarning` (a thousand concurrent simulations, a dozen concurrent calls). Here
 * the signal gets one listener that calls the current waiters, and a waiter that is done removes
 * itself.
 *
 * The listener outlives its waiters for a while: an episode's signal serves each of its model calls
 * in turn, and adding and removing an `EventTarget` listener per call was a visible share of a
 * call's CPU. A signal left with no waiter loses its listener after {@link IDLE_MS} to twice that
 * (the second sweep of an unref'd timer that finds it unused), because Node keeps a composite (`AbortSignal.any`) or timeout signal alive while it
 * has an abort listener: kept for good, such a signal would never be collected.
 */
/**
 * A waiter that is an object of its own (a model call's answer handler): its `aborted()` is called.
 * Waiting this way ({@link waitAbort}, {@link leaveAbort}) makes no closure per wait: a call's
 * listener and the function that stops it lived as long as the call waited for the model.
 */
export interface AbortWaiter {
  aborted(): void;
}

interface Relay {
  signal: AbortSignal;
  waiters: Set<(() => void) | AbortWaiter>;
  handler: () => void;
  /** Whether it had a waiter since the last sweep (a relay is dropped after a whole period unused). */
  used: boolean;
  /** Whether it is in {@link idle} (put there when its last waiter leaves; taken out by a sweep that finds it used). */
  listed: boolean;
}

/** The sweep's period: a relay with no waiter keeps its listener for one to two periods. */
const IDLE_MS = 10_000;

/**
 * Where a signal's relay is kept: a property of the signal's own (a symbol no one else knows), not
 * a `WeakMap`. Two map look-ups per model call (one to wait, one to leave) were most of the relay's
 * cost at a thousand concurrent simulations.
 */
const RELAY = Symbol("taubridge.abortRelay");
type RelayedSignal = AbortSignal & { [RELAY]?: Relay | undefined };

/** Relays that were left without waiters at some point since they were listed, swept by {@link sweep}. */
const idle = new Set<Relay>();
let sweeper: NodeJS.Timeout | undefined;

function remove(relay: Relay): void {
  idle.delete(relay);
  relay.listed = false;
  const signal = relay.signal as RelayedSignal;
  if (signal[RELAY] === relay) signal[RELAY] = undefined;
  relay.signal.removeEventListener("abort", relay.handler);
}

function sweep(): void {
  for (const relay of idle) {
    if (relay.waiters.size > 0) {
      // Waited on again: listed anew when its last waiter leaves.
      idle.delete(relay);
      relay.listed = false;
    } else if (relay.used) relay.used = false;
    else remove(relay);
  }
  if (idle.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/**
 * A signal's relay, listening to it. Made here, not in {@link onAbort}: a closure made there would
 * keep the first waiter (and with it the first operation's whole state: a model call's handler,
 * request and answer) alive for as long as the relay, an episode's whole life.
 */
function newRelay(relayed: RelayedSignal): Relay {
  const waiters = new Set<(() => void) | AbortWaiter>();
  const created: Relay = {
    signal: relayed,
    waiters,
    used: true,
    listed: false,
    handler: () => {
      if (relayed[RELAY] === created) relayed[RELAY] = undefined;
      idle.delete(created);
      created.listed = false;
      for (const waiter of [...waiters]) {
        if (typeof waiter === "function") waiter();
        else waiter.aborted();
      }
      waiters.clear();
    },
  };
  relayed[RELAY] = created;
  relayed.addEventListener("abort", created.handler, { once: true });
  return created;
}

/** Calls `listener` once when `signal` aborts (at once when it already has); returns what stops that. */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => undefined;
  }
  const relayed = signal as RelayedSignal;
  const relay = relayed[RELAY] ?? newRelay(relayed);
  relay.waiters.add(listener);
  relay.used = true;
  const own = relay;
  return () => leave(relayed, own, listener);
}

/**
 * Calls `waiter.aborted()` once when `signal` aborts, until {@link leaveAbort}; false (and nothing
 * called) when it has already aborted.
 */
export function waitAbort(signal: AbortSignal, waiter: AbortWaiter): boolean {
  if (signal.aborted) return false;
  const relayed = signal as RelayedSignal;
  const relay = relayed[RELAY] ?? newRelay(relayed);
  relay.waiters.add(waiter);
  relay.used = true;
  return true;
}

/**
 * Stops waiting ({@link waitAbort}). The signal's relay is the one waited on while the waiter is
 * listed: a relay is dropped only without waiters, or when the signal aborts (which clears them).
 */
export function leaveAbort(signal: AbortSignal, waiter: AbortWaiter): void {
  const relayed = signal as RelayedSignal;
  const relay = relayed[RELAY];
  if (relay !== undefined) leave(relayed, relay, waiter);
}

/** A waiter leaves `relay`; the relay is listed for the sweep when it was the last. */
function leave(relayed: RelayedSignal, relay: Relay, waiter: (() => void) | AbortWaiter): void {
  if (!relay.waiters.delete(waiter) || relay.waiters.size > 0 || relay.listed || relayed[RELAY] !== relay) return;
  relay.listed = true;
  idle.add(relay);
  if (!sweeper) {
    sweeper = setInterval(sweep, IDLE_MS);
    sweeper.unref();
  }
}
