import { defineAdapterSuite } from "../common/adapter-suite.ts";

defineAdapterSuite({
  strategy: "langchain",
  exampleModule: new URL("./example/retail-agent.ts", import.meta.url),
  aliasModule: new URL("./fixtures/alias-agent.ts", import.meta.url),
  infraStatus: 409,
  invalidArgumentText: /Received tool input did not match expected schema/,
});
