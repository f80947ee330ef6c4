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
 * (the second sweep of an unref'd timer that finds it idle), because Node keeps a composite (`AbortSignal.any`) or timeout signal alive while it
 * has an abort listener: kept for good, such a signal would never be collected.
 */
interface Relay {
  signal: AbortSignal;
  waiters: Set<() => void>;
  handler: () => void;
  /** Whether a sweep has seen it without waiters (the next one removes its listener). */
  swept: boolean;
}

/** The sweep's period: a relay with no waiter keeps its listener for one to two periods. */
const IDLE_MS = 10_000;

const relays = new WeakMap<AbortSignal, Relay>();
/** Relays with no waiter, swept by {@link sweep}. */
const idle = new Set<Relay>();
let sweeper: NodeJS.Timeout | undefined;

function remove(relay: Relay): void {
  idle.delete(relay);
  if (relays.get(relay.signal) === relay) relays.delete(relay.signal);
  relay.signal.removeEventListener("abort", relay.handler);
}

function sweep(): void {
  for (const relay of idle) {
    if (relay.swept) remove(relay);
    else relay.swept = true;
  }
  if (idle.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** Calls `listener` once when `signal` aborts (at once when it already has); returns what stops that. */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => undefined;
  }
  let relay = relays.get(signal);
  if (!relay) {
    const waiters = new Set<() => void>();
    const created: Relay = {
      signal,
      waiters,
      swept: false,
      handler: () => {
        relays.delete(signal);
        idle.delete(created);
        for (const waiter of [...waiters]) waiter();
        waiters.clear();
      },
    };
    relay = created;
    relays.set(signal, relay);
    signal.addEventListener("abort", relay.handler, { once: true });
  }
  relay.waiters.add(listener);
  idle.delete(relay);
  const own = relay;
  return () => {
    if (!own.waiters.delete(listener) || own.waiters.size > 0 || relays.get(signal) !== own) return;
    own.swept = false;
    idle.add(own);
    if (!sweeper) {
      sweeper = setInterval(sweep, IDLE_MS);
      sweeper.unref();
    }
  };
}
