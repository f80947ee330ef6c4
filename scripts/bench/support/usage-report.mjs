// Loaded with `node --import` into every process a benchmark measures (the CLI, and the worker
// processes it starts, which inherit Node's flags): at exit, appends the process's CPU time and
// peak resident memory as one JSON line to the file named by TAUBRIDGE_BENCH_USAGE_FILE.
import { appendFileSync } from "node:fs";

const file = process.env.TAUBRIDGE_BENCH_USAGE_FILE;
if (file) {
  process.on("exit", () => {
    const usage = process.resourceUsage();
    const line = { pid: process.pid, ppid: process.ppid, cpuUserMs: usage.userCPUTime / 1000, cpuSystemMs: usage.systemCPUTime / 1000, maxRssKB: usage.maxRSS, uptimeMs: process.uptime() * 1000 };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  });
}
