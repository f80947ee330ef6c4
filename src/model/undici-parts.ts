/**
 * The parts of undici the model clients use, each loaded from its own module when first needed.
 * Why: undici's `index.js` loads every dispatcher, `fetch`, WebSocket, the caches and the mocks
 * (measured ~0.2 s of CPU on Node 20), while a chat call needs only the `Client` and the redirect
 * interceptor (about half of that), and the `fetch`-shaped path (`http-transport.ts`) is used only
 * by embeddings and the SDK transport. The classes are undici's own (the same files its index
 * exports), so behaviour and wire bytes do not change; only what is loaded does.
 */
import { createRequire } from "node:module";
import type * as Undici from "undici";

const load = createRequire(import.meta.url);

let client: typeof Undici.Client | undefined;
let redirect: typeof Undici.interceptors.redirect | undefined;
let whole: typeof Undici | undefined;

/** undici's `Client` (`lib/dispatcher/client.js`, what `undici.Client` is). */
export function undiciClient(): typeof Undici.Client {
  client ??= load("undici/lib/dispatcher/client.js") as typeof Undici.Client;
  return client;
}

/** undici's redirect interceptor (`lib/interceptor/redirect.js`, what `undici.interceptors.redirect` is). */
export function redirectInterceptor(): typeof Undici.interceptors.redirect {
  redirect ??= load("undici/lib/interceptor/redirect.js") as typeof Undici.interceptors.redirect;
  return redirect;
}

/** The whole package, for the `fetch`-shaped path (`Agent`, `request`). */
export function undiciPackage(): typeof Undici {
  whole ??= load("undici") as typeof Undici;
  return whole;
}
