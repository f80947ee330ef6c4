/**
 * What the golden guard blanks out before comparing: only what changes from run to run by nature
 * (wall-clock times, durations, random ids, temporary paths, ports, stack traces, the taubridge
 * version a run records). Everything else
 * — every reward, hash, observation, message, usage figure and the byte layout of each file — is
 * compared as it is.
 */

/** Places that differ per run and are replaced by a fixed word. */
export interface MaskPlaces {
  /** Temporary directories of the scenario (replaced by `<tmp>`). */
  temporary: readonly string[];
  /** The repository root (replaced by `<repo>`). */
  repository: string;
  /** The shared data directory, when used (replaced by `<shared>`). */
  shared?: string;
}

const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?/g;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIMED_FIELDS = /("(?:duration|durationMs|bridgeMicrosMedian)": )-?[\d.eE+-]+/g;
const TRACEBACKS = /("(?:traceback|error_traceback)": )"(?:[^"\\]|\\.)*"/g;
const LOOPBACK_PORT = /127\.0\.0\.1:\d+/g;
const SESSION_KEYS = /("sessionKey": )"[^"]*"/g;
const NODE_PID = /\(node:\d+\)/g;
/** The taubridge version a run records (run identity, run manifest): it changes with every release, not with the output. */
const TAUBRIDGE_VERSION = /("taubridgeVersion": )"[^"]*"/g;
/** Stack frames (a framework logging an error prints them): which files and lines they name changes as code moves. */
const STACK_FRAMES = /(?:^[ \t]+at .*(?:\n|$))+/gm;

/**
 * Test fixtures that moved inside the repository after the scenarios using them were recorded
 * (`[where they are now, where the recordings name them]`, relative to the repository root). A
 * scenario passes their path on the command line and the run writes it into its results, so the
 * current path is written back as the recorded one: moving a fixture changes no recorded byte.
 */
const MOVED_FIXTURES: ReadonlyArray<readonly [string, string]> = [["test/fixtures/fastworkflow", "adapters/fastworkflow/test-fixtures"]];

function replaceAll(text: string, literal: string, replacement: string): string {
  return literal === "" ? text : text.split(literal).join(replacement);
}

/** The text with the per-run places blanked (longest paths first, so a path inside another is not half-replaced). */
export function maskText(text: string, places: MaskPlaces): string {
  let masked = text;
  for (const [now, recorded] of MOVED_FIXTURES) masked = replaceAll(masked, `${places.repository}/${now}`, `${places.repository}/${recorded}`);
  const paths = [...places.temporary, places.repository, ...(places.shared ? [places.shared] : [])].sort((left, right) => right.length - left.length);
  for (const path of paths) {
    const word = path === places.repository ? "<repo>" : path === places.shared ? "<shared>" : "<tmp>";
    masked = replaceAll(masked, path, word);
    masked = replaceAll(masked, JSON.stringify(path).slice(1, -1), word);
  }
  return masked
    .replace(STACK_FRAMES, "    at <stack>\n")
    .replace(TRACEBACKS, '$1"<traceback>"')
    .replace(ISO_TIME, "<time>")
    .replace(UUID, "<uuid>")
    .replace(TIMED_FIELDS, '$1"<masked>"')
    .replace(LOOPBACK_PORT, "127.0.0.1:<port>")
    .replace(SESSION_KEYS, '$1"<session>"')
    .replace(NODE_PID, "(node:<pid>)")
    .replace(TAUBRIDGE_VERSION, '$1"<version>"');
}
