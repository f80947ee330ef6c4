/**
 * One run per results file: two runs writing one log directory (τ-bench `--log-dir`) or one
 * `--save-to` file (τ²) would interleave their checkpoint lines and overwrite each other's results,
 * and both would resume from what the other half-wrote. A run takes `<results>.lock`, created with
 * O_EXCL and holding `{pid, host, startedAt}`, before it reads or writes anything of the file, and
 * removes it on every ending: success, an error, Ctrl-C (the interrupt handler's `process.exit`
 * runs the exit hook).
 *
 * A lock left by a run that died (its pid no longer alive on this host) is taken over with a
 * warning; a live one, or one from another host (its pid cannot be checked from here), is a
 * {@link ConfigError} naming the other process.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { ConfigError } from "../errors/error-tree.ts";
import { missingDirectory, removeIfEmpty } from "./atomic-file.ts";

/** What a lock file records about its holder. */
export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

/** A held lock; `release` is idempotent. */
export interface ResultsLock {
  readonly path: string;
  release(): void;
}

/** The lock file of a results file. */
export function resultsLockPath(resultsPath: string): string {
  return `${resultsPath}.lock`;
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    if (typeof value.pid === "number" && typeof value.host === "string" && typeof value.startedAt === "string") return value as LockHolder;
  } catch {
    // unreadable, or not yet written by its creator
  }
  return undefined;
}

/** Whether a process of this host is alive (signal 0 checks without sending anything; EPERM: alive, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Creates the lock file with O_EXCL; false when it exists. */
function create(path: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Takes the lock of `resultsPath` (creating its folder when missing; a folder created for nothing
 * is removed again on release). `flag` is the option that chose the path (`--log-dir`, `--save-to`),
 * for the refusal; `warn` receives the line about a stale lock taken over.
 */
export function acquireResultsLock(resultsPath: string, flag: string, warn?: (message: string) => void): ResultsLock {
  const path = resultsLockPath(resultsPath);
  const createdDirectory = missingDirectory(dirname(path));
  mkdirSync(dirname(path), { recursive: true });
  const holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  if (!create(path, holder)) {
    const other = readHolder(path);
    if (!other) {
      removeIfEmpty(createdDirectory);
      throw new ConfigError(`${resultsPath} is locked by ${path}, which names no process (being written, or left damaged); if no run uses ${resultsPath}, delete the lock file`);
    }
    if (other.host !== holder.host || alive(other.pid) || other.pid === process.pid) {
      const where = other.host === holder.host ? "" : ` on host ${other.host}`;
      throw new ConfigError(
        `${resultsPath} is in use by another run (pid ${other.pid}${where}, started ${other.startedAt}); wait for it to end, or give this run another ${flag} (lock file: ${path})`,
      );
    }
    // The holder died without releasing (a kill -9, a power cut): take the lock over.
    rmSync(path, { force: true });
    if (!create(path, holder)) throw new ConfigError(`${resultsPath} is in use by another run that took its stale lock at the same moment (lock: ${path})`);
    warn?.(`took over the lock of ${resultsPath} left by pid ${other.pid} (started ${other.startedAt}), which is no longer running`);
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener("exit", release);
    // Only our own lock: never one another run took over in the meantime.
    if (readHolder(path)?.pid === holder.pid && readHolder(path)?.startedAt === holder.startedAt) rmSync(path, { force: true });
    removeIfEmpty(createdDirectory);
  };
  process.on("exit", release);
  return { path, release };
}
