/** The mock domain's agent toolkit (τ² `MockTools`): tasks of users, in the original's definition order. */
import { mockMessages } from "./messages.ts";
import { type Tau2ToolkitDefinition, tau2Function, tau2Tool } from "../../src/suites/tau2/engine/toolkit.ts";
import { type PyDict, type PyModel, pyAppend, pyContains, pyGetAttr, pyGetItem, pyLen, pyModelValidate, pyEquals, pyStr, pyValueError } from "../../src/value/index.ts";
import { taskModel } from "./data-model.ts";

function tasks(db: PyModel): PyDict {
  return pyGetAttr(db, "tasks") as PyDict;
}

function users(db: PyModel): PyDict {
  return pyGetAttr(db, "users") as PyDict;
}

export const mockTools: Tau2ToolkitDefinition = {
  className: "MockTools",
  methods: [
    tau2Tool("create_task", "write", ["user_id", "title", ["description", null]], ({ db }, { user_id, title, description }) => {
      if (!pyContains(users(db), user_id)) throw pyValueError(mockMessages.format("userNotFound", { user_id: pyStr(user_id) }));
      const taskId = `task_${pyLen(tasks(db)) + 1}`;
      const task = pyModelValidate(
        taskModel,
        new Map([
          ["task_id", taskId],
          ["title", title],
          ["description", description],
          ["status", "pending"],
        ]),
      );
      tasks(db).set(taskId, task);
      pyAppend(pyGetAttr(pyGetItem(users(db), user_id) as PyModel, "tasks"), taskId);
      return task;
    }),
    tau2Tool("get_users", "read", [], ({ db }) => [...users(db).values()]),
    tau2Tool("update_task_status", "write", ["task_id", "status"], ({ db }, { task_id, status }) => {
      if (!pyContains(tasks(db), task_id)) throw pyValueError(mockMessages.format("taskNotFound", { task_id: pyStr(task_id) }));
      const task = pyGetItem(tasks(db), task_id) as PyModel;
      task.set("status", status); // assignment is not validated
      return task;
    }),
    tau2Function("assert_number_of_tasks", ["user_id", "expected_number"], ({ db }, { user_id, expected_number }) => {
      if (!pyContains(users(db), user_id)) throw pyValueError(mockMessages.format("userNotFound", { user_id: pyStr(user_id) }));
      return pyEquals(pyLen(pyGetAttr(pyGetItem(users(db), user_id) as PyModel, "tasks")), expected_number);
    }),
    tau2Function("assert_task_status", ["task_id", "expected_status"], ({ db }, { task_id, expected_status }) => {
      if (!pyContains(tasks(db), task_id)) throw pyValueError(mockMessages.format("taskNotFound", { task_id: pyStr(task_id) }));
      return pyEquals(pyGetAttr(pyGetItem(tasks(db), task_id) as PyModel, "status"), expected_status);
    }),
    tau2Tool("transfer_to_human_agents", "generic", ["summary"], () => mockMessages.text("transferred")),
  ],
};
