/**
 * The model layer's request and response shapes. They are core contracts (plain OpenAI
 * chat-completions JSON, no SDK types) and live in `src/core/model-types.ts`; re-exported here for
 * the model layer's own modules.
 */
export * from "../core/model-types.ts";
