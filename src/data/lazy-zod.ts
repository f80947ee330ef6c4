/**
 * zod, loaded when a schema is first needed rather than when a module that declares one is
 * imported. Loading zod takes about 40 ms, a tenth of an offline run, and a run whose inputs are
 * valid never needs it: the modules that read data check the common shapes with `quick-shapes.ts`
 * and build their zod schemas (through {@link lazySchema}) only to word an error, or for the
 * formats a run does not read.
 *
 * zod is loaded synchronously, through its CommonJS build (the same code as its ES module build),
 * because validation happens in synchronous code.
 */
import { createRequire } from "node:module";
import type * as Zod from "zod";

const require = createRequire(import.meta.url);
let loaded: typeof Zod | undefined;

/** The zod namespace (`z`), loaded on first use. */
export function zod(): typeof Zod.z {
  loaded ??= require("zod") as typeof Zod;
  return loaded.z;
}

/** A schema built on first use: `lazySchema((z) => z.object(…))` gives a function returning that schema. */
export function lazySchema<Schema>(build: (z: typeof Zod.z) => Schema): () => Schema {
  let schema: Schema | undefined;
  return () => {
    schema ??= build(zod());
    return schema;
  };
}
