/**
 * The banking tools' sentences, read at run time from τ³'s `domains/banking_knowledge/tools.py` and
 * `db_query.py` in the data directory (see src/suites/tau2/engine/upstream-messages.ts). `tools.py`
 * holds several hundred of them, so the tools address each by where it stands — `say("Class.method",
 * position, ...fields)` — rather than through a key table; `npx tsx
 * scripts/dev/list-upstream-literals.ts <file.py>` lists the positions. The discoverable tools'
 * docstrings (what unlock and give show) come from the same file.
 */
import { UpstreamLiterals } from "../../src/suites/tau2/engine/upstream-messages.ts";

/** `tools.py`: `KnowledgeTools`, `KnowledgeUserTools` and the module's helper functions. */
export const bankText = new UpstreamLiterals("domains/banking_knowledge/tools.py");

/** `db_query.py`: `query_database_tool`'s texts. */
export const queryText = new UpstreamLiterals("domains/banking_knowledge/db_query.py");

/** A method of the agent toolkit, as `say` addresses it. */
export const agentSays = (method: string, at: number, ...values: string[]): string => bankText.say(`KnowledgeTools.${method}`, at, ...values);

/** A method of the user toolkit, as `say` addresses it. */
export const userSays = (method: string, at: number, ...values: string[]): string => bankText.say(`KnowledgeUserTools.${method}`, at, ...values);
