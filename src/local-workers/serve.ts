/**
 * The child's side of a `--workers` process: the worker protocol over the IPC pipe the coordinator
 * forked it with. Messages in are checked and handed to a `UnitWorker`; its replies go back on the
 * pipe. Ctrl-C at the terminal (or SIGTERM to the group) reaches every process of the group: a
 * worker ignores it, since the coordinator decides what an interrupt cancels (and a second one ends
 * the coordinator, which closes the pipe). When the pipe closes, the worker releases its participants and exits.
 */
import { parseCoordinatorMessage, type WorkerMessage } from "../worker/protocol.ts";
import { UnitWorker, type UnitWorkerOptions } from "../worker/unit-worker.ts";

/** How long a worker whose coordinator went away gets to release its participants. */
const EXIT_GRACE_MS = 3_000;

/** Serves the worker protocol on this process's IPC pipe until it closes. */
export function serveWorkerProcess(registries: UnitWorkerOptions["registries"]): void {
  if (typeof process.send !== "function") throw new Error("a taubridge worker process is started by a run with --workers (it needs the coordinator's IPC pipe)");
  const send = (message: WorkerMessage) => {
    // A send can race the coordinator closing the pipe (a worker that became ready as the run ended): the
    // callback takes the EPIPE, which would otherwise be an unhandled 'error' event printing a stack. The
    // disconnect event ends this process either way.
    if (process.connected) process.send?.(message, undefined, undefined, () => undefined);
  };
  const worker = new UnitWorker({ registries, warn: (message) => send({ type: "warning", message }) });
  // Ctrl-C and SIGTERM sent to the whole process group reach the workers too: the coordinator cancels their
  // attempts (never recorded) and closes the pipe. A worker dying of them first would fail its attempts instead.
  process.on("SIGINT", () => undefined);
  process.on("SIGTERM", () => undefined);
  process.on("disconnect", () => {
    setTimeout(() => process.exit(0), EXIT_GRACE_MS).unref();
    void worker.close().finally(() => process.exit(0));
  });
  process.on("message", (raw) => {
    let message: ReturnType<typeof parseCoordinatorMessage>;
    try {
      message = parseCoordinatorMessage(raw);
    } catch (error) {
      send({ type: "warning", message: `worker ${process.pid}: ${error instanceof Error ? error.message : String(error)} (ignored)` });
      return;
    }
    switch (message.type) {
      case "configure":
        void worker.configure(message.configuration).then(send);
        return;
      case "unit":
        void worker.run(message.configurationId, message.unit).then(send);
        return;
      case "cancel":
        worker.cancel(message.configurationId, message.key);
        return;
    }
  });
}
