/**
 * `taubridge/bridge`: the runtime bridge contract (BridgeSession: plan → map → step → render →
 * record) and its Node side (per-episode scopes, interception, module hooks). The Python side lives
 * in `bridge/python/`; see bridge/README.md.
 */
export * from "./session.ts";
export * from "./node/index.ts";
