/**
 * The deployment files of the A2A server (deploy/a2a: Dockerfile, compose file, Amber manifests)
 * cannot be built or run here (no Docker daemon, no AgentBeats platform), so this checks what can
 * be checked: the Amber manifests parse as JSON5 and keep the format's local rules, and every
 * `serve` flag the files pass is one the CLI has; the image is a slim Node LTS one, runs as a
 * non-root user, checks /healthz, serves on the port it exposes, keeps its store in a volume.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import JSON5 from "json5";
import { describe, expect, it } from "vitest";
import { createProgram } from "../../src/cli/main.ts";

const DEPLOY = join(import.meta.dirname, "..", "..", "deploy", "a2a");
const read = (name: string) => readFileSync(join(DEPLOY, name), "utf8");

type Manifest = {
  manifest_version: string;
  program?: { image: string; args?: string[]; network?: { endpoints?: Array<{ name: string; port: number }> } };
  components?: Record<string, unknown>;
  slots?: Record<string, { kind: string }>;
  provides?: Record<string, { kind: string; endpoint?: string }>;
  bindings?: Array<{ to: string; from: string }>;
  exports?: string[];
};

/** The local rules of the Amber manifest format (its README, "Parse-time validation"). */
function checkManifest(manifest: Manifest): void {
  expect(manifest.manifest_version.split(".")[0]).toBe("1");
  const slots = Object.keys(manifest.slots ?? {});
  const provides = Object.keys(manifest.provides ?? {});
  const exports = manifest.exports ?? [];
  const bindings = manifest.bindings ?? [];
  for (const name of [...slots, ...provides, ...Object.keys(manifest.components ?? {})]) expect(name).not.toContain(".");
  expect(slots.filter((name) => provides.includes(name))).toEqual([]);
  for (const name of exports) expect([...slots, ...provides]).toContain(name);
  for (const slot of slots) expect(exports.includes(slot) || bindings.some((binding) => binding.to === `self.${slot}`)).toBe(true);
  for (const name of provides) expect(exports.includes(name) || bindings.some((binding) => binding.from === `self.${name}`)).toBe(true);
  const endpoints = (manifest.program?.network?.endpoints ?? []).map((endpoint) => endpoint.name);
  expect(new Set(endpoints).size).toBe(endpoints.length);
  for (const provide of Object.values(manifest.provides ?? {})) if (provide.endpoint) expect(endpoints).toContain(provide.endpoint);
  const targets = bindings.map((binding) => binding.to);
  expect(new Set(targets).size).toBe(targets.length);
  for (const binding of bindings)
    for (const end of [binding.to, binding.from]) {
      const component = end.split(".")[0];
      if (component.startsWith("#")) expect(Object.keys(manifest.components ?? {})).toContain(component.slice(1));
    }
  for (const kind of [...Object.values(manifest.slots ?? {}), ...Object.values(manifest.provides ?? {})].map((capability) => capability.kind)) expect(["mcp", "llm", "http", "a2a"]).toContain(kind);
}

/** The long flags `taubridge serve` takes. */
function serveFlags(): string[] {
  const serve = createProgram(async () => {
    throw new Error("not needed");
  }).commands.find((command) => command.name() === "serve");
  return (serve?.options ?? []).flatMap((option) => [option.long ?? ""]).filter(Boolean);
}

/** The `--flags` in an argument list. */
const flagsIn = (args: readonly string[]) => args.filter((arg) => arg.startsWith("--"));

describe("deploy/a2a", () => {
  it("the green agent's Amber manifest: a program serving A2A, the agent under test as an a2a slot, serve flags that exist", () => {
    const manifest = JSON5.parse(read("taubridge-green.json5")) as Manifest;
    checkManifest(manifest);
    expect(manifest.slots?.agent).toEqual({ kind: "a2a" });
    expect(manifest.provides?.green).toEqual({ kind: "a2a", endpoint: "a2a" });
    expect(manifest.program?.network?.endpoints?.[0].port).toBe(9009);
    const args = manifest.program?.args ?? [];
    expect(args).toContain(["$", "{slots.agent.url}"].join("")); // Amber interpolation, not a template literal
    for (const flag of flagsIn(args)) expect(serveFlags()).toContain(flag);
  });

  it("the scenario: green and purple components, the purple's a2a capability bound into the green's slot", () => {
    const scenario = JSON5.parse(read("amber-scenario.json5")) as Manifest;
    checkManifest(scenario);
    expect(Object.keys(scenario.components ?? {})).toEqual(["green", "purple"]);
    expect(scenario.bindings).toEqual([{ to: "#green.agent", from: "#purple.agent" }]);
  });

  it("the Dockerfile: slim Node LTS, non-root, healthcheck on /healthz, serve --a2a with its store in a volume, the exposed port served", () => {
    const dockerfile = read("Dockerfile");
    const images = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toMatch(/^node:(20|22|24)-slim$/);
    const lines = dockerfile.split("\n");
    const user = lines.findIndex((line) => /^USER (?!root)\w+/.test(line));
    const entrypoint = lines.findIndex((line) => line.startsWith("ENTRYPOINT"));
    expect(user).toBeGreaterThan(0);
    expect(user).toBeLessThan(entrypoint);
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*http:\/\/127\.0\.0\.1:9009\/healthz/m);
    const command = JSON.parse((dockerfile.match(/^ENTRYPOINT (.*)$/m) as RegExpMatchArray)[1]) as string[];
    const defaults = JSON.parse((dockerfile.match(/^CMD (.*)$/m) as RegExpMatchArray)[1]) as string[];
    expect(command.slice(0, 5)).toEqual(["node", "bin/taubridge.js", "serve", "--a2a", "--store"]);
    expect(dockerfile).toMatch(new RegExp(`^VOLUME \\["${command[5]}"\\]`, "m"));
    expect(defaults[defaults.indexOf("--port") + 1]).toBe((dockerfile.match(/^EXPOSE (\d+)/m) as RegExpMatchArray)[1]);
    for (const flag of flagsIn([...command, ...defaults])) expect(serveFlags()).toContain(flag);
  });

  it("the compose file: builds that Dockerfile, keeps the store in a named volume, requires a caller token", () => {
    const compose = read("compose.yaml");
    expect(compose).toMatch(/dockerfile: deploy\/a2a\/Dockerfile/);
    expect(compose).toMatch(/- store:\/store\n/);
    expect(compose).toMatch(/^volumes:\n {2}store:/m);
    expect(compose).toMatch(/TAUBRIDGE_A2A_TOKEN: \$\{TAUBRIDGE_A2A_TOKEN:\?/);
    expect(compose).toMatch(/"9009:9009"/);
    const command = JSON.parse((compose.match(/command: (\[.*\])/) as RegExpMatchArray)[1]) as string[];
    for (const flag of flagsIn(command)) expect(serveFlags()).toContain(flag);
  });
});
