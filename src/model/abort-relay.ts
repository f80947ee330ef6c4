/**
 * One abort listener per long-lived signal, however many operations wait on it. A run's signal is
 * shared by every episode running at once, an episode's by every model call it has in flight; each
 * of them adding its own listener gave a signal more than ten and Node printed
 * `MaxListenersExceededWarning` (a thousand concurrent simulations, a dozen concurrent calls). Here
 * the signal gets one listener that calls the current waiters; a waiter that is done removes
 * itself, and the last one to go removes the listener, so nothing stays behind either.
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
    if (!own.waiters.delete(listener) || own.waiters.size > 0 || relays.get(signal) !== own) return;
    relays.delete(signal);
    signal.removeEventListener("abort", own.handler);
  };
}
