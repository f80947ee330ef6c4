/**
 * The pinned-source manifests (`tasks/manifests/tau-bench.json`, `tasks/manifests/tau2-bench.json`).
 *
 * Why: the project never ships upstream data. It fetches it from one exact upstream commit, and
 * the manifest is the single place that says which commit, which files, what each becomes in the
 * data directory, and the sha256 each file must have. A changed or corrupted upstream file is
 * therefore detected before anything is converted, and results stay comparable across machines.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type * as Zod from "zod";
import { DataError } from "../errors/error-tree.ts";
import { datasetDefinition } from "./datasets.ts";
import { cachedDerivation, derivedCacheKey } from "./derived-cache.ts";
import { lazySchema } from "./lazy-zod.ts";

/**
 * How a manifest file is used:
 * - `copy`: written byte for byte to `target`;
 * - `task-module`: a Python module whose `symbol` list of `Task(...)` becomes the JSON task list `target`;
 * - `tool-index`: a tools package `__init__.py` whose `symbol` list of classes (in order) becomes `target` (tools_info.json);
 * - `tool-module`: a module defining one of those classes (its `get_info()`), feeding the tool-index with the same `target`.
 */
export const MANIFEST_FILE_KINDS = ["copy", "task-module", "tool-module", "tool-index"] as const;
export type ManifestFileKind = (typeof MANIFEST_FILE_KINDS)[number];

/** The manifest's schemas (zod is loaded on first use: a run reads only the pinned hashes, cached). */
function buildManifestSchemas(z: typeof Zod.z) {
  /** A relative POSIX path that cannot escape its root (no `..`, no absolute path, no backslash). */
  const relativePath = z
    .string()
    .min(1)
    .refine((path) => !path.startsWith("/") && !path.includes("\\") && path.split("/").every((part) => part !== "" && part !== "." && part !== ".."), {
      message: "must be a relative POSIX path without '.', '..' or empty segments",
    });

  const manifestFileSchema = z.object({
    /** Path in the upstream repository. */
    path: relativePath,
    /** Path in the data directory that this file becomes (or feeds, for tool modules). */
    target: relativePath,
    kind: z.enum(MANIFEST_FILE_KINDS),
    /** The module-level name to read (task-module, tool-index). */
    symbol: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits"),
    bytes: z.number().int().nonnegative(),
  });

  /** The expected result of converting the pinned files: a check on the converter itself. */
  const manifestOutputSchema = z.object({
    target: relativePath,
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits"),
    bytes: z.number().int().nonnegative(),
  });

  const dataManifestSchema = z
    .object({
      /** Dataset name; also the name of the folder in the cache directory. */
      dataset: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
      /** GitHub `owner/name`. */
      repository: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/),
      /** The pinned commit (full 40-hex SHA-1). */
      commit: z.string().regex(/^[0-9a-f]{40}$/, "must be a full 40-hex commit id"),
      license: z.string().optional(),
      files: z.array(manifestFileSchema).min(1),
      /**
       * Optional: sha256 of every converted data-directory file. When present, a verified pull or
       * import also checks the converter's output, so a converter change cannot silently alter the data.
       */
      outputs: z.array(manifestOutputSchema).optional(),
    })
    .superRefine((manifest, context) => {
      const paths = new Set<string>();
      const producers = new Map<string, ManifestFileKind>();
      manifest.files.forEach((file, index) => {
        if (paths.has(file.path)) context.addIssue({ code: "custom", path: ["files", index, "path"], message: `duplicate path ${file.path}` });
        paths.add(file.path);
        if ((file.kind === "task-module" || file.kind === "tool-index") && !file.symbol) {
          context.addIssue({ code: "custom", path: ["files", index, "symbol"], message: `a ${file.kind} needs a symbol` });
        }
        if (file.kind !== "tool-module") {
          if (producers.has(file.target)) {
            context.addIssue({ code: "custom", path: ["files", index, "target"], message: `target ${file.target} is produced twice` });
          }
          producers.set(file.target, file.kind);
        }
      });
      manifest.outputs?.forEach((output, index) => {
        if (!producers.has(output.target)) {
          context.addIssue({ code: "custom", path: ["outputs", index, "target"], message: `no file produces ${output.target}` });
        }
      });
      manifest.files.forEach((file, index) => {
        if (file.kind === "tool-module" && producers.get(file.target) !== "tool-index") {
          context.addIssue({
            code: "custom",
            path: ["files", index, "target"],
            message: `tool module ${file.path} targets ${file.target}, which no tool-index produces`,
          });
        }
      });
    });
  return { manifestFileSchema, manifestOutputSchema, dataManifestSchema };
}

const manifestSchemas = lazySchema(buildManifestSchemas);

type ManifestSchemas = ReturnType<typeof buildManifestSchemas>;
export type ManifestFile = Zod.infer<ManifestSchemas["manifestFileSchema"]>;
export type ManifestOutput = Zod.infer<ManifestSchemas["manifestOutputSchema"]>;
export type DataManifest = Zod.infer<ManifestSchemas["dataManifestSchema"]>;

/** Validates a parsed manifest; errors list every problem with its JSON path. */
export function parseManifest(value: unknown, origin = "manifest"): DataManifest {
  const result = manifestSchemas().dataManifestSchema.safeParse(value);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw new DataError(`${origin} is invalid:\n  ${problems.join("\n  ")}`);
  }
  return result.data;
}

/** Where the τ-bench manifest lives in this package. */
export const TAU_BENCH_MANIFEST_URL = datasetDefinition("tau-bench").manifestUrl;

/** Loads and validates a manifest file (a path or file URL); errors name the file. */
export function loadManifestFile(location: string | URL): DataManifest {
  return manifestFromBytes(readManifestBytes(location), location);
}

function manifestName(location: string | URL): string {
  return location instanceof URL ? location.pathname : location;
}

function readManifestBytes(location: string | URL): Buffer {
  try {
    return readFileSync(location);
  } catch (error) {
    throw new DataError(`cannot read the manifest ${manifestName(location)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
}

function manifestFromBytes(bytes: Buffer, location: string | URL): DataManifest {
  const name = manifestName(location);
  const text = bytes.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DataError(`${name}: invalid JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseManifest(value, name);
}

/** Where the τ²-bench manifest lives in this package (verbatim copies only: data, user-simulator guidelines, the source files holding tool schemas and prompts). */
export const TAU2_BENCH_MANIFEST_URL = datasetDefinition("tau2-bench").manifestUrl;

/** Loads and validates the pinned manifest shipped for a dataset of `datasets.ts` (unknown names list the known ones). */
export function loadDatasetManifest(dataset: string): DataManifest {
  return loadManifestFile(datasetDefinition(dataset).manifestUrl);
}

/** Loads and validates the pinned τ-bench manifest shipped with the package. */
export function loadTauBenchManifest(): DataManifest {
  return loadDatasetManifest("tau-bench");
}

/** Loads and validates the pinned τ²-bench manifest shipped with the package. */
export function loadTau2BenchManifest(): DataManifest {
  return loadDatasetManifest("tau2-bench");
}

const PINNED_KIND = "manifest-pinned-hashes-v1";

/**
 * The SHA-256 the shipped manifest of `dataset` pins for each target path starting with `prefix`.
 * What is read from the validated manifest is kept in the derived cache under the manifest file's
 * own SHA-256 (validating τ²'s 900-entry manifest was a noticeable part of every τ² run's start).
 */
export function pinnedHashes(dataset: string, prefix: string): Map<string, string> {
  const location = datasetDefinition(dataset).manifestUrl;
  const bytes = readManifestBytes(location);
  const isTable = (value: unknown): value is Record<string, string> =>
    value !== null && typeof value === "object" && !Array.isArray(value) && Object.entries(value).every(([target, hash]) => target.startsWith(prefix) && typeof hash === "string");
  const table = cachedDerivation(PINNED_KIND, derivedCacheKey(sha256Hex(bytes), prefix), isTable, () =>
    Object.fromEntries(
      manifestFromBytes(bytes, location)
        .files.filter((entry) => entry.target.startsWith(prefix))
        .map((entry) => [entry.target, entry.sha256]),
    ),
  );
  return new Map(Object.entries(table));
}

const COMMIT_KIND = "manifest-commit-v1";

/**
 * The upstream commit the shipped manifest of `dataset` pins (what a run manifest names as its
 * data commit when the run's files are the pinned ones). Kept in the derived cache under the
 * manifest file's own SHA-256, as the pinned hashes are.
 */
export function pinnedCommit(dataset: string): string {
  const location = datasetDefinition(dataset).manifestUrl;
  const bytes = readManifestBytes(location);
  const isCommit = (value: unknown): value is { commit: string } => typeof value === "object" && value !== null && typeof (value as { commit?: unknown }).commit === "string";
  return cachedDerivation(COMMIT_KIND, derivedCacheKey(sha256Hex(bytes)), isCommit, () => ({ commit: manifestFromBytes(bytes, location).commit })).commit;
}

const DATA_KIND = "manifest-data-hashes-v1";

/**
 * Target path → SHA-256 of each file a dataset's data directory holds as pinned: the converted
 * outputs when the manifest lists them (τ-bench's task and tool files are converted from Python),
 * else the copied files (τ²'s). Kept in the derived cache under the manifest's own SHA-256.
 */
export function pinnedDataHashes(dataset: string): Map<string, string> {
  const location = datasetDefinition(dataset).manifestUrl;
  const bytes = readManifestBytes(location);
  const isTable = (value: unknown): value is Record<string, string> =>
    value !== null && typeof value === "object" && !Array.isArray(value) && Object.values(value).every((hash) => typeof hash === "string");
  const table = cachedDerivation(DATA_KIND, derivedCacheKey(sha256Hex(bytes)), isTable, () => {
    const manifest = manifestFromBytes(bytes, location);
    const entries = manifest.outputs ?? manifest.files;
    return Object.fromEntries(entries.map((entry) => [entry.target, entry.sha256]));
  });
  return new Map(Object.entries(table));
}

/** Hex sha256 of bytes. */
export function sha256Hex(content: Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

/** A manifest entry before hashing. */
export type ManifestFileSpec = Omit<ManifestFile, "sha256" | "bytes">;

/**
 * Builds a manifest by reading and hashing each listed file, for maintainers re-pinning a new
 * commit and for tests that serve a fake upstream tree.
 */
export async function createManifest(spec: Omit<DataManifest, "files" | "outputs"> & { files: ManifestFileSpec[] }, read: (path: string) => Promise<string | Uint8Array>): Promise<DataManifest> {
  const files: ManifestFile[] = [];
  for (const file of spec.files) {
    const content = await read(file.path);
    const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
    files.push({ ...file, sha256: sha256Hex(bytes), bytes: bytes.byteLength });
  }
  return parseManifest({ ...spec, files });
}

/** The `outputs` section for a set of converted files (used when re-pinning, after checking the result). */
export function manifestOutputsOf(files: readonly { target: string; content: Uint8Array }[]): ManifestOutput[] {
  return files.map((file) => ({ target: file.target, sha256: sha256Hex(file.content), bytes: file.content.byteLength }));
}
