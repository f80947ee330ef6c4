/**
 * Secret redaction. API keys are read from the environment only and must never reach logs, error
 * messages, result files or cache entries; everything that turns a model call into text passes
 * through these helpers as a last line of defence.
 */

/** What a secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not replaced verbatim (they would match ordinary words). */
const MIN_SECRET_LENGTH = 6;

/** Header and field names whose values are always secret, whatever they contain. */
const SECRET_FIELD = /^(authorization|proxy-authorization|x-api-key|api-key|apikey|api_key|x-goog-api-key|openai-api-key|cookie|set-cookie)$/i;

/** Shapes of well-known credentials, redacted even when the exact value is not known. */
const SECRET_PATTERNS: RegExp[] = [
  /\bBearer\s+[A-Za-z0-9._~+/=-]{6,}/g, // Authorization header values
  /\bsk-(?:ant-|or-|proj-)?[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic, OpenRouter keys
  /\bsk-[A-Za-z0-9_-]*\*{3,}[A-Za-z0-9_-]*/g, // keys already masked by a provider ("sk-abc***xyz")
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Replaces every occurrence of the given secret values, plus anything shaped like a bearer token
 * or a provider key, with {@link REDACTED}. Also strips `user:password@` from URLs.
 */
export function redactText(text: string, secrets: Iterable<string | undefined> = []): string {
  let result = text;
  const values = [...secrets].filter((secret): secret is string => typeof secret === "string" && secret.length >= MIN_SECRET_LENGTH);
  // Longest first, so a secret that contains another is replaced whole.
  values.sort((a, b) => b.length - a.length);
  for (const secret of values) result = result.replace(new RegExp(escapeRegExp(secret), "g"), REDACTED);
  for (const pattern of SECRET_PATTERNS) result = result.replace(pattern, (match) => (match.startsWith("Bearer") ? `Bearer ${REDACTED}` : REDACTED));
  result = result.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+(?::[^\s/@]*)?@/gi, `$1${REDACTED}@`);
  return result;
}

/**
 * Deep copy of a JSON-like value with secrets removed: fields named like credentials
 * (`authorization`, `api_key`, …) are replaced outright, and every string is passed through
 * {@link redactText}. Cycles are cut rather than followed.
 */
export function redactValue<T>(value: T, secrets: Iterable<string | undefined> = []): T {
  const secretList = [...secrets];
  const seen = new WeakSet<object>();
  const visit = (item: unknown): unknown => {
    if (typeof item === "string") return redactText(item, secretList);
    if (item === null || typeof item !== "object") return item;
    if (seen.has(item)) return "[Circular]";
    seen.add(item);
    if (Array.isArray(item)) return item.map(visit);
    const output: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(item)) {
      output[key] = SECRET_FIELD.test(key) && field !== undefined && field !== null ? REDACTED : visit(field);
    }
    return output;
  };
  return visit(value) as T;
}

/**
 * Header map without credential headers (used by the scripted server's request log and anything
 * that records HTTP traffic).
 */
export function withoutSecretHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const output: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || SECRET_FIELD.test(name)) continue;
    output[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return output;
}

/** A URL for display: credentials in the user-info part and secret-looking query values removed. */
export function redactUrl(url: string, secrets: Iterable<string | undefined> = []): string {
  const withoutQuerySecrets = url.replace(/([?&][^=&#]*(?:key|token|secret|signature|sig|password)[^=&#]*=)[^&#]*/gi, `$1${REDACTED}`);
  return redactText(withoutQuerySecrets, secrets);
}
