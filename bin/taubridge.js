#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm run build`, which `prepare` runs on `npm ci` and
// before `npm pack`). A checkout without a build falls back to the TypeScript sources through
// tsx, which is slower to start (it compiles at start-up) but needs no build step.
import { existsSync } from "node:fs";

const built = new URL("../dist/app/cli.js", import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("../app/cli.ts", import.meta.url).href);
}
