import { defineAdapterSuite } from "./adapter-suite.ts";

defineAdapterSuite({
  strategy: "vercel-ai",
  exampleModule: new URL("../../adapters/vercel-ai/example/retail-agent.ts", import.meta.url),
  libraryModule: new URL("../../adapters/vercel-ai/example/library-agent.ts", import.meta.url),
  aliasModule: new URL("./fixtures/vercel-ai/alias-agent.ts", import.meta.url),
  invalidArgumentText: /Invalid input for tool get_order_details: Type validation failed/,
});
