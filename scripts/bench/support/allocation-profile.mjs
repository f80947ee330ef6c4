// Loaded with `node --import` into the CLI of a benchmark run (`scale.ts --alloc-prof <dir>`): V8's
// sampling heap profiler from start to exit, keeping the samples of objects the collector has freed.
// That is the allocation *rate* by function, which is what decides how often the young generation
// is scavenged. (`node --heap-prof` keeps only what is still alive when the profile is taken, which
// ranks long-lived data first and hides short-lived garbage.) Written to TAUBRIDGE_ALLOCATION_PROFILE
// as a `.heapprofile` (Chrome DevTools reads it; `allocation-summary.mjs` summarises it).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const output = process.env.TAUBRIDGE_ALLOCATION_PROFILE;
if (output) {
  const session = new Session();
  session.connect();
  session.post("HeapProfiler.startSampling", { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  process.on("exit", () => {
    // The inspector answers synchronously on the main thread, so the profile is written before the process ends.
    session.post("HeapProfiler.stopSampling", (error, result) => {
      if (!error) writeFileSync(output, JSON.stringify(result.profile));
    });
  });
}
