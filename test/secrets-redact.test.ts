/**
 * The one redaction function (`src/secrets/redact.ts`): its rules, one by one. That every writer
 * uses it is `test/secrets-on-disk.test.ts`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { readDerived, writeDerived } from "../src/data/derived-cache.ts";
import { sourceRecord } from "../src/data/install.ts";
import { identityChanges, identityOf } from "../src/run/run-identity.ts";
import { environmentSecrets, isSecretName, REDACTED, redact, redactContent, redactText, redactUrl, redactValue, runSecrets, secretsIn, withoutSecretHeaders } from "../src/secrets/redact.ts";
import { PyFloat, pyJsonDumps, parsePythonJson } from "../src/value/index.ts";

const SECRET = "sk-test-SECRET-key-0123456789abcdefXYZ";

describe("redaction: credential shapes in text", () => {
  it("replaces known values, provider-shaped keys, bearer tokens, URL user-info and secret query parameters", () => {
    expect(redactText(`key=${SECRET}!`, [SECRET])).toBe(`key=${REDACTED}!`);
    expect(redactText("Authorization: Bearer abcdef123456")).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactText("sent Bearer abcdef123456 upstream")).toBe(`sent Bearer ${REDACTED} upstream`);
    expect(redactText("use sk-proj-ABCDEFGHIJKLMNOPQRSTUV now")).toBe(`use ${REDACTED} now`);
    expect(redactText("anthropic sk-ant-api03-abcdefghijklmnopqrstu")).toBe(`anthropic ${REDACTED}`);
    expect(redactText("masked sk-abc***xyz")).toBe(`masked ${REDACTED}`);
    expect(redactText("hf hf_ABCDEFGHIJKLMNOPQRSTUVWX gh ghp_ABCDEFGHIJKLMNOPQRSTUVWX")).toBe(`hf ${REDACTED} gh ${REDACTED}`);
    expect(redactText("http://user:pw@host:8000/v1")).toBe(`http://${REDACTED}@host:8000/v1`);
    expect(redactUrl("https://example.com/v1?api-key=abc123&model=x")).toBe(`https://example.com/v1?api-key=${REDACTED}&model=x`);
    expect(redactUrl("https://example.com/v1?model=x&sig=abc123#access_token=zzz999")).toBe(`https://example.com/v1?model=x&sig=${REDACTED}#access_token=${REDACTED}`);
    expect(redactText("connect ECONNREFUSED https://u:p4ss@api.example.com/v1?key=k3y999 failed")).toBe(`connect ECONNREFUSED https://${REDACTED}@api.example.com/v1?key=${REDACTED} failed`);
  });

  it("leaves ordinary text, short values and non-secret names alone", () => {
    expect(redactText("nothing secret here")).toBe("nothing secret here");
    expect(redactText("short secret abc", ["abc"])).toBe("short secret abc"); // too short to replace blindly
    expect(redactText("max_tokens=256 token_limit: 10 http://127.0.0.1:8000/v1")).toBe("max_tokens=256 token_limit: 10 http://127.0.0.1:8000/v1");
    expect(redactText(`password=hunter22 "api_key": "abc123456"`)).toBe(`password=${REDACTED} "api_key": "${REDACTED}"`);
  });
});

describe("redaction: names", () => {
  it("knows secret names in any spelling, and names that only say where a secret is", () => {
    for (const name of [
      "api_key",
      "apiKey",
      "API_KEY",
      "Authorization",
      "proxy-authorization",
      "x-api-key",
      "api-key",
      "access_token",
      "password",
      "client_secret",
      "cookie",
      "Set-Cookie",
      "env.OPENAI_API_KEY",
      "LITELLM_API_KEY_AGENT",
      "sig",
      "key",
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ["max_tokens", "token_limit", "apiKeyEnv", "api_key_env", "key_file", "KeyError", "PWD", "model", "base_url", "temperature", "keyword"]) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});

describe("redaction: values", () => {
  it("replaces secret places in configuration and keeps the structure", () => {
    const value = {
      headers: { Authorization: "Bearer x", "x-api-key": "abc", "X-Trace": "t-1" },
      extra_headers: { "OpenAI-Organization": "org-123456" },
      nested: [{ note: `has ${SECRET}` }],
      api_key: "plain",
      api_key_env: "MY_KEY",
      max_tokens: 3,
      api_base: "https://u:p@h/v1",
    };
    expect(redactValue(value, [SECRET])).toEqual({
      headers: { Authorization: REDACTED, "x-api-key": REDACTED, "X-Trace": REDACTED },
      extra_headers: { "OpenAI-Organization": REDACTED },
      nested: [{ note: `has ${REDACTED}` }],
      api_key: REDACTED,
      api_key_env: "MY_KEY",
      max_tokens: 3,
      api_base: `https://${REDACTED}@h/v1`,
    });
  });

  it("shares what needs no change and cuts cycles", () => {
    const clean = { model: "gpt", list: [1, 2, { a: "b" }] };
    expect(redactValue(clean)).toBe(clean);
    const mixed = { clean: clean.list, api_key: "k" };
    expect(redactValue(mixed).clean).toBe(clean.list);
    const cyclic: Record<string, unknown> = { a: 1, api_key: "x" };
    cyclic.self = cyclic;
    expect(redactValue(cyclic)).toEqual({ a: 1, api_key: REDACTED, self: "[Circular]" });
  });

  it("redacts benchmark content by known values and shapes only: a tool argument named password stays", () => {
    const call = { name: "reset_password", arguments: { password: "NewPass-2024", note: `key ${SECRET} at http://a:b@host/x` } };
    expect(redactContent(call, [SECRET])).toEqual({ name: "reset_password", arguments: { password: "NewPass-2024", note: `key ${REDACTED} at http://${REDACTED}@host/x` } });
  });

  it("walks Python values (Maps) and keeps Python floats, so τ² llm_args keep their spelling", () => {
    const args = parsePythonJson('{"temperature": 0.0, "extra_headers": {"Authorization": "Bearer tok-123456789"}, "api_key": "k-123456", "max_tokens": 10}');
    const written = redact(args);
    expect(pyJsonDumps(written)).toBe(`{"temperature": 0.0, "extra_headers": {"Authorization": "${REDACTED}"}, "api_key": "${REDACTED}", "max_tokens": 10}`);
    const floats = new Map<string, unknown>([["top_p", new PyFloat(1)]]);
    expect(redact(floats)).toBe(floats);
  });
});

describe("redaction: what a run knows to be secret", () => {
  it("collects the values in secret places, URL credentials, bearer tokens and the variables key fields name", () => {
    const settings = {
      baseUrl: "https://alice:pa55word-xyz@llm.example.com/v1?api-key=query-secret-1",
      agentLlmArgs: { extra_headers: { Authorization: "Bearer header-token-2", "X-Trace": "not-a-secret" }, temperature: 0 },
      apiKeyEnv: "MY_PROVIDER_KEY",
      model: "gpt-4o",
    };
    const found = secretsIn(settings, { MY_PROVIDER_KEY: "env-secret-value-3", OTHER: "other-value-4" });
    expect(found).toEqual(expect.arrayContaining(["pa55word-xyz", "query-secret-1", "header-token-2", "env-secret-value-3"]));
    expect(found).not.toContain("not-a-secret");
    expect(found).not.toContain("other-value-4");
    expect(found).not.toContain("gpt-4o");
  });

  it("adds long values of secret-named environment variables, not placeholders", () => {
    expect(environmentSecrets({ OPENAI_API_KEY: "sk-long-enough-secret", ANTHROPIC_API_KEY: "EMPTY", HOME: "/home/someone-long" })).toEqual(["sk-long-enough-secret"]);
    expect(runSecrets({ api_key: "cfg-secret-1" }, { HF_TOKEN: "hf-token-long-value" })).toEqual(["cfg-secret-1", "hf-token-long-value"]);
  });

  it("drops credential headers from a recorded header map", () => {
    expect(withoutSecretHeaders({ authorization: "Bearer x", "X-Api-Key": "k", "content-type": "application/json", accept: ["a", "b"] })).toEqual({
      "content-type": "application/json",
      accept: "a, b",
    });
  });
});

describe("redaction: a run's identity", () => {
  it("holds no secret and does not change when only a key or a password changes", () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-identity-"));
    const identity = (password: string, key: string) =>
      identityOf({
        options: { baseUrl: `http://alice:${password}@127.0.0.1:8000/v1?api-key=${key}`, agentLlmArgs: { temperature: 0, api_key: key, extra_headers: { Authorization: `Bearer ${key}` } } },
        taskSet: [],
        data: { directory, files: [] },
        files: {},
        secrets: [password, key],
      });
    const first = identity("first-password", "first-key-123");
    expect(first).toEqual(identity("other-password", "other-key-456"));
    expect(JSON.stringify(first)).not.toMatch(/first-password|first-key-123|alice/);
    expect(first.options).toMatchObject({ baseUrl: `http://${REDACTED}@127.0.0.1:8000/v1?api-key=${REDACTED}`, agentLlmArgs: { api_key: REDACTED, extra_headers: { Authorization: REDACTED } } });
    expect(identityChanges({ ...first, options: { ...first.options, baseUrl: "http://bob:x@127.0.0.1:8000/v1?api-key=y" } }, first).changed).toEqual([]);
  });
});

describe("redaction: a data download's provenance record", () => {
  it("records a --source-url without its credentials", () => {
    const manifest = { dataset: "tau-bench", repository: "example/bench", commit: "0".repeat(40) } as never;
    const record = sourceRecord(manifest, "pull", "upstream", "https://bob:mirror-pass-99@mirror.example.com/raw?token=tok-123456", true, [], () => new Date(0));
    expect(record.source).toBe(`https://${REDACTED}@mirror.example.com/raw?token=${REDACTED}`);
  });
});

describe("redaction: the derived cache", () => {
  it("does not store a value that holds a known key or a credential's shape (it is derived again instead)", () => {
    const env = { TAUBRIDGE_DERIVED_CACHE_DIR: mkdtempSync(join(tmpdir(), "taubridge-derived-")), OPENAI_API_KEY: "derived-cache-secret-123" };
    writeDerived("test-v1", "a".repeat(64), { text: "a task" }, env);
    writeDerived("test-v1", "b".repeat(64), { text: "uses derived-cache-secret-123" }, env);
    writeDerived("test-v1", "c".repeat(64), { text: "see http://bob:pw@host/x" }, env);
    expect(readDerived("test-v1", "a".repeat(64), env)).toEqual({ text: "a task" });
    expect(readDerived("test-v1", "b".repeat(64), env)).toBeUndefined();
    expect(readDerived("test-v1", "c".repeat(64), env)).toBeUndefined();
    expect(readdirSync(join(env.TAUBRIDGE_DERIVED_CACHE_DIR, "test-v1"))).toHaveLength(1);
  });
});
