import { randomBytes } from "node:crypto";
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { ConfigError, fileErrorText } from "../errors/error-tree.ts";
import { dirname, join, resolve } from "node:path";

/**
 * Writes a file atomically: a temporary file in the same directory, then a rename, so a reader (or
 * a run killed mid-write) never sees half a results file.
 */
export function writeFileAtomic(path: string, text: string | readonly string[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  if (typeof text === "string") writeFileSync(temporary, text);
  else {
    // Parts written one after the other: a file larger than the longest string V8 can hold (the viewer's page of a large run).
    const descriptor = openSync(temporary, "w");
    try {
      writeParts(descriptor, text);
    } finally {
      closeSync(descriptor);
    }
  }
  renameSync(temporary, path);
}

/** The size of the memory {@link writeParts} gathers parts in. */
const GATHER_BYTES = 1 << 20;

/**
 * Writes `parts` in order, gathered into one reused megabyte: a results file of 1,000 τ²
 * simulations is ~3,000 parts (each simulation's text around its policy, and the policy), and
 * writing each alone encoded it into a buffer of its own (~90 MB in all) and made a system call for
 * each. A part too large for the memory is written alone.
 */
function writeParts(descriptor: number, parts: readonly string[]): void {
  const gathered = Buffer.allocUnsafeSlow(GATHER_BYTES);
  let used = 0;
  for (const part of parts) {
    // UTF-8 takes at most three bytes per UTF-16 unit: a bound without reading the text.
    const bound = 3 * part.length;
    if (used + bound > GATHER_BYTES && used > 0) {
      writeFileSync(descriptor, gathered.subarray(0, used));
      used = 0;
    }
    if (bound > GATHER_BYTES) writeFileSync(descriptor, part);
    else used += gathered.write(part, used, "utf8");
  }
  if (used > 0) writeFileSync(descriptor, gathered.subarray(0, used));
}

/** The outermost folder of `directory` that does not exist yet (what creating it would add), or undefined. */
export function missingDirectory(directory: string): string | undefined {
  let missing: string | undefined;
  for (let current = resolve(directory); !existsSync(current); current = dirname(current)) {
    missing = current;
    if (dirname(current) === current) break;
  }
  return missing;
}

/**
 * Removes a folder a run created (from {@link missingDirectory}) when it holds nothing but empty
 * folders: a run that stopped before recording anything leaves no trace behind.
 */
export function removeIfEmpty(directory: string | undefined): void {
  if (!directory || !existsSync(directory)) return;
  const hasFile = (folder: string): boolean => readdirSync(folder, { withFileTypes: true }).some((entry) => !entry.isDirectory() || hasFile(join(folder, entry.name)));
  if (!hasFile(directory)) rmSync(directory, { recursive: true, force: true });
}

/**
 * Checks, before any work starts, that a run can write `path` (a file, or with `kind: "folder"` a
 * folder): its first existing ancestor must be a writable folder, and the path itself must not be a
 * file where a folder is meant (or the reverse). A ConfigError naming the flag otherwise (exit 2),
 * instead of a run that fails after its first episode.
 */
export function checkOutputPath(path: string, flag: string, kind: "file" | "folder"): void {
  const target = resolve(path);
  if (existsSync(target)) {
    const isFolder = statSync(target).isDirectory();
    if (kind === "file" && isFolder) throw new ConfigError(`${flag} ${path}: is a folder; give a file name (…/results.json)`);
    if (kind === "folder" && !isFolder) throw new ConfigError(`${flag} ${path}: is a file, not a folder`);
  }
  let ancestor = kind === "file" ? dirname(target) : target;
  while (!existsSync(ancestor) && dirname(ancestor) !== ancestor) ancestor = dirname(ancestor);
  if (!statSync(ancestor).isDirectory()) throw new ConfigError(`${flag} ${path}: ${ancestor} is a file, not a folder`);
  try {
    accessSync(ancestor, constants.W_OK);
  } catch (error) {
    throw new ConfigError(`${flag} ${path}: cannot write in ${ancestor} (${fileErrorText(error)})`, { cause: error });
  }
}
