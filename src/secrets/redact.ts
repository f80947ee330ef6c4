/**
 * The one redaction module: nothing a run writes (results files, checkpoints, run status, the
 * response cache, recorded traffic) and no error message holds a secret. Every writer passes
 * what it writes through {@link redact}; the rules live here and nowhere else.
 *
 * What counts as a secret:
 * - **known values**: the values of the environment variables a run was told hold keys
 *   (`--api-key-env` …, the providers' defaults), and every value the run's settings hold in a
 *   secret place (below): replaced wherever they appear, in any string;
 * - **credential shapes** in any string: a URL's user-info (`http://user:pass@host`), a URL's
 *   secret query or fragment parameters (`?api-key=…`, `&sig=…`, `#access_token=…`), `Bearer …`
 *   tokens and provider-shaped keys (`sk-…`, `ghp_…`, `hf_…`, `AIza…`, `AKIA…`, `xox…-`);
 * - **secret places** in configuration values: a field whose name looks secret, at any depth and in
 *   any spelling (`api_key`, `apiKey`, `Authorization`, `x-api-key`, `access_token`, `password`,
 *   `client_secret`, `cookie`, `env.OPENAI_API_KEY`, `LITELLM_API_KEY_AGENT`, … but not
 *   `max_tokens`, `apiKeyEnv` or `key_file`), every value of a header map (`headers`,
 *   `extra_headers`, `default_headers`, …), and in free text `name=value` / `name: value` pairs
 *   with such a name.
 *
 * A secret is replaced by {@link REDACTED}; structure is kept (a field stays, its value is
 * replaced), so files stay readable and keep their format.
 *
 * Benchmark content (messages, tool calls and their arguments, observations, tasks, databases) is
 * redacted as `content`: known values and credential shapes only. A domain may well have a tool
 * argument named `token` or `password`, and its value is part of the trajectory the score was
 * computed from.
 *
 * May import: nothing of ours (Node built-ins only).
 */

/** What a secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** Known secret values shorter than this are not replaced (they would match ordinary words; `EMPTY`, `none`, `dummy` placeholders). */
const MIN_SECRET_LENGTH = 6;

/** Values of environment variables that merely look secret by name (not named by the run) must be at least this long. */
const MIN_ENVIRONMENT_SECRET_LENGTH = 12;

/** A name holding one of these words anywhere is secret. */
const SECRET_WORDS = new Set([
  "apikey",
  "secret",
  "secrets",
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "credential",
  "credentials",
  "authorization",
  "authentication",
  "cookie",
  "cookies",
  "bearer",
  "jwt",
  "privatekey",
]);

/** A name ending with one of these words is secret (`access_token`, `x-api-key`, `sig`), one that only contains it is not (`token_limit`). */
const SECRET_LAST_WORDS = new Set(["key", "token", "auth", "oauth", "sig", "signature"]);

/** `<word> key` anywhere in a name is secret (`LITELLM_API_KEY_AGENT`). */
const KEY_QUALIFIERS = new Set(["api", "access", "private", "secret", "client", "master", "signing", "encryption", "subscription", "service"]);

/** A name ending with one of these words names where a secret is, or describes it, but does not hold it (`apiKeyEnv`, `key_file`, `token_url`, `KeyError`). */
const NOT_SECRET_LAST_WORDS = new Set([
  "env",
  "var",
  "variable",
  "name",
  "names",
  "file",
  "path",
  "dir",
  "directory",
  "id",
  "ids",
  "type",
  "header",
  "url",
  "uri",
  "endpoint",
  "host",
  "error",
  "count",
  "limit",
  "length",
  "required",
  "present",
  "set",
]);

/** The words of a name in any spelling: `apiKey`, `API_KEY`, `x-api-key`, `APIKey`, `env.OPENAI_API_KEY`. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Whether a field, header, query parameter or environment variable of this name holds a secret. */
export function isSecretName(name: string): boolean {
  const words = nameWords(name);
  // `PWD` alone is the shell's working directory, not a password (`db_pwd` is one).
  if (words.length === 1 && words[0] === "pwd") return false;
  const last = words.at(-1);
  if (last === undefined || NOT_SECRET_LAST_WORDS.has(last)) return false;
  if (SECRET_LAST_WORDS.has(last) || words.some((word) => SECRET_WORDS.has(word))) return true;
  return words.some((word, index) => word === "key" && index > 0 && KEY_QUALIFIERS.has(words[index - 1]));
}

/** A map whose every value is secret: request headers (`headers`, `extra_headers`, `default_headers`, `defaultHeaders`). */
function isHeaderMapName(name: string): boolean {
  const last = nameWords(name).at(-1);
  return last === "headers";
}

/** A field naming the environment variable a key is read from (`apiKeyEnv`, `user_api_key_env`): its value is a name, the variable's value a secret. */
function isKeyVariableName(name: string): boolean {
  const words = nameWords(name);
  return words.at(-1) === "env" && isSecretName(words.slice(0, -1).join("_"));
}

/** Shapes of well-known credentials, redacted even when the value is not known. */
const TOKEN_SHAPES: RegExp[] = [
  /\bsk-(?:ant-|or-|proj-)?[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic, OpenRouter keys
  /\bsk-[A-Za-z0-9_-]*\*{3,}[A-Za-z0-9_-]*/g, // keys already masked by a provider ("sk-abc***xyz")
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bhf_[A-Za-z0-9]{20,}/g, // Hugging Face
  /\bgsk_[A-Za-z0-9]{20,}/g, // Groq
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API keys
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack
];

/** `Bearer <token>`: the scheme is kept, the token replaced. */
const BEARER = /\bBearer\s+(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{6,}/g;

/** A URL in free text (up to whitespace, quotes, brackets or a backslash; a sentence's closing punctuation is not part of it). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>()[\]{}\\]*[^\s"'`<>()[\]{}\\.,;:!?]/gi;

/** A URL's user-info (`user:password@`, `token@`): everything up to the last `@` before the path. */
const URL_USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#\s]*)@/i;

/** A query or fragment parameter. */
const URL_PARAMETER = /([?&#;])([^=&#;]+)=([^&#;]*)/g;

/** `name=value`, `name: value`, `"name": "value"`, `'name': 'value'` in free text (diagnostics only). */
const NAMED_VALUE = /(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]*)(["']?)(\s*[:=]\s*)(["']?)((?:(?:Bearer|Basic|Token|Digest)\s+)?[^\s"',;&)}\]]+)/g;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function redactUrlShape(url: string): string {
  let result = url.replace(URL_USER_INFO, (match, scheme: string, userInfo: string) => (userInfo === "" || userInfo === REDACTED ? match : `${scheme}${REDACTED}@`));
  result = result.replace(URL_PARAMETER, (match, separator: string, name: string, value: string) =>
    value !== "" && value !== REDACTED && isSecretName(decoded(name)) ? `${separator}${name}=${REDACTED}` : match,
  );
  return result;
}

/** Known secret values, compiled once for a whole value. */
class KnownSecrets {
  private readonly pattern: RegExp | undefined;

  constructor(secrets: Iterable<string | null | undefined>) {
    const values = [...new Set([...secrets].filter((secret): secret is string => typeof secret === "string" && secret.length >= MIN_SECRET_LENGTH && secret !== REDACTED))];
    // Longest first, so a secret that contains another is replaced whole.
    values.sort((a, b) => b.length - a.length);
    this.pattern = values.length > 0 ? new RegExp(values.map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g") : undefined;
  }

  replace(text: string): string {
    return this.pattern ? text.replace(this.pattern, REDACTED) : text;
  }
}

/** Cheap test before the shape rules: most strings of a trajectory hold none of these. */
const MAY_HOLD_SHAPE = /:\/\/|Bearer|sk-|gh[pousr]_|github_pat_|hf_|gsk_|AIza|AKIA|ASIA|xox/;

function redactString(text: string, known: KnownSecrets, content: boolean): string {
  let result = text;
  const shaped = MAY_HOLD_SHAPE.test(result);
  // URLs first, so a URL's user-info is replaced whole even when its password is also a known value.
  if (shaped) result = result.replace(URL_IN_TEXT, redactUrlShape);
  result = known.replace(result);
  if (shaped) {
    result = result.replace(BEARER, `Bearer ${REDACTED}`);
    for (const shape of TOKEN_SHAPES) result = result.replace(shape, REDACTED);
  }
  if (content) return result;
  return outsideUrls(result, (segment) =>
    segment.replace(NAMED_VALUE, (match, name: string, close: string, separator: string, open: string, value: string) => {
      const bare = value.replace(/^(?:Bearer|Basic|Token|Digest)\s+/, "");
      if (!isSecretName(name) || bare.startsWith("[")) return match;
      return `${name}${close}${separator}${open}${REDACTED}`;
    }),
  );
}

/** Applies `replace` to the parts of a text that are not URLs (a URL's host and port are not `name: value`). */
function outsideUrls(text: string, replace: (segment: string) => string): string {
  let result = "";
  let start = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    result += replace(text.slice(start, match.index)) + match[0];
    start = match.index + match[0].length;
  }
  return result + replace(text.slice(start));
}

/** A JSON-like value of ours: plain objects, arrays and Maps are walked; anything else (a `PyFloat`, a Date) is a leaf. */
function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A new Map holding the first `count` entries of `map`, in order. */
function mapPrefix(map: ReadonlyMap<unknown, unknown>, count: number): Map<unknown, unknown> {
  const prefix = new Map<unknown, unknown>();
  if (count === 0) return prefix;
  for (const [key, entry] of map) {
    prefix.set(key, entry);
    if (prefix.size === count) break;
  }
  return prefix;
}

/** What `redact` is told besides the value. */
export interface RedactOptions {
  /** Values known to be secret (keys read from the environment, a URL's password, …): replaced wherever they appear. */
  secrets?: Iterable<string | null | undefined>;
  /**
   * The value is benchmark content (messages, tool calls, observations, tasks): only known secrets
   * and credential shapes are replaced; field names and `name=value` text are left alone.
   */
  content?: boolean;
}

/**
 * THE redaction function: a copy of `value` (any JSON-like value: strings, plain objects, arrays,
 * `Map`s; other objects are kept as they are) without secrets, by the rules at the top of this
 * module. Parts that need no change are shared with the input, not copied; a cycle is cut.
 */
export function redact<T>(value: T, options: RedactOptions = {}): T {
  const known = new KnownSecrets(options.secrets ?? []);
  const content = options.content === true;
  const ancestors = new Set<object>();

  /** Every scalar below a secret place is secret. */
  const secretLeaf = (item: unknown): unknown => {
    if (item === null || item === undefined || typeof item === "boolean") return item;
    if (typeof item === "string") return item === "" ? item : REDACTED;
    if (typeof item !== "object") return REDACTED;
    if (ancestors.has(item)) return "[Circular]";
    ancestors.add(item);
    try {
      if (Array.isArray(item)) return item.map(secretLeaf);
      if (item instanceof Map) return new Map([...item].map(([key, field]) => [key, secretLeaf(field)]));
      if (isPlainObject(item)) return Object.fromEntries(Object.entries(item).map(([key, field]) => [key, secretLeaf(field)]));
      return REDACTED;
    } finally {
      ancestors.delete(item);
    }
  };

  const field = (key: unknown, item: unknown): unknown => {
    if (content || typeof key !== "string") return visit(item);
    if (isSecretName(key)) return secretLeaf(item);
    if (item !== null && typeof item === "object" && isHeaderMapName(key)) return secretLeaf(item);
    return visit(item);
  };

  const visit = (item: unknown): unknown => {
    if (typeof item === "string") return redactString(item, known, content);
    if (item === null || typeof item !== "object") return item;
    if (ancestors.has(item)) return "[Circular]";
    ancestors.add(item);
    try {
      // A copy is made only from the first entry that changes (most values hold no secret): walking a
      // results file allocated a copy of every array, Map and object it held, then threw it away.
      if (Array.isArray(item)) {
        let copy: unknown[] | undefined;
        for (let index = 0; index < item.length; index++) {
          const entry = item[index];
          const redacted = visit(entry);
          if (copy !== undefined) copy.push(redacted);
          else if (redacted !== entry) {
            copy = item.slice(0, index);
            copy.push(redacted);
          }
        }
        return copy ?? item;
      }
      if (item instanceof Map) {
        let copy: Map<unknown, unknown> | undefined;
        let index = 0;
        for (const [key, entry] of item) {
          const redacted = field(key, entry);
          if (copy !== undefined) copy.set(key, redacted);
          else if (redacted !== entry) copy = mapPrefix(item, index).set(key, redacted);
          index++;
        }
        return copy ?? item;
      }
      if (!isPlainObject(item)) return item;
      const keys = Object.keys(item);
      let copy: Record<string, unknown> | undefined;
      for (let index = 0; index < keys.length; index++) {
        const key = keys[index]!;
        const entry = item[key];
        const redacted = field(key, entry);
        if (copy !== undefined) copy[key] = redacted;
        else if (redacted !== entry) {
          copy = {};
          for (let before = 0; before < index; before++) copy[keys[before]!] = item[keys[before]!];
          copy[key] = redacted;
        }
      }
      return copy ?? item;
    } finally {
      ancestors.delete(item);
    }
  };
  return visit(value) as T;
}

/** A diagnostic text (an error message, a traceback, a log line) without secrets. */
export function redactText(text: string, secrets: Iterable<string | null | undefined> = []): string {
  return redact(text, { secrets });
}

/** A URL for display: its user-info and secret query parameters replaced. */
export function redactUrl(url: string, secrets: Iterable<string | null | undefined> = []): string {
  return redact(url, { secrets });
}

/** A configuration value (settings, LLM arguments, agent options, a request's parameters) without secrets. */
export function redactValue<T>(value: T, secrets: Iterable<string | null | undefined> = []): T {
  return redact(value, { secrets });
}

/** Benchmark content (messages, tool calls, tasks) with only known secrets and credential shapes replaced. */
export function redactContent<T>(value: T, secrets: Iterable<string | null | undefined> = []): T {
  return redact(value, { secrets, content: true });
}

/**
 * Header map without credential headers (the scripted server's request log and anything that
 * records HTTP traffic).
 */
export function withoutSecretHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const output: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || isSecretName(name)) continue;
    output[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return output;
}

/** The secret parts of one string: a URL's user-info (user and password), secret query values, a bearer token. */
function secretsInString(text: string, into: Set<string>): void {
  for (const [url] of text.matchAll(URL_IN_TEXT)) {
    const userInfo = URL_USER_INFO.exec(url)?.[2];
    if (userInfo) {
      into.add(userInfo);
      for (const part of userInfo.split(":")) if (part) into.add(part).add(decoded(part));
    }
    for (const [, , name, value] of url.matchAll(URL_PARAMETER)) if (value && isSecretName(decoded(name))) into.add(value).add(decoded(value));
  }
  for (const [match] of text.matchAll(BEARER)) into.add(match.replace(/^Bearer\s+/, ""));
}

/**
 * The secret values a configuration holds (a run's settings, LLM arguments, agent options, a
 * client's base URL and parameters), to be replaced wherever else they appear: every scalar in a
 * secret place, the parts of URLs, bearer tokens, and the value of every environment variable a
 * `…ApiKeyEnv` field names.
 */
export function secretsIn(value: unknown, env: Readonly<Record<string, string | undefined>> = {}): string[] {
  const found = new Set<string>();
  const seen = new Set<object>();
  const all = (item: unknown): void => {
    if (typeof item === "string" || typeof item === "number" || typeof item === "bigint") {
      const text = String(item).trim();
      found.add(text);
      const bare = text.replace(/^(?:Bearer|Basic|Token|Digest)\s+/, "");
      if (bare !== text) found.add(bare);
      return;
    }
    if (item === null || typeof item !== "object" || seen.has(item)) return;
    seen.add(item);
    const entries = item instanceof Map ? [...item.values()] : Array.isArray(item) ? item : isPlainObject(item) ? Object.values(item) : [];
    for (const entry of entries) all(entry);
  };
  /** A header map: the values of credential headers (every value is redacted where the map is written, but only these are known secrets). */
  const headers = (item: object): void => {
    const entries = item instanceof Map ? [...item] : isPlainObject(item) ? Object.entries(item) : [];
    for (const [name, entry] of entries) {
      if (typeof name === "string" && isSecretName(name)) all(entry);
      else if (typeof entry === "string") secretsInString(entry, found);
    }
  };
  const visit = (key: unknown, item: unknown): void => {
    if (typeof key === "string") {
      if (isSecretName(key)) {
        all(item);
        return;
      }
      if (item !== null && typeof item === "object" && isHeaderMapName(key)) {
        headers(item);
        return;
      }
      if (typeof item === "string" && isKeyVariableName(key)) {
        const variable = env[item]?.trim();
        if (variable) found.add(variable);
        return;
      }
    }
    if (typeof item === "string") {
      secretsInString(item, found);
      return;
    }
    if (item === null || typeof item !== "object" || seen.has(item)) return;
    seen.add(item);
    if (item instanceof Map) for (const [name, entry] of item) visit(name, entry);
    else if (Array.isArray(item)) for (const entry of item) visit(undefined, entry);
    else if (isPlainObject(item)) for (const [name, entry] of Object.entries(item)) visit(name, entry);
  };
  visit(undefined, value);
  return [...found].filter((secret) => secret.length >= MIN_SECRET_LENGTH && secret !== REDACTED);
}

/**
 * Values of environment variables whose names look secret (`OPENAI_API_KEY`, `HF_TOKEN`,
 * `AWS_SECRET_ACCESS_KEY`): keys a framework or a Python agent may read on its own, without the
 * run naming them. Only long values count, so a placeholder is never mistaken for a key.
 */
export function environmentSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value !== undefined && isSecretName(name))
    .map(([, value]) => (value as string).trim())
    .filter((value) => value.length >= MIN_ENVIRONMENT_SECRET_LENGTH);
}

/**
 * Every secret a run knows of: what its settings hold in secret places (`secretsIn`, which also
 * reads the variables `--api-key-env` and its kin name) and the secret-looking environment.
 * Writers replace these wherever they appear, benchmark content included.
 */
export function runSecrets(settings: unknown, env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  return [...new Set([...secretsIn(settings, env), ...environmentSecrets(env)])];
}
