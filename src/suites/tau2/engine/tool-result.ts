/**
 * τ²'s `Environment.to_json_str`: the text of a tool's return value as the agent reads it.
 *
 * A str is returned as is (not quoted). Anything else is `json.dumps`-ed after one pass that keeps
 * pydantic models as dumped (their numbers stay numbers) but turns every int, float and bool met
 * outside a model into its Python `str()` (so telecom's `get_data_usage` says `"data_used_gb": "8.7"`).
 */
import { PyModel, type PyDict, type PyValue, pyJsonDumps, pyScalarStr } from "../../../value/index.ts";

function processValue(value: PyValue): PyValue {
  if (value instanceof PyModel || value === null || typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(processValue);
  if (value instanceof Map) {
    const out: PyDict = new Map();
    for (const [key, item] of value) out.set(key, processValue(item));
    return out;
  }
  return pyScalarStr(value);
}

/** The observation text of a tool result. */
export function tau2ToolResultText(value: PyValue): string {
  return typeof value === "string" ? value : pyJsonDumps(processValue(value));
}
