/**
 * `taubridge testing serve --script <file.json> --port <n>`: runs the scripted OpenAI-compatible
 * model server as a process, so agents written in other languages (or whole framework stacks) can
 * be pointed at a deterministic model during their own tests.
 */
import { writeFile } from "node:fs/promises";
import { InvalidArgumentError, type Command } from "commander";

export interface TestingServeOptions {
  script: string;
  port: number;
  host: string;
  /** Write the recorded requests, failures and unconsumed steps here on shutdown. */
  record?: string;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new InvalidArgumentError("expected an integer port between 0 and 65535");
  return port;
}

/**
 * Serves a script until `signal` aborts (the CLI wires it to SIGINT/SIGTERM), then closes the
 * server, writes the record file if asked, and prints a one-line summary to stderr.
 */
export async function runTestingServe(options: TestingServeOptions, io: { signal: AbortSignal; stdout?: NodeJS.WritableStream; stderr?: NodeJS.WritableStream }): Promise<void> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  // Loaded here, not at CLI start-up (zod, the server).
  const [{ loadScriptFile }, { startScriptedModelServer }] = await Promise.all([import("../testing/script-format.ts"), import("../testing/scripted-model-server.ts")]);
  const file = await loadScriptFile(options.script);
  const server = await startScriptedModelServer({
    ...(file.scripts !== undefined ? { scripts: file.scripts } : {}),
    ...(file.steps !== undefined ? { steps: file.steps } : {}),
    ...(file.streamUsage !== undefined ? { streamUsage: file.streamUsage } : {}),
    host: options.host,
    port: options.port,
  });
  stdout.write(`Scripted model server listening on ${server.baseURL}\n`);
  if (!io.signal.aborted) await new Promise<void>((resolve) => io.signal.addEventListener("abort", () => resolve(), { once: true }));
  await server.close();
  const pending = server.pending();
  if (options.record) {
    // Credential headers are never recorded; a request's other settings (an `api_key`, `extra_headers` sent in the body) are redacted, its messages and tools only of credential shapes (`src/secrets`).
    const { redact, environmentSecrets } = await import("../secrets/redact.ts");
    const secrets = environmentSecrets(process.env);
    const requests = server.requests.map((request) => {
      if (request.body === null || typeof request.body !== "object" || Array.isArray(request.body)) return { ...request, body: redact(request.body, { secrets, content: true }) };
      const { messages, tools, ...settings } = request.body as Record<string, unknown>;
      const content = (value: unknown) => (value === undefined ? {} : redact(value, { secrets, content: true }));
      return { ...request, body: { ...redact(settings, { secrets }), ...(messages === undefined ? {} : { messages: content(messages) }), ...(tools === undefined ? {} : { tools: content(tools) }) } };
    });
    const record = redact({ requests, failures: server.failures, pending }, { secrets, content: true });
    await writeFile(options.record, `${JSON.stringify(record, null, 2)}\n`, "utf8");
  }
  stderr.write(`Scripted model server stopped: ${server.requests.length} request(s), ${server.failures.length} failure(s), ${pending.length} unconsumed step(s)\n`);
}

/** The script format and the routes, in the help itself: the package ships no README beside the code. */
const SCRIPT_HELP = `
Script file: {"scripts": {"<model>": [step, ...], "*": [step, ...]}}, or {"steps": [step, ...]}
for any model. A chat completion for a model is answered by the first step of its script
("*": any model without one), in order, that has uses left and whose "match" holds:
  {"content": "Hello"}                                               words
  {"tool_calls": [{"name": "get_order", "arguments": {"id": 1}}]}    tool calls
  {"error": {"status": 503}}                                         an HTTP error
Optional in a step: "match" ({"lastMessageContains": "...", "hasTool": "...", ...}),
"times" (a number, or "unlimited"), "delayMs", "usage", "finish_reason", "label".
A request no step answers gets an error (404 for a model without a script, 500 when its
script is used up) and is counted as a failure.
POST /v1/embeddings answers every request, without a script: deterministic vectors (a
hashed bag of words, 64 components) that a test can compute.`;

/** Adds the `testing` command group (currently `testing serve`) to the main CLI. */
export function registerTestingCommand(program: Command): void {
  const testing =
    program.commands.find((command) => command.name() === "testing") ?? program.command("testing").description("Test doubles for agent developers (scripted OpenAI-compatible model server)");
  testing
    .command("serve")
    .description("Serve a scripted OpenAI-compatible model on loopback (POST /v1/chat/completions, POST /v1/embeddings, GET /v1/models)")
    .requiredOption("--script <file>", "script file (JSON, below)")
    .option("--port <n>", "port to listen on (0 = any free port)", parsePort, 0)
    .option("--host <host>", "address to bind", "127.0.0.1")
    .option("--record <file>", "write recorded requests, failures and unconsumed steps to this JSON file on exit")
    .addHelpText("after", SCRIPT_HELP)
    .action(async (options: { script: string; port: number; host: string; record?: string }) => {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      try {
        await runTestingServe(options, { signal: controller.signal });
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
      }
    });
}
