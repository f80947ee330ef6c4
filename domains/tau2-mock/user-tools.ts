/** The mock domain's user toolkit (τ² `MockUserTools`): the user's notification inbox. */
import { type Tau2ToolkitDefinition, tau2Function, tau2Tool } from "../../src/engine/tau2/toolkit.ts";
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
      if (!pyContains(notifications(db), notification_id)) throw pyValueError(`Notification ${pyStr(notification_id)} not found`);
      (pyGetItem(notifications(db), notification_id) as PyModel).set("status", "read");
      return `Notification ${pyStr(notification_id)} dismissed`;
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
      if (!pyContains(notifications(db), notification_id)) throw pyValueError(`Notification ${pyStr(notification_id)} not found`);
      return pyEquals(pyGetAttr(pyGetItem(notifications(db), notification_id) as PyModel, "status"), expected_status);
    }),
  ],
};
