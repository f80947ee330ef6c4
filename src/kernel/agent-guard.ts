/**
 * Participant code runs inside the harness's process (frameworks patch their own modules there),
 * so the kernel guards the run against what such code can do to a process:
 *
 * - `process.exit()` called from a participant's turn (or anything it scheduled) does not end the
 *   run: the turn fails with an agent error naming the participant, and the run goes on;
 * - a turn whose promise can never settle (nothing is left in the event loop that could settle
 *   it: Node would otherwise exit with code 13 and no message) fails at once with an agent error,
 *   instead of the run exiting or waiting out a long timeout.
 *
 * Turns run in an async context ({@link AsyncLocalStorage}), so a call made by anything the turn
 * started — a timer, a callback — is attributed to it. The guards are installed once per process,
 * on the first guarded turn, and pass through untouched when no turn is running.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { AgentProtocolError } from "../errors/error-tree.ts";

interface PendingTurn {
  /** Who the participant is, for the error message. */
  readonly name: string;
  fail(error: Error): void;
}

const scope = new AsyncLocalStorage<PendingTurn>();
const pending = new Set<PendingTurn>();
let installed = false;

/** A participant called `process.exit`: its turn fails; the harness keeps running. */
function guardedExit(original: typeof process.exit): typeof process.exit {
  return ((code?: number | string | null) => {
    const turn = scope.getStore();
    if (!turn) return original(code ?? undefined);
    turn.fail(new AgentProtocolError(`${turn.name} called process.exit(${code ?? ""}); a participant may not end the harness's process (its turn fails instead)`));
    return undefined as never;
  }) as typeof process.exit;
}

/** The event loop is empty while turns are pending: nothing can settle them, so they fail now. */
function failStuckTurns(): void {
  if (pending.size === 0) return;
  for (const turn of [...pending]) {
    turn.fail(new AgentProtocolError(`${turn.name}'s turn can never finish: it returned a promise that nothing left in the process could settle (a respond() that never resolves?)`));
  }
  // What the failures set going (the next episode) may again wait on nothing but promises: one more
  // turn of the event loop, so Node asks again before exiting instead of ending with code 13.
  setImmediate(() => undefined);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.exit = guardedExit(process.exit.bind(process));
  process.on("beforeExit", failStuckTurns);
}

/**
 * Runs one participant turn (or session start) under the guards: resolves with its result, or
 * rejects with an agent error when it called `process.exit` or can never settle.
 */
export function guardedTurn<T>(name: string, call: () => Promise<T>): Promise<T> {
  install();
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const turn: PendingTurn = {
      name,
      fail: (error) => {
        if (done) return;
        done = true;
        pending.delete(turn);
        reject(error);
      },
    };
    pending.add(turn);
    scope.run(turn, () => {
      call().then(
        (value) => {
          if (done) return;
          done = true;
          pending.delete(turn);
          resolve(value);
        },
        (error: unknown) => turn.fail(error instanceof Error ? error : new Error(String(error))),
      );
    });
  });
}

/** A participant's session whose turns run under the guards (every other method as it is). */
export function guardedSession<Session extends { next(...args: never[]): Promise<unknown> }>(name: string, session: Session): Session {
  return new Proxy(session, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "next" || typeof value !== "function") return value;
      return (...args: unknown[]) => guardedTurn(name, () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  });
}

/** A participant's session, started under the guards and guarded for its turns. */
export async function startGuarded<Session extends { next(...args: never[]): Promise<unknown> }>(name: string, start: () => Session | Promise<Session>): Promise<Session> {
  return guardedSession(name, await guardedTurn(name, async () => start()));
}
