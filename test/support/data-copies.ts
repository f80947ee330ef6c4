import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Makes `directory` (a link to `source`) a real folder of links to each of `source`'s entries. */
function unfold(directory: string, source: string): void {
  if (!lstatSync(directory).isSymbolicLink()) return;
  rmSync(directory);
  mkdirSync(directory);
  for (const name of readdirSync(source)) symlinkSync(join(source, name), join(directory, name));
}

/**
 * A data directory a test may change without touching the shared one: `source`'s entries as
 * symbolic links in a temporary folder, with the files of `replace` (paths relative to the root)
 * written over them (the folders along their path become real folders of links).
 */
export function linkedDataCopy(source: string, replace: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(join(tmpdir(), "taubridge-data-"));
  for (const name of readdirSync(source)) symlinkSync(join(source, name), join(root, name));
  for (const [relative, content] of Object.entries(replace)) {
    const parts = dirname(relative)
      .split("/")
      .filter((part) => part !== ".");
    for (let depth = 1; depth <= parts.length; depth++) unfold(join(root, ...parts.slice(0, depth)), join(source, ...parts.slice(0, depth)));
    rmSync(join(root, relative), { force: true });
    writeFileSync(join(root, relative), content);
  }
  return root;
}

/** `text` with `bytes` spliced in after the first occurrence of `after` (a file that is no longer UTF-8, say). */
export function spliceBytes(text: string | Uint8Array, after: string, bytes: readonly number[]): Buffer {
  const buffer = Buffer.from(text);
  const at = buffer.indexOf(after) + Buffer.byteLength(after);
  if (at < Buffer.byteLength(after)) throw new Error(`"${after}" is not in the text`);
  return Buffer.concat([buffer.subarray(0, at), Buffer.from(bytes), buffer.subarray(at)]);
}
