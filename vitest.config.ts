import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Generous: CI runs the suite on three Node versions at once, two files each, on two cores, so a
    // test that takes 20 s alone may take three times that; a timeout is a hang detector, not a check.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    globalSetup: ["./test/support/derived-cache-setup.ts", "./test/support/cli-build-setup.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
