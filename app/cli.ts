/**
 * What `bin/taubridge.js` runs: the CLI with the bundled registries, loaded only by the commands
 * that resolve domain or strategy names (so `taubridge --version` and `--help` stay fast).
 */
import { main } from "../src/cli/main.ts";

await main(async () => (await import("./registries.ts")).bundledRegistries);
