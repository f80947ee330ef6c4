import { defineAdapterSuite } from "./adapter-suite.ts";

defineAdapterSuite({
  strategy: "mastra",
  exampleModule: new URL("../../adapters/mastra/example/retail-agent.ts", import.meta.url),
  libraryModule: new URL("../../adapters/mastra/example/library-agent.ts", import.meta.url),
  aliasModule: new URL("./fixtures/mastra/alias-agent.ts", import.meta.url),
  invalidArgumentText: /Tool validation failed for get_order_details/,
});
