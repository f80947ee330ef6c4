/**
 * τ²'s own participants (`--agent`, `--user` of a τ² run): the offline pair (the `oracle` agent,
 * the `scripted` user) and τ²'s model-driven ones (`llm_agent`, `llm_agent_gt`, `llm_agent_solo`,
 * `user_simulator`, `dummy_user`), registered into registries the composition root creates.
 */
import { Registry } from "../../../core/registry.ts";
import type { Tau2ParticipantFactory } from "../run-options.ts";
import { registerModelTau2Participants } from "./model-participants.ts";
import { oracleKnobs, tau2OracleAgent, tau2OracleWith } from "./oracle.ts";
import { tau2ScriptedUser } from "./scripted-user.ts";
import { tau2HumanUser } from "./human-user.ts";

/** Fresh registries of τ²'s agents and users with every τ² participant registered. */
export function tau2Participants(): { agents: Registry<Tau2ParticipantFactory>; users: Registry<Tau2ParticipantFactory> } {
  const agents = new Registry<Tau2ParticipantFactory>("τ² agent");
  const users = new Registry<Tau2ParticipantFactory>("τ² user");
  agents.register(
    "oracle",
    Object.assign(
      (options: { llmArgs: Record<string, unknown> }) => {
        const knobs = oracleKnobs(options.llmArgs);
        return knobs.failureRate === 0 && knobs.costPerTurn === 0 ? tau2OracleAgent : tau2OracleWith(knobs);
      },
      { description: "taubridge's oracle: replays the task's ground-truth actions, then says its required outputs (no model; --agent-llm-args failure_rate, cost_per_turn for tests)" },
    ),
  );
  users.register(
    "scripted",
    Object.assign(() => tau2ScriptedUser, {
      description:
        "taubridge's scripted user, to check the pipeline with the oracle: greets, performs the task's user-side actions whatever the agent says, then stops (no model); with any other agent its scores mean little",
    }),
  );
  users.register(
    "human",
    Object.assign(() => tau2HumanUser(), {
      description: "a person types the user's messages (and /tool calls of the user's own tools) in the terminal, as τ²'s `tau2 play`; one episode at a time",
    }),
  );
  registerModelTau2Participants(agents, users);
  return { agents, users };
}
