/**
 * The server's store on disk (`--store <dir>`): the SDK's tasks, scoped per caller, and one folder
 * per evaluation (its request, its results file, a line per finished simulation, its summary). Every
 * write is atomic (a temporary file renamed over the old one) or an appended line, so a server
 * killed at any moment (SIGKILL included) leaves a store a restarted server reads back: every task
 * it had saved, every simulation that had finished.
 *
 *   <store>/tasks/<caller>/<task id>.json       {owner, task (ProtoJSON)}
 *   <store>/evaluations/<evaluation id>/        request.json, episodes.jsonl, results.json or the
 *                                               τ-bench results file, summary.json
 *
 * Tasks are kept in memory too (the SDK loads a task on every event); the disk copy is written
 * through on each save, asynchronously (a save resolves once its version is on disk, and the SDK
 * awaits it before sending the event), one write at a time per task so the last version wins. A
 * synchronous write per status update blocked the event loop: fifty evaluations' heartbeats on a
 * loaded disk held every timer of the server for seconds.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from "@a2a-js/sdk";
import { resolveUserScope, type ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";

/** Ids that are safe as file names (the SDK's are UUIDs). */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

interface Entry {
  owner: string;
  task: Task;
}

/** States after which a task changes no more. */
export const FINAL_STATES: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

/** A task store on disk, scoped by caller (another caller's task id answers "not found"). */
export class FileTaskStore implements TaskStore {
  private readonly entries = new Map<string, Entry>();
  /** The write in progress (and those queued behind it) per task id. */
  private readonly writes = new Map<string, Promise<void>>();
  private readonly taskRoot: string;

  constructor(readonly root: string) {
    this.taskRoot = join(root, "tasks");
    mkdirSync(this.taskRoot, { recursive: true });
    mkdirSync(join(root, "evaluations"), { recursive: true });
    for (const owner of readdirSync(this.taskRoot)) {
      for (const name of readdirSync(join(this.taskRoot, owner))) {
        if (!name.endsWith(".json")) continue;
        const record = JSON.parse(readFileSync(join(this.taskRoot, owner, name), "utf8")) as { owner: string; task: unknown };
        const task = Task.fromJSON(record.task);
        this.entries.set(task.id, { owner: record.owner, task });
      }
    }
  }

  /** The folder of an evaluation (its id is its task's id). */
  evaluationDirectory(id: string): string {
    if (!SAFE_ID.test(id)) throw new Error(`not a task id: ${JSON.stringify(id)}`);
    return join(this.root, "evaluations", id);
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const owner = resolveUserScope(context);
    const existing = this.entries.get(task.id);
    if (existing && existing.owner !== owner) throw new Error(`task ${task.id} belongs to another caller`);
    const copy = structuredClone(task);
    this.entries.set(task.id, { owner, task: copy });
    if (!SAFE_ID.test(task.id) || !SAFE_ID.test(owner)) return;
    const text = `${JSON.stringify({ owner, task: Task.toJSON(copy) })}\n`;
    const path = join(this.taskRoot, owner, `${task.id}.json`);
    const write = (this.writes.get(task.id) ?? Promise.resolve()).catch(() => undefined).then(() => writeAtomically(path, text));
    this.writes.set(task.id, write);
    const forget = () => {
      if (this.writes.get(task.id) === write) this.writes.delete(task.id);
    };
    write.then(forget, forget);
    return write;
  }

  /** Resolves when every save made so far is on disk (a server closing waits for it). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.writes.values()]);
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const entry = this.entries.get(taskId);
    if (!entry || entry.owner !== resolveUserScope(context)) return undefined;
    return structuredClone(entry.task);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const owner = resolveUserScope(context);
    let tasks = [...this.entries.values()].filter((entry) => entry.owner === owner).map((entry) => entry.task);
    if (params.contextId) tasks = tasks.filter((task) => task.contextId === params.contextId);
    if (params.status) tasks = tasks.filter((task) => task.status?.state === params.status);
    if (params.statusTimestampAfter) {
      const after = new Date(params.statusTimestampAfter).getTime();
      tasks = tasks.filter((task) => task.status?.timestamp && new Date(task.status.timestamp).getTime() > after);
    }
    tasks.sort((a, b) => (b.status?.timestamp ?? "").localeCompare(a.status?.timestamp ?? "") || b.id.localeCompare(a.id));
    const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), 100);
    const offset = params.pageToken ? Number(Buffer.from(params.pageToken, "base64url").toString("utf8")) || 0 : 0;
    const page = tasks.slice(offset, offset + pageSize).map((task) => ({ ...structuredClone(task), artifacts: params.includeArtifacts ? structuredClone(task.artifacts) : [] }));
    const next = offset + pageSize < tasks.length ? Buffer.from(String(offset + pageSize)).toString("base64url") : "";
    return { tasks: page, nextPageToken: next, pageSize, totalSize: tasks.length };
  }

  /** Every task not yet finished, with its owner (for a restarted server). */
  unfinished(): Array<{ owner: string; task: Task }> {
    return [...this.entries.values()]
      .filter((entry) => !FINAL_STATES.has(entry.task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED))
      .map((entry) => ({ owner: entry.owner, task: structuredClone(entry.task) }));
  }

  /** The owner of a task, whatever the caller (internal use only). */
  ownerOf(taskId: string): string | undefined {
    return this.entries.get(taskId)?.owner;
  }

  /** Every task id of a caller, newest first. */
  idsOf(owner: string): string[] {
    return [...this.entries.values()]
      .filter((entry) => entry.owner === owner)
      .sort((a, b) => (b.task.status?.timestamp ?? "").localeCompare(a.task.status?.timestamp ?? ""))
      .map((entry) => entry.task.id);
  }
}

/** A temporary file in the same folder, then a rename: a reader (or a restart after a kill) never sees half a task. */
async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

/** A JSON file of an evaluation's folder, or undefined when it is not there. */
export function readJsonFile<T>(path: string): T | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as T) : undefined;
}

/** Appends one JSON line (a finished simulation) to an evaluation's log. */
export function appendJsonLine(path: string, value: unknown): void {
  appendFileSync(path, `${JSON.stringify(value)}\n`);
}

/** The JSON lines of a file (a torn last line, from a kill mid-write, is skipped). */
export function readJsonLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const lines: T[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      lines.push(JSON.parse(line) as T);
    } catch {
      // the last line of a log cut by a kill
    }
  }
  return lines;
}
