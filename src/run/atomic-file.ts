import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Writes a file atomically: a temporary file in the same directory, then a rename, so a reader (or
 * a run killed mid-write) never sees half a results file.
 */
export function writeFileAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
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
