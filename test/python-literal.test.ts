import { describe, expect, it } from "vitest";
import { TASK_CALLS, pythonJsonIndented } from "../src/data/convert.ts";
import { PythonLiteralError, parsePythonLiteral } from "../src/data/python-literal.ts";
import { parsePythonModule } from "../src/data/python-module.ts";
import { PyFloat, pyJsonDumps, type PyValue } from "../src/value/index.ts";

/** Evaluates and renders as Python json.dumps text, which shows int/float and key order. */
function dumps(text: string): string {
  return pyJsonDumps(parsePythonLiteral(text));
}

function errorOf(action: () => unknown): PythonLiteralError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(PythonLiteralError);
    return error as PythonLiteralError;
  }
  throw new Error("expected a PythonLiteralError");
}

describe("python literals: scalars", () => {
  it("keeps ints and floats apart", () => {
    expect(parsePythonLiteral("100")).toBe(100);
    const float = parsePythonLiteral("100.0");
    expect(float).toBeInstanceOf(PyFloat);
    expect((float as PyFloat).value).toBe(100);
    expect(dumps("[1, 1.0, 1e3, .5, 2., 1_000, -3, -2.5, +4, 0x1F, 0o17, 0b101, 0]")).toBe("[1, 1.0, 1000.0, 0.5, 2.0, 1000, -3, -2.5, 4, 31, 15, 5, 0]");
  });

  it("keeps big ints exact", () => {
    expect(parsePythonLiteral("123456789012345678901234567890")).toBe(123456789012345678901234567890n);
    expect(parsePythonLiteral("-9007199254740993")).toBe(-9007199254740993n);
  });

  it("reads True, False and None", () => {
    expect(parsePythonLiteral("(True, False, None)")).toEqual([true, false, null]);
  });

  it("reads single, double and triple quoted strings with escapes", () => {
    expect(parsePythonLiteral(`'it\\'s'`)).toBe("it's");
    expect(parsePythonLiteral(`"say \\"hi\\""`)).toBe('say "hi"');
    expect(parsePythonLiteral(`'a\\nb\\tc\\\\d'`)).toBe("a\nb\tc\\d");
    expect(parsePythonLiteral(`"\\x41\\u00e9\\U0001F600\\101\\0"`)).toBe("Aé😀A\0");
    expect(parsePythonLiteral(`'keep \\d unknown'`)).toBe("keep \\d unknown");
    expect(parsePythonLiteral(`"""line one\nline 'two' "quoted"\n"""`)).toBe(`line one\nline 'two' "quoted"\n`);
    expect(parsePythonLiteral(`'''a\\\nb'''`)).toBe("ab");
    expect(parsePythonLiteral(`"unicode: café ✓"`)).toBe("unicode: café ✓");
  });

  it("reads raw strings and prefixes", () => {
    expect(parsePythonLiteral(`r"C:\\new\\table"`)).toBe("C:\\new\\table");
    expect(parsePythonLiteral(`R'a\\'b'`)).toBe("a\\'b");
    expect(parsePythonLiteral(`u"plain"`)).toBe("plain");
  });

  it("concatenates adjacent string literals, across lines inside brackets", () => {
    expect(parsePythonLiteral(`"ab" 'cd' """ef"""`)).toBe("abcdef");
    expect(parsePythonLiteral(`(\n  "first, "  # a comment\n  r"second\\n"\n)`)).toBe("first, second\\n");
  });

  it("normalises CRLF line endings", () => {
    expect(parsePythonLiteral(`"""a\r\nb"""`)).toBe("a\nb");
  });
});

describe("python literals: containers", () => {
  it("reads dicts in insertion order, nested, with trailing commas and comments", () => {
    const value = parsePythonLiteral(`{
      # leading comment
      "z": 1,  # trailing comment
      "a": [1, 2,],
      'm': {"x": 1.50, "y": None,},
    }`);
    expect(value).toBeInstanceOf(Map);
    expect([...(value as Map<string, PyValue>).keys()]).toEqual(["z", "a", "m"]);
    expect(pyJsonDumps(value)).toBe('{"z": 1, "a": [1, 2], "m": {"x": 1.5, "y": null}}');
  });

  it("keeps integer-like keys in source order (unlike JS objects)", () => {
    expect(dumps(`{"2": "b", "1": "a", "10": "c"}`)).toBe('{"2": "b", "1": "a", "10": "c"}');
  });

  it("lets a repeated key keep its first position and last value", () => {
    expect(dumps(`{"a": 1, "b": 2, "a": 3}`)).toBe('{"a": 3, "b": 2}');
  });

  it("reads tuples as arrays and parentheses as grouping", () => {
    expect(parsePythonLiteral("()")).toEqual([]);
    expect(parsePythonLiteral("(1,)")).toEqual([1]);
    expect(parsePythonLiteral("(1)")).toBe(1);
    expect(parsePythonLiteral("('a', ('b', 'c'),)")).toEqual(["a", ["b", "c"]]);
    expect(parsePythonLiteral("{}")).toEqual(new Map());
    expect(parsePythonLiteral("[]")).toEqual([]);
  });
});

describe("python literals: calls", () => {
  const sampleTask = `Task(
    annotator="7",
    user_id="ada_1",
    instruction="You are Ada. " "You want a refund.",
    actions=[
        Action(name="lookup", kwargs={"id": "#A1"}),
        Action(
            name="refund",
            kwargs={"id": "#A1", "amount": 100.0, "count": 2, "items": ["x", "y"],},
        ),
    ],
    outputs=["12.50"],
)`;

  it("turns Task/Action calls into task objects in the JSON key order", () => {
    const task = parsePythonLiteral(sampleTask, { calls: TASK_CALLS });
    expect(pyJsonDumps(task)).toBe(
      '{"user_id": "ada_1", "actions": [{"name": "lookup", "kwargs": {"id": "#A1"}}, ' +
        '{"name": "refund", "kwargs": {"id": "#A1", "amount": 100.0, "count": 2, "items": ["x", "y"]}}], ' +
        '"instruction": "You are Ada. You want a refund.", "outputs": ["12.50"], "annotator": "7"}',
    );
  });

  it("writes Python json.dumps(indent=2) text", () => {
    const task = parsePythonLiteral(sampleTask, { calls: TASK_CALLS });
    const text = pythonJsonIndented([task, new Map(), []]);
    expect(text).toContain('"amount": 100.0,\n');
    expect(text).toContain('"kwargs": {\n          "id": "#A1"\n        }');
    expect(text.endsWith("  },\n  {},\n  []\n]")).toBe(true);
    expect(pythonJsonIndented(parsePythonLiteral('{"k": "é"}'))).toBe('{\n  "k": "\\u00e9"\n}');
  });

  it("rejects calls that are not mapped, and bad Task arguments", () => {
    expect(errorOf(() => parsePythonLiteral("print(1)", { file: "m.py" })).message).toBe("m.py:1:1: call of 'print' is not allowed here");
    const positional = errorOf(() => parsePythonLiteral(`\n  Action("x", {})`, { calls: TASK_CALLS, file: "t.py" }));
    expect([positional.line, positional.column]).toEqual([2, 3]);
    expect(positional.message).toContain("positional arguments are not supported");
    expect(errorOf(() => parsePythonLiteral(`Action(name="x")`, { calls: TASK_CALLS })).message).toContain("missing keyword 'kwargs'");
    expect(errorOf(() => parsePythonLiteral(`Action(name="x", kwargs={}, name="y")`, { calls: TASK_CALLS })).message).toContain("keyword argument repeated: name");
    expect(errorOf(() => parsePythonLiteral(`Task(user_id="u", instruction="i", actions=[], outputs=[1])`, { calls: TASK_CALLS })).message).toContain("outputs must be a list of strings");
  });

  it("resolves bare names only through resolveName", () => {
    expect(parsePythonLiteral("[Alpha, Beta]", { resolveName: (name) => name.toLowerCase() })).toEqual(["alpha", "beta"]);
    expect(errorOf(() => parsePythonLiteral("[Alpha]")).message).toBe("<literal>:1:2: name 'Alpha' is not a literal");
  });
});

describe("python literals: errors name file, line and column", () => {
  it("reports an unterminated string where it starts", () => {
    const error = errorOf(() => parsePythonLiteral(`[\n  "ok",\n    'open\n]`, { file: "tasks.py" }));
    expect(error.message).toBe("tasks.py:3:5: unterminated string literal");
    expect([error.file, error.line, error.column]).toEqual(["tasks.py", 3, 5]);
  });

  it("reports unclosed and mismatched brackets", () => {
    expect(errorOf(() => parsePythonLiteral(`{"a": [1, 2}`, { file: "x.py" })).message).toBe("x.py:1:12: closing parenthesis '}' does not match opening parenthesis '['");
    expect(errorOf(() => parsePythonLiteral(`\n\n  [1, 2`, { file: "x.py" })).message).toBe("x.py:3:3: '[' was never closed");
    expect(errorOf(() => parsePythonLiteral(`"""never`, { file: "x.py" })).message).toBe("x.py:1:1: unterminated triple-quoted string literal");
  });

  it("rejects expressions that are not literals", () => {
    expect(errorOf(() => parsePythonLiteral(`[1, 2 + 3]`)).message).toBe("<literal>:1:7: unexpected '+': only literals are allowed here");
    expect(errorOf(() => parsePythonLiteral(`[x for x in y]`, { resolveName: () => 1 })).message).toContain("1:4: unexpected 'for'");
    expect(errorOf(() => parsePythonLiteral(`{"a", "b"}`)).message).toContain("1:1: set literals are not supported");
    expect(errorOf(() => parsePythonLiteral(`{1: "a"}`)).message).toContain("1:2: dict keys must be strings");
    expect(errorOf(() => parsePythonLiteral(`f"{x}"`)).message).toContain("f-strings are not literals");
    expect(errorOf(() => parsePythonLiteral(`b"raw"`)).message).toContain("bytes literals are not supported");
    expect(errorOf(() => parsePythonLiteral(`-"a"`)).message).toContain("unary '-' is only allowed on numbers");
    expect(errorOf(() => parsePythonLiteral(`007`)).message).toContain("leading zeros");
    expect(errorOf(() => parsePythonLiteral(`1j`)).message).toContain("complex numbers");
    expect(errorOf(() => parsePythonLiteral(`"\\x4"`)).message).toContain("1:2: truncated \\xXX escape");
    expect(errorOf(() => parsePythonLiteral(`[1] [2]`)).message).toContain("1:5: unexpected '['");
    expect(errorOf(() => parsePythonLiteral(`1 2`)).message).toContain("1:3: unexpected '2' after the literal");
  });
});

describe("python modules", () => {
  const tasksModule = `# A hand-written sample module.
from shop.types import Task, Action
from typing import List

NOTE = "first"  # not the list we want

TASKS_SAMPLE: List[Task] = [
    Task(
        annotator="synthetic",
        user_id="u1",
        instruction="""Buy a
lamp.""",
        actions=[Action(name="buy", kwargs={"item": "lamp", "qty": 1, "price": 25.0})],
        outputs=[],
    ),
    Task(user_id="u2", instruction='', actions=[], outputs=["ok"],),
]

def helper(x):
    return x + 1  # code is tokenised, never evaluated

NOTE = "second"
`;

  it("finds plain and annotated module-level assignments", () => {
    const module = parsePythonModule(tasksModule, "shop/tasks_sample.py");
    expect(module.assignedNames()).toEqual(["NOTE", "TASKS_SAMPLE", "NOTE"]);
    expect(module.evaluateAssignment("NOTE")).toBe("second");
    const tasks = module.evaluateAssignment("TASKS_SAMPLE", { calls: TASK_CALLS });
    expect(pyJsonDumps(tasks)).toBe(
      '[{"user_id": "u1", "actions": [{"name": "buy", "kwargs": {"item": "lamp", "qty": 1, "price": 25.0}}], ' +
        '"instruction": "Buy a\\nlamp.", "outputs": [], "annotator": "synthetic"}, ' +
        '{"user_id": "u2", "actions": [], "instruction": "", "outputs": ["ok"]}]',
    );
    expect(module.imports()).toEqual([
      { local: "Task", imported: "Task", module: "shop.types", level: 0 },
      { local: "Action", imported: "Action", module: "shop.types", level: 0 },
      { local: "List", imported: "List", module: "typing", level: 0 },
    ]);
  });

  it("names the file when an assignment is missing", () => {
    const module = parsePythonModule(tasksModule, "shop/tasks_sample.py");
    expect(() => module.evaluateAssignment("TASKS")).toThrow("shop/tasks_sample.py:1:1: no module-level assignment to 'TASKS' (assigned names: NOTE, TASKS_SAMPLE, NOTE)");
  });

  it("reports a position inside the module for a bad element", () => {
    const bad = `X = [\n    1,\n    foo(2),\n]\n`;
    const error = errorOf(() => parsePythonModule(bad, "bad.py").evaluateAssignment("X"));
    expect(error.message).toBe("bad.py:3:5: call of 'foo' is not allowed here");
  });

  const toolModule = `import json
from typing import Any, Dict

from shop.tool import Tool


class LookUp(Tool):
    @staticmethod
    def invoke(data: Dict[str, Any], item: str) -> str:
        text = f"{item} is not a dict: {{}}"  # def get_info(): in a comment
        if item not in data["items"]:
            return "Error: no such item"
        return json.dumps(data["items"][item])

    @staticmethod
    def get_info() -> Dict[str, Any]:
        """The schema the model sees."""
        return {
            "type": "function",
            "function": {
                "name": "look_up",
                "description": 'Look an item up, e.g. "lamp".',
                "parameters": {
                    "type": "object",
                    "properties": {"item": {"type": "string"}},
                    "required": ["item"],
                },
            },
        }


class Other:
    def get_info(self): return {"name": "other", "weight": 1.0}
`;

  it("evaluates the dict returned by get_info(), per class", () => {
    const module = parsePythonModule(toolModule, "shop/tools/look_up.py");
    expect(module.classNames()).toEqual(["LookUp", "Other"]);
    const info = module.evaluateFunctionReturn("get_info", { className: "LookUp" });
    expect(pyJsonDumps(info)).toBe(
      '{"type": "function", "function": {"name": "look_up", "description": "Look an item up, e.g. \\"lamp\\".", ' +
        '"parameters": {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}}}',
    );
    expect(pyJsonDumps(module.evaluateFunctionReturn("get_info", { className: "Other" }))).toBe('{"name": "other", "weight": 1.0}');
    expect(() => module.evaluateFunctionReturn("get_info")).toThrow("shop/tools/look_up.py:33:5: more than one 'def get_info'");
    expect(() => module.evaluateFunctionReturn("get_info", { className: "Missing" })).toThrow("no 'def get_info' in class Missing");
  });

  it("requires get_info to be a single return of a literal", () => {
    const module = parsePythonModule(`class T:\n    def get_info():\n        info = {}\n        return info\n`, "t.py");
    expect(() => module.evaluateFunctionReturn("get_info")).toThrow("t.py:3:9: the body of get_info() must be a single 'return <literal>'");
  });

  it("reads relative imports, aliases and parenthesised import lists", () => {
    const index = `from .a_tool import ATool\nfrom .b_tool import (\n    BTool as B,\n)\nfrom .. import up\n\nALL = [ATool, B]\n`;
    const module = parsePythonModule(index, "pkg/tools/__init__.py");
    expect(module.imports()).toEqual([
      { local: "ATool", imported: "ATool", module: "a_tool", level: 1 },
      { local: "B", imported: "BTool", module: "b_tool", level: 1 },
      { local: "up", imported: "up", module: "", level: 2 },
    ]);
    expect(module.evaluateAssignment("ALL", { resolveName: (name) => `<${name}>` })).toEqual(["<ATool>", "<B>"]);
  });

  it("reports tokenizer errors anywhere in the module", () => {
    expect(() => parsePythonModule(`def f():\n    return 'x\n`, "e.py")).toThrow("e.py:2:12: unterminated string literal");
    expect(() => parsePythonModule(`x = 1 $ 2\n`, "e.py")).toThrow('e.py:1:7: invalid character "$" in source');
  });
});
