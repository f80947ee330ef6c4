import { defineAdapterSuite } from "../common/adapter-suite.ts";

defineAdapterSuite({
  strategy: "vercel-ai",
  exampleModule: new URL("./example/retail-agent.ts", import.meta.url),
  aliasModule: new URL("./fixtures/alias-agent.ts", import.meta.url),
  invalidArgumentText: /Invalid input for tool get_order_details: Type validation failed/,
});
