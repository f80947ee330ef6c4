/**
 * One abort listener per long-lived signal, however many operations wait on it. A run's signal is
 * shared by every episode running at once, an episode's by every model call it has in flight; each
 * of them adding its own listener gave a signal more than ten and Node printed
 * `MaxListenersExceededWarning` (a thousand concurrent simulations, a dozen concurrent calls). Here
 * the signal gets one listener that calls the current waiters, and a waiter that is done removes
 * itself. The listener stays while the signal lives (it holds an empty set once every waiter is
 * gone, and dies with the signal): an episode's signal serves each of its model calls in turn, and
 * adding and removing an `EventTarget` listener per call was a visible share of a call's CPU.
 */
interface Relay {
  waiters: Set<() => void>;
  handler: () => void;
}

const relays = new WeakMap<AbortSignal, Relay>();

/** Calls `listener` once when `signal` aborts (at once when it already has); returns what stops that. */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => undefined;
  }
  let relay = relays.get(signal);
  if (!relay) {
    const waiters = new Set<() => void>();
    const handler = () => {
      relays.delete(signal);
      for (const waiter of [...waiters]) waiter();
      waiters.clear();
    };
    relay = { waiters, handler };
    relays.set(signal, relay);
    signal.addEventListener("abort", handler, { once: true });
  }
  relay.waiters.add(listener);
  const own = relay;
  return () => {
    own.waiters.delete(listener);
  };
}
