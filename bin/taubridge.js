#!/usr/bin/env node
// The CLI is written in TypeScript and loaded through tsx, so a clean clone works after `npm ci`
// with no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
await main();
