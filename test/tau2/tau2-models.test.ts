/** τ²'s model strings and LLM arguments map onto our providers and endpoints as τ²'s users mean them. */
import { describe, expect, it } from "vitest";
import { resolveTau2Model } from "../../src/suites/tau2/models.ts";

describe("τ² model strings", () => {
  it("reads litellm prefixes and api_base; our base-URL flag wins", () => {
    expect(resolveTau2Model({ llm: "gpt-4.1-2025-04-14", llmArgs: { temperature: 0 } })).toEqual({ provider: "openai", model: "gpt-4.1-2025-04-14", baseURL: undefined });
    expect(resolveTau2Model({ llm: "openai/gpt-4o", llmArgs: {} })).toEqual({ provider: "openai", model: "gpt-4o", baseURL: undefined });
    expect(resolveTau2Model({ llm: "hosted_vllm/Qwen/Qwen2.5-7B-Instruct", llmArgs: { api_base: "http://127.0.0.1:8000/v1" } })).toEqual({
      provider: "vllm",
      model: "Qwen/Qwen2.5-7B-Instruct",
      baseURL: "http://127.0.0.1:8000/v1",
    });
    expect(resolveTau2Model({ llm: "my-model", llmArgs: { api_base: "http://127.0.0.1:9/v1" } })).toEqual({ provider: "openai-compatible", model: "my-model", baseURL: "http://127.0.0.1:9/v1" });
    expect(resolveTau2Model({ llm: "my-model", llmArgs: { api_base: "http://a/v1" }, baseUrl: "http://b/v1", provider: "ollama" })).toEqual({
      provider: "ollama",
      model: "my-model",
      baseURL: "http://b/v1",
    });
  });
});
