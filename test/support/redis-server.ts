/**
 * A real `redis-server` for the queue tests, started on a free loopback port with its own data
 * directory and the append-only file on (so a restart keeps the queue, and a test can read every
 * write Redis ever took). `.ci/run` installs Debian's `redis-server` when it is missing; without it
 * the tests skip and say why.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";

/** The redis-server binary, or undefined. */
const binary = (() => {
  const found = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : undefined;
})();

/** Why the queue tests cannot run here (undefined: they can). */
export const redisMissing: string | undefined = binary ? undefined : "redis-server is not installed (.ci/run installs Debian's redis-server; as root: apt-get install -y redis-server)";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface TestRedis {
  readonly url: string;
  readonly port: number;
  readonly directory: string;
  /** Runs `redis-cli` against it (for assertions on what it holds). */
  cli(...args: string[]): string;
  /** Everything Redis was ever asked to write (the append-only files), as text. */
  appendOnlyText(): string;
  /** Stops it (SIGTERM; the AOF is kept) and starts it again on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a redis-server on a free loopback port; rejects with a clear message when it cannot. */
export async function startRedis(): Promise<TestRedis> {
  if (!binary) throw new Error(redisMissing);
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), "taubridge-redis-"));
  let process: ResultPromise | undefined;
  const cli = (...args: string[]) => {
    const result = spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`redis-cli ${args.join(" ")}: ${result.stderr}`);
    return result.stdout;
  };
  const start = async () => {
    process = execa(binary, ["--port", String(port), "--bind", "127.0.0.1", "--dir", directory, "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no"], {
      reject: false,
      stdio: "ignore",
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ping = spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" });
      if (ping.stdout.trim() === "PONG") return;
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on 127.0.0.1:${port} within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const stop = async () => {
    if (!process) return;
    process.kill("SIGTERM");
    await process;
    process = undefined;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    directory,
    cli,
    appendOnlyText: () => {
      const folder = join(directory, "appendonlydir");
      return readdirSync(folder)
        .map((name) => readFileSync(join(folder, name), "latin1"))
        .join("\n");
    },
    restart: async () => {
      await stop();
      await start();
    },
    stop,
  };
}
