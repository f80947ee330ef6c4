/** `KnowledgeTools`' discoverable tools, in the original's definition order (the parts live in topic files). */
import type { Tau2Method } from "../../src/suites/tau2/engine/toolkit.ts";
import { cardDiscoverableTools } from "./agent-discoverable-cards.ts";
import { creditDiscoverableTools } from "./agent-discoverable-credit.ts";
import { accountDiscoverableTools } from "./agent-discoverable-accounts.ts";
import { debitCardDiscoverableTools } from "./agent-discoverable-debit.ts";

export const agentDiscoverableTools: Tau2Method[] = [...cardDiscoverableTools, ...creditDiscoverableTools, ...accountDiscoverableTools, ...debitCardDiscoverableTools];
