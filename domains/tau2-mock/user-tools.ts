/** The mock domain's user toolkit (τ² `MockUserTools`): the user's notification inbox. */
import { mockUserMessages } from "./messages.ts";
import { type Tau2ToolkitDefinition, tau2Function, tau2Tool } from "../../src/suites/tau2/engine/toolkit.ts";
import { type PyDict, type PyModel, pyContains, pyEquals, pyGetAttr, pyGetItem, pyModelValidate, pyStr, pyValueError } from "../../src/value/index.ts";
import { notificationModel } from "./data-model.ts";

function notifications(db: PyModel): PyDict {
  return pyGetAttr(db, "notifications") as PyDict;
}

export const mockUserTools: Tau2ToolkitDefinition = {
  className: "MockUserTools",
  methods: [
    tau2Tool("check_notifications", "read", [], ({ db }) => [...notifications(db).values()]),
    tau2Tool("dismiss_notification", "write", ["notification_id"], ({ db }, { notification_id }) => {
      if (!pyContains(notifications(db), notification_id)) throw pyValueError(mockUserMessages.format("notificationNotFound", { notification_id: pyStr(notification_id) }));
      (pyGetItem(notifications(db), notification_id) as PyModel).set("status", "read");
      return mockUserMessages.format("notificationDismissed", { notification_id: pyStr(notification_id) });
    }),
    tau2Function("add_notification", ["notification_id", "message", ["task_id", null]], ({ db }, { notification_id, message, task_id }) => {
      const notification = pyModelValidate(
        notificationModel,
        new Map([
          ["notification_id", notification_id],
          ["message", message],
          ["task_id", task_id],
        ]),
      );
      notifications(db).set(notification_id as string, notification);
      return notification;
    }),
    tau2Function("assert_notification_status", ["notification_id", "expected_status"], ({ db }, { notification_id, expected_status }) => {
      if (!pyContains(notifications(db), notification_id)) throw pyValueError(mockUserMessages.format("notificationNotFound", { notification_id: pyStr(notification_id) }));
      return pyEquals(pyGetAttr(pyGetItem(notifications(db), notification_id) as PyModel, "status"), expected_status);
    }),
  ],
};
