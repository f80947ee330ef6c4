/**
 * Counting the TCP connections a process attempts to a port, so a test proves "one attempt, no
 * retry" by counting rather than by a wall-time bound (which a loaded machine breaks). Every client
 * socket (undici's, so the `openai` SDK's and fetch's) is published on `node:diagnostics_channel`'s
 * `net.client.socket` before it connects; its port is known once it connects or fails, so each
 * socket is counted then.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";

const CHANNEL = "net.client.socket";

/** Connections this process attempts to `port` from now on, until `stop()`. */
export function countConnectionAttempts(port: number): { readonly attempts: number; stop(): void } {
  let attempts = 0;
  const seen = new WeakSet<Socket>();
  const count = (socket: Socket, to: number | undefined) => {
    if (to !== port || seen.has(socket)) return;
    seen.add(socket);
    attempts++;
  };
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    socket.once("connect", () => count(socket, socket.remotePort));
    socket.once("error", (error: NodeJS.ErrnoException & { port?: number }) => count(socket, error.port));
  };
  subscribe(CHANNEL, onSocket);
  return {
    get attempts() {
      return attempts;
    },
    stop: () => unsubscribe(CHANNEL, onSocket),
  };
}

/**
 * The same in a child process: a module for `node --import <this>` that counts every client socket
 * the process opens and writes the count to the file named by `TAUBRIDGE_TEST_CONNECTIONS_FILE`
 * when it exits (a data: URL, so it needs no build and no tsx).
 */
export const COUNT_CONNECTIONS_IMPORT = `data:text/javascript,${encodeURIComponent(`
import { subscribe } from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
const attempts = {};
subscribe("${CHANNEL}", ({ socket }) => {
  const count = (port) => { if (port !== undefined) attempts[port] = (attempts[port] ?? 0) + 1; };
  let counted = false;
  socket.once("connect", () => { if (!counted) { counted = true; count(socket.remotePort); } });
  socket.once("error", (error) => { if (!counted) { counted = true; count(error.port); } });
});
process.on("exit", () => writeFileSync(process.env.TAUBRIDGE_TEST_CONNECTIONS_FILE, JSON.stringify(attempts)));
`)}`;
