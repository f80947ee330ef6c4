/**
 * The 16 τ-bench (v1) retail tools in `tools_info.json` (registration) order.
 *
 * The order matters: the environment exposes the tool schemas in this order, and results and
 * reports list tools the same way. `calculate`, `think` and `transfer_to_human_agents` are the
 * implementations shared with the airline domain; the other 13 live in `domain-tools.ts`.
 */
import type { ToolImplementation } from "../../src/engine/tool.ts";
import { calculateTool, thinkTool, transferToHumanAgentsTool } from "../common/index.ts";
import { retailDomainTools as domain } from "./domain-tools.ts";

export { retailDomainTools } from "./domain-tools.ts";

/** The retail tools, in registration order, each with its Python class name and signature. */
export const retailTools: readonly ToolImplementation[] = Object.freeze([
  calculateTool,
  domain.cancel_pending_order,
  domain.exchange_delivered_order_items,
  domain.find_user_id_by_email,
  domain.find_user_id_by_name_zip,
  domain.get_order_details,
  domain.get_product_details,
  domain.get_user_details,
  domain.list_all_product_types,
  domain.modify_pending_order_address,
  domain.modify_pending_order_items,
  domain.modify_pending_order_payment,
  domain.modify_user_address,
  domain.return_delivered_order_items,
  thinkTool,
  transferToHumanAgentsTool,
]);
