// The Node.js versions taubridge runs on, checked before anything else is loaded. Written in the
// plainest JavaScript so that an old Node reaches this check instead of failing on newer syntax.

/** The oldest Node.js taubridge runs on (package.json's `engines`). */
export const MINIMUM_NODE = [20, 19, 0];

/** The one-line refusal for a Node.js older than {@link MINIMUM_NODE}, or undefined when `version` (`"20.19.1"`) is new enough. */
export function nodeVersionProblem(version) {
  const parts = String(version)
    .replace(/^v/, "")
    .split(".")
    .map((part) => Number.parseInt(part, 10) || 0);
  for (let index = 0; index < MINIMUM_NODE.length; index++) {
    const have = parts[index] || 0;
    const need = MINIMUM_NODE[index];
    if (have > need) return undefined;
    if (have < need) {
      return `taubridge needs Node.js ${MINIMUM_NODE.join(".")} or newer (Node 22 or 24 recommended); this is Node.js ${String(version).replace(/^v/, "")}: install a newer Node (https://nodejs.org)`;
    }
  }
  return undefined;
}
