/** The mock domain's models (τ² `domains/mock/data_model.py`, `user_data_model.py`). */
import { type PyModelSchema, pyModelSchema, pyT } from "../../src/value/index.ts";

export const TASK_STATUS = pyT.literal("pending", "completed");

export const taskModel: PyModelSchema = pyModelSchema("Task", [
  ["task_id", pyT.str],
  ["title", pyT.str],
  ["description", pyT.optional(pyT.str), () => null],
  ["status", TASK_STATUS],
]);

export const userModel: PyModelSchema = pyModelSchema("User", [
  ["user_id", pyT.str],
  ["name", pyT.str],
  ["tasks", pyT.list(pyT.str)],
]);

export const mockDbModel: PyModelSchema = pyModelSchema(
  "MockDB",
  [
    ["tasks", pyT.dict(pyT.model(() => taskModel))],
    ["users", pyT.dict(pyT.model(() => userModel))],
  ],
  "forbid",
);

export const notificationModel: PyModelSchema = pyModelSchema(
  "Notification",
  [
    ["notification_id", pyT.str],
    ["message", pyT.str],
    ["status", pyT.literal("unread", "read"), () => "unread"],
    ["task_id", pyT.optional(pyT.str), () => null],
  ],
  "forbid",
);

export const mockUserDbModel: PyModelSchema = pyModelSchema("MockUserDB", [["notifications", pyT.dict(pyT.model(() => notificationModel)), () => new Map()]], "forbid");
