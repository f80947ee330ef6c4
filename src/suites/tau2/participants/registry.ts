/**
 * The process-wide registries of τ² participants (`--agent`, `--user` of `taubridge tau2 run`),
 * with the offline pair registered: the `oracle` agent and the `scripted` user. Model-driven
 * participants (`llm_agent`, `user_simulator`, …) register into the same registries.
 */
import { Registry } from "../../../core/registry.ts";
import { tau2OracleAgent } from "./oracle.ts";
import { tau2ScriptedUser } from "./scripted-user.ts";
import type { Tau2ParticipantFactory } from "../build.ts";
import { registerModelTau2Participants } from "./model-participants.ts";

export const tau2Agents = new Registry<Tau2ParticipantFactory>("τ² agent");
export const tau2Users = new Registry<Tau2ParticipantFactory>("τ² user");

let registered = false;

/** Registers the offline participants once. */
export function registerOfflineTau2Participants(): void {
  if (registered) return;
  registered = true;
  tau2Agents.register("oracle", () => tau2OracleAgent);
  tau2Users.register("scripted", () => tau2ScriptedUser);
  registerModelTau2Participants(tau2Agents, tau2Users);
}
