/**
 * vitest setup file: installs the bundled domains and strategies as the default registries, so
 * tests may call `buildRun(input)` without passing registries (what `import "taubridge"` does for
 * library users; `src/` itself never imports domains or adapters).
 */
import "../../app/registries.ts";
