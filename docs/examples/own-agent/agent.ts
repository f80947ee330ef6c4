// agent.ts
import type { FunctionAgentReply, FunctionAgentRequest } from "taubridge";

export async function respond({ messages }: FunctionAgentRequest): Promise<FunctionAgentReply> {
  const results = messages.filter((message) => message.role === "tool").map((message) => String(message.content));
  if (results.length === 0) {
    const email = /[\w.+-]+@[\w-]+(\.[\w-]+)+/.exec(String(messages.find((message) => message.role === "user")?.content))?.[0];
    return email ? { toolCalls: [{ name: "find_member_id_by_email", arguments: { email } }] } : { content: "What is the e-mail on your library card?" };
  }
  if (results.length === 1) return { toolCalls: [{ name: "get_member_details", arguments: { member_id: results[0] } }] };
  const loans: string[] = JSON.parse(results[1]).loans;
  if (results.length === 2) return { toolCalls: loans.map((loan_id) => ({ name: "renew_loan", arguments: { loan_id } })) };
  return { content: `Here is what happened: ${results.slice(2).join(" / ")}` };
}
