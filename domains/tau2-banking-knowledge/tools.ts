/**
 * τ³ banking's agent toolkit (`tools.py`, `KnowledgeTools`): the base tools every retrieval variant
 * has, in the original's order, then the discoverable tools the agent unlocks from the knowledge
 * base (`agent-discoverable-*.ts`). Read tools build their constraint JSON by string interpolation,
 * as the original does, so a `"` in an argument returns the JSON error text and an int id matches.
 */
import {
  type Tau2Method,
  type Tau2ToolkitDefinition,
  type Tau2ToolkitInstance,
  callMethod,
  discoverableToolsByName,
  hasDiscoverableTool,
  methodOf,
  signatureParameters,
  tau2Tool,
  toolkitAttributes,
} from "../../src/suites/tau2/engine/toolkit.ts";
import {
  PyException,
  type PyDict,
  type PyValue,
  pyBool,
  pyContains,
  pyHasAttr,
  pyIterate,
  pyJsonDumpsIndented,
  pyJsonLoads,
  pyNotEquals,
  pyStr,
  pyTypeError,
  pyTypeName,
} from "../../src/value/index.ts";
import { addToDb, queryDatabaseTool, updateRecordInDb } from "./db-query.ts";
import { type DiscoverableToolInfo, discoverableInfo, formatDiscoverableTool } from "./discoverable.ts";
import { agentDiscoverableToolId, userDiscoverableToolId, verificationId } from "./ids.ts";
import { agentSays } from "./messages.ts";
import { agentDiscoverableTools } from "./agent-discoverable.ts";
import { knowledgeUserTools } from "./user-tools.ts";

/** `TransferReasonLiteral`: the reasons `transfer_to_human_agents` accepts (data the tool compares). */
const TRANSFER_REASONS = [
  "fraud_or_security_concern",
  "account_closure_request",
  "deceased_account_holder",
  "legal_or_regulatory_matter",
  "account_ownership_dispute",
  "complex_billing_dispute",
  "abusive_customer_behavior",
  "third_party_inquiry",
  "technical_system_error",
  "unconfirmed_external_communication",
  "customer_demands_after_unavailable_offer_refusal",
  "kb_search_unsuccessful_customer_requests_transfer",
  "specialized_department_required",
  "accessibility_or_special_needs",
  "customer_frustrated_demands_human",
  "supervisor_request_service_complaint",
  "customer_requests_human_no_specific_reason",
  "request_completed_customer_wants_human_followup",
  "other",
];

/** The toolkit memory key of `_agent_discoverable_tools_state` (unlocked tools by name). */
const UNLOCKED = "unlocked";

function unlocked(self: Tau2ToolkitInstance): Map<string, DiscoverableToolInfo> {
  let state = self.memory.get(UNLOCKED) as Map<string, DiscoverableToolInfo> | undefined;
  if (!state) self.memory.set(UNLOCKED, (state = new Map()));
  return state;
}

/** A read by interpolated constraint: `query_database_tool(table, f'{{"<key>": "{value}"}}')`. */
function lookup(method: string, table: string) {
  return ({ db }: Tau2ToolkitInstance, value: PyValue) => queryDatabaseTool(db, table, agentSays(method, 1, pyStr(value)));
}

/** `call_discoverable_agent_tool`: unlocked check, `json.loads(parse_int=float)`, the call (TypeError → text), the log. */
function callDiscoverableAgentTool(self: Tau2ToolkitInstance, name: PyValue, argumentsText: PyValue): PyValue {
  if (!hasDiscoverableTool(self.definition, name)) return agentSays("call_discoverable_agent_tool", 0, pyStr(name));
  const toolName = name as string;
  if (!pyContains(unlocked(self), toolName)) return agentSays("call_discoverable_agent_tool", 1, toolName);
  let args: PyValue;
  try {
    args = pyJsonLoads(argumentsText, { parseIntAsFloat: true });
  } catch (error) {
    if (PyException.isInstance(error) && error.pythonType === "JSONDecodeError") return agentSays("call_discoverable_agent_tool", 2, error.message);
    throw error;
  }
  const method = discoverableToolsByName(self.definition).get(toolName) as Tau2Method;
  let result: PyValue;
  try {
    if (!(args instanceof Map)) throw pyTypeError(`KnowledgeTools.${method.name}() argument after ** must be a mapping, not ${pyTypeName(args)}`);
    result = callMethod(self, method, args);
  } catch (error) {
    if (PyException.isInstance(error) && error.pythonType === "TypeError") return agentSays("call_discoverable_agent_tool", 3, error.message);
    throw error;
  }
  if (method.tool?.mutatesState || self.context.readLogAllowlist?.has(method.name)) {
    addToDb(
      self.db,
      "agent_discoverable_tools",
      agentDiscoverableToolId(method.name),
      new Map([
        ["tool_name", method.name],
        ["status", "CALLED"],
      ]),
    );
  }
  return result;
}

/** `give_discoverable_user_tool`: checks the name and the argument names, records the gift in the DB. */
function giveDiscoverableUserTool(self: Tau2ToolkitInstance, name: PyValue, argumentsText: PyValue): PyValue {
  const say = (at: number, ...values: string[]) => agentSays("give_discoverable_user_tool", at, ...values);
  // `hasattr(KnowledgeUserTools, name)`, then `getattr(method, DISCOVERABLE_ATTR, False)`.
  const userToolsClass = toolkitAttributes(knowledgeUserTools);
  if (!pyHasAttr(userToolsClass, name)) return say(0, pyStr(name));
  const method = userToolsClass.get(name as string) as Tau2Method;
  if (!method.tool?.discoverable) return say(1, method.name);
  let args: PyValue;
  try {
    args = pyJsonLoads(argumentsText);
  } catch (error) {
    if (PyException.isInstance(error) && error.pythonType === "JSONDecodeError") return say(2, error.message);
    throw error;
  }
  const parameters = signatureParameters(method, { unbound: true });
  for (const argName of pyIterate(args)) if (!pyContains(parameters, argName) && pyNotEquals(argName, "self")) return say(4, pyStr(argName));
  const info = discoverableInfo("KnowledgeUserTools", method.name);
  addToDb(
    self.db,
    "user_discoverable_tools",
    userDiscoverableToolId(method.name),
    new Map([
      ["tool_name", method.name],
      ["status", "GIVEN"],
    ]),
  );
  const argsText = pyBool(args) ? pyJsonDumpsIndented(args, 2) : say(12);
  return say(13, method.name, info.description, argsText, method.name);
}

const baseTools: Tau2Method[] = [
  tau2Tool("transfer_to_human_agents", "generic", ["summary", ["reason", "other"]], (_self, { reason }) => {
    if (!pyContains(TRANSFER_REASONS, reason)) return agentSays("transfer_to_human_agents", 0, pyStr(reason), TRANSFER_REASONS.join(", "));
    return agentSays("transfer_to_human_agents", 1, pyStr(reason));
  }),
  tau2Tool("get_current_time", "read", [], () => agentSays("get_current_time", 0)),
  tau2Tool("get_user_information_by_id", "read", ["user_id"], (self, { user_id }) => lookup("get_user_information_by_id", "users")(self, user_id)),
  tau2Tool("get_user_information_by_name", "read", ["customer_name"], (self, { customer_name }) => lookup("get_user_information_by_name", "users")(self, customer_name)),
  tau2Tool("get_user_information_by_email", "read", ["email"], (self, { email }) => lookup("get_user_information_by_email", "users")(self, email)),
  tau2Tool("change_user_email", "write", ["user_id", "new_email"], ({ db }, { user_id, new_email }) => {
    if (updateRecordInDb(db, "users", user_id, [["email", new_email]]) === null) return agentSays("change_user_email", 2, pyStr(user_id));
    return agentSays("change_user_email", 3, pyStr(user_id), pyStr(new_email));
  }),
  tau2Tool("get_referrals_by_user", "read", ["user_id"], (self, { user_id }) => lookup("get_referrals_by_user", "referrals")(self, user_id)),
  tau2Tool("get_credit_card_transactions_by_user", "read", ["user_id"], (self, { user_id }) => lookup("get_credit_card_transactions_by_user", "credit_card_transaction_history")(self, user_id)),
  tau2Tool("get_credit_card_accounts_by_user", "read", ["user_id"], (self, { user_id }) => lookup("get_credit_card_accounts_by_user", "credit_card_accounts")(self, user_id)),
  tau2Tool("log_verification", "write", ["name", "user_id", "address", "email", "phone_number", "date_of_birth", "time_verified"], ({ db }, args) => {
    const id = verificationId(args.user_id, args.time_verified);
    const record: PyDict = new Map(["name", "user_id", "address", "email", "phone_number", "date_of_birth", "time_verified"].map((key) => [key, args[key]]));
    if (!addToDb(db, "verification_history", id, record)) return agentSays("log_verification", 8);
    return agentSays("log_verification", 9, pyStr(args.name), pyStr(args.user_id), pyStr(args.time_verified));
  }),
  tau2Tool("give_discoverable_user_tool", "generic", ["discoverable_tool_name", ["arguments", "{}"]], (self, args) => giveDiscoverableUserTool(self, args.discoverable_tool_name, args.arguments), {
    mutatesState: true,
  }),
  tau2Tool(
    "unlock_discoverable_agent_tool",
    "generic",
    ["agent_tool_name"],
    (self, { agent_tool_name }) => {
      if (!hasDiscoverableTool(self.definition, agent_tool_name)) return agentSays("unlock_discoverable_agent_tool", 0, pyStr(agent_tool_name));
      const method = discoverableToolsByName(self.definition).get(agent_tool_name as string) as Tau2Method;
      const info = discoverableInfo("KnowledgeTools", method.name);
      unlocked(self).set(method.name, info);
      return agentSays("unlock_discoverable_agent_tool", 3, method.name, info.description, formatDiscoverableTool(info), method.name);
    },
    { mutatesState: true },
  ),
  tau2Tool("call_discoverable_agent_tool", "write", ["agent_tool_name", ["arguments", "{}"]], (self, args) => callDiscoverableAgentTool(self, args.agent_tool_name, args.arguments)),
  tau2Tool("list_discoverable_agent_tools", "read", [], ({ db }) => {
    const result = queryDatabaseTool(db, "agent_discoverable_tools", agentSays("list_discoverable_agent_tools", 1));
    if (result.includes(agentSays("list_discoverable_agent_tools", 2))) return agentSays("list_discoverable_agent_tools", 3);
    return agentSays("list_discoverable_agent_tools", 4, result);
  }),
];

/** `KnowledgeTools`: the base tools, then the discoverable ones (callable by name, not listed for the model). */
export const knowledgeTools: Tau2ToolkitDefinition = {
  className: "KnowledgeTools",
  methods: [...baseTools, ...agentDiscoverableTools],
};

/**
 * A retrieval variant's composed toolkit (`retrieval_toolkits.py`): its mixin tools first (KB_search,
 * grep, …; `owner` is the mixin's class name), then every `KnowledgeTools` method.
 */
export function composedKnowledgeTools(className: string, retrievalTools: readonly Tau2Method[]): Tau2ToolkitDefinition {
  return { className, methods: [...retrievalTools, ...knowledgeTools.methods.map((method) => ({ owner: "KnowledgeTools", ...method }))] };
}

export { methodOf };
