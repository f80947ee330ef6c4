/**
 * The mock tools' sentences, read from τ²'s `domains/mock/tools.py` and `user_tools.py` in the data
 * directory when the domain loads (see src/suites/tau2/engine/upstream-messages.ts).
 */
import { UpstreamMessages } from "../../src/suites/tau2/engine/upstream-messages.ts";

export const mockMessages = new UpstreamMessages("domains/mock/tools.py", {
  userNotFound: { in: "MockTools.create_task", at: 0 },
  taskNotFound: { in: "MockTools.update_task_status", at: 0 },
  transferred: { in: "MockTools.transfer_to_human_agents", at: 0 },
});

export const mockUserMessages = new UpstreamMessages("domains/mock/user_tools.py", {
  notificationNotFound: { in: "MockUserTools.dismiss_notification", at: 0 },
  notificationDismissed: { in: "MockUserTools.dismiss_notification", at: 2 },
});
