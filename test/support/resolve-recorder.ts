/**
 * A module hook that records every URL a Node.js process resolves, for tests that check what the
 * built CLI loads (`test/cli-bundle`, `test/cli-code-cache`): start the process with
 * `--import <the returned file>`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Writes the hook into `directory`, appending each resolved URL to `log`; returns the file to `--import`. */
export function resolveRecorder(directory: string, log: string): string {
  const hook = join(directory, "hook.mjs");
  writeFileSync(
    hook,
    `import { appendFileSync } from "node:fs";\nexport async function resolve(specifier, context, next) {\n  const result = await next(specifier, context);\n  appendFileSync(${JSON.stringify(log)}, result.url + "\\n");\n  return result;\n}\n`,
  );
  const register = join(directory, "register.mjs");
  writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`);
  return register;
}
