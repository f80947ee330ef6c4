/**
 * Attribute access as the original's `obj.field` / `obj.field = value` behave on whatever value a
 * field holds. Assignments are not validated, so a field may hold a str where a model was declared
 * (`set_apn_settings("internet")` stores the str): reading `.apn_name` from it then raises
 * `'str' object has no attribute 'apn_name'`, as in Python.
 */
import { PyException, PyModel, type PyValue, pyAttributeError, pyGetAttr } from "../../src/value/index.ts";

/** `value.name`. */
export function getAttr(value: PyValue | undefined, name: string): PyValue {
  if (value instanceof PyModel) return pyGetAttr(value, name);
  throw pyAttributeError(value, name);
}

/** `value.name = item` (pydantic: no validation on assignment; an unknown field is a ValueError). */
export function setAttr(value: PyValue | undefined, name: string, item: PyValue): void {
  if (!(value instanceof PyModel)) throw pyAttributeError(value, name);
  if (!value.schema.fields.some((field) => field.name === name)) throw new PyException(`"${value.schema.name}" object has no field "${name}"`, "ValueError");
  value.set(name, item);
}

/** `value.name` followed by more names (`device.active_apn_settings.apn_name`). */
export function getPath(value: PyValue | undefined, ...names: string[]): PyValue {
  let current = value as PyValue;
  for (const name of names) current = getAttr(current, name);
  return current;
}
