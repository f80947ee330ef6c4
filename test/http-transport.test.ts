import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import OpenAI, { APIConnectionError, APIConnectionTimeoutError } from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { bufferedResponseClass, keepAliveFetch } from "../src/model/http-transport.ts";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

let server: Server | undefined;
const sockets = new Set<Socket>();

async function serve(handler: Handler): Promise<string> {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => handler(request, Buffer.concat(chunks).toString("utf8"), response));
  });
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe("keep-alive transport", () => {
  it("sends method, headers and body, and answers with a Response whose body reads once", async () => {
    const seen: Array<{ method?: string; type?: string; custom?: string; body: string }> = [];
    const base = await serve((request, body, response) => {
      seen.push({ method: request.method, type: request.headers["content-type"], custom: request.headers["x-custom"] as string, body });
      response.writeHead(201, { "content-type": "application/json", "x-request-id": "req-1", "set-cookie": ["a=1", "b=2"] });
      response.end(JSON.stringify({ ok: true, text: "héllo" }));
    });
    const response = await keepAliveFetch(`${base}/v1/things`, {
      method: "post",
      headers: new Headers({ "content-type": "application/json", "X-Custom": "yes" }),
      body: JSON.stringify({ question: 1 }),
    });
    expect(seen).toEqual([{ method: "POST", type: "application/json", custom: "yes", body: '{"question":1}' }]);
    expect(response).toBeInstanceOf(Response);
    expect(response).toBeInstanceOf(bufferedResponseClass());
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get("x-request-id")).toBe("req-1");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    const copy = response.clone();
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual({ ok: true, text: "héllo" });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    expect(new TextDecoder().decode(await copy.arrayBuffer())).toBe('{"ok":true,"text":"héllo"}');
  });

  it("keeps connections alive across sequential requests", async () => {
    const base = await serve((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("fine");
    });
    for (let index = 0; index < 10; index++) expect(await (await keepAliveFetch(`${base}/`, { method: "GET" })).text()).toBe("fine");
    // The pool may open a second socket while the first is still being released; never one per request.
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it("returns a null body for 204, follows redirects, and streams server-sent events", async () => {
    const base = await serve((request, _body, response) => {
      if (request.url === "/empty") {
        response.writeHead(204);
        response.end();
      } else if (request.url === "/moved") {
        response.writeHead(307, { location: "/target" });
        response.end();
      } else if (request.url === "/target") {
        response.writeHead(200, { "content-type": "text/plain" });
        response.end(`arrived with ${request.method}`);
      } else {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write("data: one\n\n");
        setTimeout(() => response.end("data: two\n\n"), 20);
      }
    });
    const empty = await keepAliveFetch(`${base}/empty`, { method: "DELETE" });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    expect(await (await keepAliveFetch(`${base}/moved`, { method: "POST", body: "x" })).text()).toBe("arrived with POST");
    const events = await keepAliveFetch(`${base}/events`, { method: "GET" });
    expect(events.headers.get("content-type")).toBe("text/event-stream");
    expect(events.body).not.toBeNull();
    const reader = events.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: one\n\n");
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe("data: two\n\n");
  });

  it("rejects with an AbortError when the signal fires, and with a network error when nobody listens", async () => {
    const base = await serve(() => {
      // never answers
    });
    const controller = new AbortController();
    const pending = keepAliveFetch(`${base}/slow`, { method: "GET", signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await expect(keepAliveFetch("http://127.0.0.1:1/", { method: "GET" })).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("hands bodies that are not plain text or bytes to the global fetch", async () => {
    const base = await serve((request, body, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(`${request.headers["content-type"]} ${body}`);
    });
    const response = await keepAliveFetch(`${base}/form`, { method: "POST", body: new URLSearchParams({ a: "1", b: "two" }) });
    expect(response).not.toBeInstanceOf(bufferedResponseClass());
    expect(await response.text()).toBe("application/x-www-form-urlencoded;charset=UTF-8 a=1&b=two");
  });

  it("is what the openai SDK needs: completions, timeouts and connection errors map to its errors", async () => {
    const base = await serve((request, body, response) => {
      if (JSON.parse(body).model === "slow") return; // never answers: the SDK's timeout must fire
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: "c1",
          object: "chat.completion",
          created: 0,
          model: "m",
          choices: [{ index: 0, message: { role: "assistant", content: `hi from ${request.url}` }, finish_reason: "stop" }],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        }),
      );
    });
    const client = new OpenAI({ apiKey: "k", baseURL: `${base}/v1`, maxRetries: 0, timeout: 200, fetch: keepAliveFetch });
    const completion = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hello" }] });
    expect(completion.choices[0]!.message.content).toBe("hi from /v1/chat/completions");
    expect(completion.usage?.total_tokens).toBe(5);
    await expect(client.chat.completions.create({ model: "slow", messages: [{ role: "user", content: "hello" }] })).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    const nobody = new OpenAI({ apiKey: "k", baseURL: "http://127.0.0.1:1/v1", maxRetries: 0, fetch: keepAliveFetch });
    await expect(nobody.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hello" }] })).rejects.toBeInstanceOf(APIConnectionError);
  });
});
