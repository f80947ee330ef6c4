import { defineAdapterSuite } from "../common/adapter-suite.ts";

defineAdapterSuite({
  strategy: "mastra",
  exampleModule: new URL("./example/retail-agent.ts", import.meta.url),
  aliasModule: new URL("./fixtures/alias-agent.ts", import.meta.url),
  invalidArgumentText: /Tool validation failed for get_order_details/,
});
