/**
 * Model-call defaults shared by the `run` flag table (`src/run/run-flags.ts`) and the model
 * client's own config schema, so the CLI, the library API and a directly built client agree.
 * Dependency-free on purpose: the CLI reads it at start-up without loading the SDK.
 */

/** Attempts per model call on 408/409/429/5xx and network errors (`--model-max-attempts`). */
export const DEFAULT_MODEL_MAX_ATTEMPTS = 6;

/** Timeout of one model call, in seconds (`--model-timeout`). */
export const DEFAULT_MODEL_TIMEOUT_SECONDS = 120;
