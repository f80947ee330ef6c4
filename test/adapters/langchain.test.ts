import { defineAdapterSuite } from "./adapter-suite.ts";

defineAdapterSuite({
  strategy: "langchain",
  exampleModule: new URL("../../adapters/langchain/example/retail-agent.ts", import.meta.url),
  libraryModule: new URL("../../adapters/langchain/example/library-agent.ts", import.meta.url),
  aliasModule: new URL("./fixtures/langchain/alias-agent.ts", import.meta.url),
  infraStatus: 409,
  invalidArgumentText: /Received tool input did not match expected schema/,
});
