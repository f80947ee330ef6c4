/**
 * The parts of undici the model clients use, each loaded from its own module when first needed.
 * Why: undici's `index.js` loads every dispatcher, `fetch`, WebSocket, the caches and the mocks
 * (measured ~0.2 s of CPU on Node 20), while a chat call needs only the `Client` (and, for an answer that
 * is a redirect, the redirect handler: about half of that), and the `fetch`-shaped path (`http-transport.ts`) is used only
 * by embeddings and the SDK transport. The classes are undici's own (the same files its index
 * exports), so behaviour and wire bytes do not change; only what is loaded does.
 */
import { createRequire } from "node:module";
import type * as Undici from "undici";

const load = createRequire(import.meta.url);

let client: typeof Undici.Client | undefined;
let redirect: typeof Undici.RedirectHandler | undefined;
let whole: typeof Undici | undefined;

/** undici's `Client` (`lib/dispatcher/client.js`, what `undici.Client` is). */
export function undiciClient(): typeof Undici.Client {
  client ??= load("undici/lib/dispatcher/client.js") as typeof Undici.Client;
  return client;
}

/** undici's redirect handler (`lib/handler/redirect-handler.js`, what `undici.RedirectHandler` is and its redirect interceptor uses). */
export function redirectHandler(): typeof Undici.RedirectHandler {
  redirect ??= load("undici/lib/handler/redirect-handler.js") as typeof Undici.RedirectHandler;
  return redirect;
}

/** The whole package, for the `fetch`-shaped path (`Agent`, `request`). */
export function undiciPackage(): typeof Undici {
  whole ??= load("undici") as typeof Undici;
  return whole;
}
