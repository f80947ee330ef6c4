/**
 * A loopback port that refuses connections and stays that way for the test's duration, for the
 * "dead endpoint" tests.
 *
 * Why not "listen on port 0, close, hand out the port": port 0 hands out ports from the kernel's
 * ephemeral range, and CI runs the suite on Node 20, 22 and 24 side by side, so the port a test
 * just released was taken by another run's scripted server before the test's run connected to it
 * (a "dead port" run then exited 0). Ports below the ephemeral range are never handed out by port
 * 0, and no test listens on a fixed port, so a port from there that refuses now keeps refusing.
 * The port is random (two runs asking at once get different ones, though they could share one
 * safely: they only connect) and never one of the WHATWG fetch "bad ports" (undici's fetch refuses
 * those itself, a different error from a refused connection).
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";

const LOWEST = 20_000;
/** The fetch standard's blocked ports at or above LOWEST (none today; kept so a change of LOWEST stays safe). */
const FETCH_BAD_PORTS = new Set<number>([]);

/** The first port of the kernel's ephemeral range (Linux); 32768 where it cannot be read. */
function ephemeralStart(): number {
  try {
    const [first] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const value = Number(first);
    return Number.isInteger(value) && value > LOWEST + 100 ? value : 32_768;
  } catch {
    return 32_768;
  }
}

/** Resolves with the connection error's code, or "connected" when something answered. */
function probe(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
  });
}

/** A port on 127.0.0.1 where a connection is refused (ECONNREFUSED), outside the ephemeral range. */
export async function refusedPort(): Promise<number> {
  const end = ephemeralStart();
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (FETCH_BAD_PORTS.has(port)) continue;
    if ((await probe(port)) === "ECONNREFUSED") return port;
  }
  throw new Error(`no refusing loopback port found between ${LOWEST} and ${end} in 50 tries`);
}
