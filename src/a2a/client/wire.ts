/**
 * The A2A wire, both versions, as the client writes and reads it (README, "Protocol versions").
 *
 * Writing is strict: v0.3 puts `kind` on the message and every part and uses `message/send`; v1.0
 * uses ProtoJSON (`ROLE_USER`, parts without `kind`) and `SendMessage`. Reading is lenient, because
 * real agents are: a result is a v0.3 Task or Message told apart by `kind` or by which fields are
 * present, or a v1.0 `{"task"}` / `{"message"}` wrapper; parts may lack `kind`; states and roles come
 * in either spelling; `contextId` may be null. Stream events are v0.3 `status-update` /
 * `artifact-update` objects or v1.0 `statusUpdate` / `artifactUpdate` wrappers.
 */
import { TaubridgeError, errorMarker } from "../../errors/error-tree.ts";
import { isObject, type Plain, type PlainObject, stringField } from "./json.ts";

/** The protocol versions the client speaks. */
export type A2AVersion = "0.3" | "1.0";

/** A task's state, in v0.3's spelling whatever the wire said. */
export type TaskState = "submitted" | "working" | "input-required" | "completed" | "canceled" | "failed" | "rejected" | "auth-required" | "unknown";

/** States after which a task changes no more. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(["completed", "canceled", "failed", "rejected"]);
/** States in which a task waits for the client (the next message continues the same task). */
export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set(["input-required", "auth-required"]);

export type WirePart = { kind: "text"; text: string } | { kind: "data"; data: Plain } | { kind: "file"; name: string | null; mediaType: string | null };

export interface WireMessage {
  role: "agent" | "user" | "unknown";
  parts: WirePart[];
  messageId: string | null;
  contextId: string | null;
  taskId: string | null;
  metadata: PlainObject | null;
}

export interface WireArtifact {
  artifactId: string | null;
  name: string | null;
  parts: WirePart[];
  metadata: PlainObject | null;
}

export interface WireTask {
  id: string;
  contextId: string | null;
  state: TaskState;
  statusMessage: WireMessage | null;
  artifacts: WireArtifact[];
  history: WireMessage[];
  metadata: PlainObject | null;
}

/** A `message/send` / `SendMessage` result (or a `tasks/get` one, always a task). */
export type WireResult = { type: "message"; message: WireMessage } | { type: "task"; task: WireTask };

/** One event of a stream. */
export type StreamEvent =
  | WireResult
  | { type: "status"; taskId: string; contextId: string | null; state: TaskState; message: WireMessage | null; final: boolean }
  | { type: "artifact"; taskId: string; contextId: string | null; artifact: WireArtifact; append: boolean };

/** A result the client cannot read: the message says what was wrong (the caller makes it an `A2AProtocolError`). */
export class WireShapeError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("WireShapeError");
}

/** The JSON-RPC method names of each version. */
export const METHODS: Readonly<Record<A2AVersion, { send: string; stream: string; get: string; cancel: string }>> = {
  "0.3": { send: "message/send", stream: "message/stream", get: "tasks/get", cancel: "tasks/cancel" },
  "1.0": { send: "SendMessage", stream: "SendStreamingMessage", get: "GetTask", cancel: "CancelTask" },
};

const STATE_SPELLINGS: Readonly<Record<string, TaskState>> = {
  submitted: "submitted",
  working: "working",
  "input-required": "input-required",
  input_required: "input-required",
  completed: "completed",
  canceled: "canceled",
  cancelled: "canceled",
  failed: "failed",
  rejected: "rejected",
  "auth-required": "auth-required",
  auth_required: "auth-required",
  unknown: "unknown",
};

/** `TASK_STATE_INPUT_REQUIRED`, `input-required`, `INPUT_REQUIRED`, `canceled`/`cancelled` → v0.3's spelling. */
export function taskStateOf(value: unknown): TaskState {
  if (typeof value !== "string") return "unknown";
  const bare = value.replace(/^TASK_STATE_/, "").toLowerCase();
  return STATE_SPELLINGS[bare] ?? "unknown";
}

function roleOf(value: unknown): WireMessage["role"] {
  if (typeof value !== "string") return "unknown";
  const bare = value.replace(/^ROLE_/, "").toLowerCase();
  return bare === "agent" ? "agent" : bare === "user" ? "user" : "unknown";
}

function metadataOf(value: Plain | undefined): PlainObject | null {
  return isObject(value) ? value : null;
}

/** One part, with or without `kind` (v0.3 `{kind:"text",text}`, bare `{text}`, v1.0 `{text}|{data}|{raw}|{url}`); null for an empty object. */
export function partOf(value: Plain): WirePart | null {
  if (!isObject(value)) return typeof value === "string" ? { kind: "text", text: value } : null;
  const kind = stringField(value, "kind") ?? stringField(value, "type");
  if (typeof value.text === "string" && (kind === undefined || kind === "text")) return { kind: "text", text: value.text };
  if ("data" in value && (kind === undefined || kind === "data")) return { kind: "data", data: value.data };
  const file = isObject(value.file) ? value.file : value;
  if (kind === "file" || "raw" in value || "url" in value || isObject(value.file)) {
    return { kind: "file", name: stringField(file, "name") ?? stringField(value, "filename") ?? null, mediaType: stringField(file, "mimeType") ?? stringField(value, "mediaType") ?? null };
  }
  if (typeof value.text === "string") return { kind: "text", text: value.text };
  return null;
}

function partsOf(value: Plain | undefined): WirePart[] {
  if (!Array.isArray(value)) return [];
  const parts: WirePart[] = [];
  for (const item of value) {
    const part = partOf(item);
    if (part) parts.push(part);
  }
  return parts;
}

/** A message object (v0.3 or v1.0); a bare string is read as one text part. */
export function messageOf(value: Plain | undefined): WireMessage | null {
  if (typeof value === "string") return { role: "agent", parts: [{ kind: "text", text: value }], messageId: null, contextId: null, taskId: null, metadata: null };
  if (!isObject(value)) return null;
  const parts = Array.isArray(value.parts) ? partsOf(value.parts) : Array.isArray(value.content) ? partsOf(value.content) : [];
  return {
    role: roleOf(value.role),
    parts,
    messageId: stringField(value, "messageId") ?? stringField(value, "message_id") ?? null,
    contextId: stringField(value, "contextId") ?? stringField(value, "context_id") ?? null,
    taskId: stringField(value, "taskId") ?? stringField(value, "task_id") ?? null,
    metadata: metadataOf(value.metadata),
  };
}

function artifactOf(value: Plain): WireArtifact | null {
  if (!isObject(value)) return null;
  return { artifactId: stringField(value, "artifactId") ?? null, name: stringField(value, "name") ?? null, parts: partsOf(value.parts), metadata: metadataOf(value.metadata) };
}

/** A task object (v0.3 or v1.0). */
export function taskOf(value: PlainObject): WireTask {
  const status = isObject(value.status) ? value.status : {};
  const id = stringField(value, "id") ?? stringField(value, "taskId");
  if (id === undefined) throw new WireShapeError("a task without an id");
  const artifacts: WireArtifact[] = [];
  for (const item of Array.isArray(value.artifacts) ? value.artifacts : []) {
    const artifact = artifactOf(item);
    if (artifact) artifacts.push(artifact);
  }
  const history: WireMessage[] = [];
  for (const item of Array.isArray(value.history) ? value.history : []) {
    const message = messageOf(item);
    if (message) history.push(message);
  }
  return {
    id,
    contextId: stringField(value, "contextId") ?? null,
    state: taskStateOf(status.state),
    statusMessage: messageOf(status.message),
    artifacts,
    history,
    metadata: metadataOf(value.metadata),
  };
}

function looksLikeTask(value: PlainObject): boolean {
  return value.kind === "task" || ("status" in value && ("id" in value || "taskId" in value)) || (Array.isArray(value.artifacts) && "id" in value);
}

function looksLikeMessage(value: PlainObject): boolean {
  return value.kind === "message" || Array.isArray(value.parts) || "messageId" in value;
}

/**
 * A `message/send` / `SendMessage` / `tasks/get` result in any shape agents send: the v1.0 wrapper
 * (`{"task": …}` / `{"message": …}`), or a bare v0.3 Task or Message. Throws {@link WireShapeError}.
 */
export function readResult(result: Plain): WireResult {
  if (typeof result === "string") return { type: "message", message: messageOf(result) as WireMessage };
  if (!isObject(result)) throw new WireShapeError(`the result is ${result === null ? "null" : Array.isArray(result) ? "an array" : typeof result}, not a task or a message`);
  if (isObject(result.task) && !looksLikeTask(result)) return { type: "task", task: taskOf(result.task) };
  if (isObject(result.message) && !looksLikeMessage(result) && !looksLikeTask(result)) return { type: "message", message: messageOf(result.message) as WireMessage };
  if (looksLikeTask(result)) return { type: "task", task: taskOf(result) };
  if (looksLikeMessage(result)) return { type: "message", message: messageOf(result) as WireMessage };
  throw new WireShapeError(`the result is neither a task nor a message (fields: ${Object.keys(result).join(", ") || "none"})`);
}

function statusEvent(value: PlainObject): StreamEvent {
  const status = isObject(value.status) ? value.status : {};
  return {
    type: "status",
    taskId: stringField(value, "taskId") ?? "",
    contextId: stringField(value, "contextId") ?? null,
    state: taskStateOf(status.state),
    message: messageOf(status.message),
    final: value.final === true,
  };
}

function artifactEvent(value: PlainObject): StreamEvent {
  const artifact = artifactOf(value.artifact ?? null) ?? { artifactId: null, name: null, parts: [], metadata: null };
  return { type: "artifact", taskId: stringField(value, "taskId") ?? "", contextId: stringField(value, "contextId") ?? null, artifact, append: value.append === true };
}

/** One stream event (the `result` of an SSE `data:` line) in either version's shape. */
export function readStreamEvent(result: Plain): StreamEvent {
  if (isObject(result)) {
    if (isObject(result.statusUpdate)) return statusEvent(result.statusUpdate);
    if (isObject(result.artifactUpdate)) return artifactEvent(result.artifactUpdate);
    if (result.kind === "status-update") return statusEvent(result);
    if (result.kind === "artifact-update") return artifactEvent(result);
    if (!("id" in result) && "status" in result && "taskId" in result) return statusEvent(result);
    if (!("id" in result) && "artifact" in result) return artifactEvent(result);
  }
  return readResult(result);
}

/** The task a stream has built so far, with one more event applied (a message event replaces it). */
export function applyStreamEvent(current: WireResult | null, event: StreamEvent): WireResult {
  if (event.type === "task" || event.type === "message") return event;
  const base: WireTask =
    current?.type === "task"
      ? { ...current.task, artifacts: [...current.task.artifacts] }
      : { id: event.taskId, contextId: event.contextId, state: "submitted", statusMessage: null, artifacts: [], history: [], metadata: null };
  if (event.type === "status") return { type: "task", task: { ...base, state: event.state, statusMessage: event.message ?? base.statusMessage } };
  const index = event.artifact.artifactId === null ? -1 : base.artifacts.findIndex((artifact) => artifact.artifactId === event.artifact.artifactId);
  if (index >= 0 && event.append) base.artifacts[index] = { ...base.artifacts[index], parts: [...base.artifacts[index].parts, ...event.artifact.parts] };
  else if (index >= 0) base.artifacts[index] = event.artifact;
  else base.artifacts.push(event.artifact);
  return { type: "task", task: base };
}

/** What the client sends in one turn. */
export interface OutgoingMessage {
  messageId: string;
  text: string;
  /** Only from the second turn on: the context the agent returned. */
  contextId: string | null;
  /** Only while the agent's task waits for input (`input-required`). */
  taskId: string | null;
}

/** The `params.message` of a send, in the version's shape. */
export function messageParams(version: A2AVersion, message: OutgoingMessage): PlainObject {
  const ids: PlainObject = {};
  if (message.contextId) ids.contextId = message.contextId;
  if (message.taskId) ids.taskId = message.taskId;
  if (version === "0.3") return { kind: "message", role: "user", messageId: message.messageId, parts: [{ kind: "text", text: message.text }], ...ids };
  return { role: "ROLE_USER", messageId: message.messageId, parts: [{ text: message.text }], ...ids };
}

/** A JSON-RPC request body. */
export function rpcBody(id: number, method: string, params: PlainObject): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}
