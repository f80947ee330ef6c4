/**
 * `taubridge/testing`: deterministic test doubles for users and for our own suites. The scripted
 * model server stands in for any OpenAI-compatible endpoint, so agents, user simulators, judges
 * and third-party frameworks can be exercised end to end with no network and no paid API; the
 * in-process scripted client answers the same scripts without HTTP, for unit tests.
 */
export {
  createScriptedModelClient,
  createScriptedModels,
  SCRIPTED_BASE_URL,
  type ScriptedAssertions,
  type ScriptedCall,
  type ScriptedModelClient,
  type ScriptedModelClientOptions,
  type ScriptedModels,
  type ScriptedModelsOptions,
} from "./scripted-model-client.ts";
export {
  startScriptedModelServer,
  requestMatches,
  UnconsumedStepsError,
  UnexpectedModelCallError,
  type PendingStep,
  type RecordedRequest,
  type Responder,
  type ScriptFailure,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  type ScriptedRequest,
} from "./scripted-model-server.ts";
export { SCRIPTED_EMBEDDING_DIMENSIONS, scriptedEmbedding, scriptedEmbeddingTokens, scriptedTokenComponent } from "./scripted-embeddings.ts";
export {
  DEFAULT_SCRIPT,
  loadScriptFile,
  parseScriptFile,
  parseScriptStep,
  scriptFileSchema,
  scriptStepSchema,
  type ScriptedErrorSpec,
  type ScriptedToolCall,
  type ScriptedUsage,
  type ScriptFile,
  type ScriptStep,
  type StepMatch,
} from "./script-format.ts";
