/**
 * Short texts τ² keeps in its Python sources rather than its data files, read at run time from the
 * sources in the data directory (`upstream-src/`, fetched at the pinned commit by
 * `taubridge data pull tau2-bench`): they are the original authors' words, never this project's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DataError } from "../../../errors/error-tree.ts";
import { decodeUtf8 } from "../../../data/data-files.ts";

function readSource(dataRoot: string, relative: string): string {
  const path = join(dataRoot, "upstream-src", "src", "tau2", relative);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DataError(`τ²'s source file ${path} is missing from the data directory; run \`taubridge data pull tau2-bench\` (it fetches the sources τ² keeps its prompts in)`, { cause: error });
  }
  return decodeUtf8(bytes, path);
}

/** The orchestrator's fixed first agent message (`DEFAULT_FIRST_AGENT_MESSAGE`'s content). */
export function readTau2FirstAgentMessage(dataRoot: string): string {
  const source = readSource(dataRoot, "orchestrator/orchestrator.py");
  const match = /DEFAULT_FIRST_AGENT_MESSAGE\s*=\s*AssistantMessage\([^)]*?content="((?:[^"\\]|\\.)*)"/s.exec(source);
  if (!match) throw new DataError("orchestrator/orchestrator.py: cannot find DEFAULT_FIRST_AGENT_MESSAGE (is this τ²-bench at the pinned commit?)");
  return JSON.parse(`"${match[1]}"`) as string;
}
