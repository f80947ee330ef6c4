/**
 * Who is calling: bearer tokens from `TAUBRIDGE_A2A_TOKEN` (a comma-separated list, one caller per
 * token). Every JSON-RPC request needs one (401 before any handling); the card and `/healthz` stay
 * public. A caller is known by a label derived from its token's SHA-256 (never the token), which
 * scopes the tasks and results it can see. Without tokens every caller is `anonymous` and shares one
 * scope (the server refuses to listen beyond loopback that way unless told `--insecure-no-auth`).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { User } from "@a2a-js/sdk/server";

/** The environment variable holding the accepted tokens. */
export const TOKEN_VARIABLE = "TAUBRIDGE_A2A_TOKEN";

/** The label of the caller when the server takes no tokens. */
export const ANONYMOUS = "anonymous";

const digest = (token: string) => createHash("sha256").update(token, "utf8").digest();

/** The caller's label: `caller-` and the first 12 hex digits of its token's SHA-256. */
export function callerLabel(token: string): string {
  return `caller-${digest(token).toString("hex").slice(0, 12)}`;
}

/** An authenticated caller, as the SDK's `User`. */
export class Caller implements User {
  constructor(readonly userName: string) {}

  get isAuthenticated(): boolean {
    return this.userName !== ANONYMOUS;
  }
}

/** The tokens of the environment variable (blank entries ignored). */
export function tokensFrom(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[TOKEN_VARIABLE] ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token !== "");
}

/** The accepted tokens, compared in constant time by digest. */
export class TokenBook {
  private readonly digests: Array<{ digest: Buffer; label: string }>;

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map((token) => ({ digest: digest(token), label: callerLabel(token) }));
  }

  get required(): boolean {
    return this.digests.length > 0;
  }

  get callers(): number {
    return this.digests.length;
  }

  /** The caller a request's `Authorization` header names, or undefined when it names none we accept. */
  callerOf(authorization: string | undefined): Caller | undefined {
    if (!this.required) return new Caller(ANONYMOUS);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!match) return undefined;
    const given = digest(match[1]);
    let found: string | undefined;
    for (const entry of this.digests) if (timingSafeEqual(entry.digest, given)) found = entry.label;
    return found === undefined ? undefined : new Caller(found);
  }
}

/** The key under which the middleware leaves the caller on the request. */
const CALLER = Symbol("taubridge.a2a.caller");

/** Express middleware: 401 (with `WWW-Authenticate`) for a request without an accepted token, before anything reads it. */
export function requireCaller(book: TokenBook) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const caller = book.callerOf(request.headers.authorization);
    if (!caller) {
      const given = request.headers.authorization !== undefined;
      response
        .status(401)
        .setHeader("WWW-Authenticate", `Bearer realm="taubridge"${given ? ', error="invalid_token"' : ""}`)
        .json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: given ? "unauthorized: the bearer token is not accepted" : "unauthorized: send Authorization: Bearer <token>" } });
      return;
    }
    (request as unknown as Record<symbol, Caller>)[CALLER] = caller;
    next();
  };
}

/** The SDK's user builder: the caller the middleware found. */
export async function userOf(request: Request): Promise<User> {
  return (request as unknown as Record<symbol, Caller>)[CALLER] ?? new Caller(ANONYMOUS);
}
