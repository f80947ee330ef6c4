/**
 * Reading tool sentences from τ²'s sources: the literal walk of the Python source reader (on a
 * source written here), and `UpstreamMessages` over the shared data's pinned sources.
 */
import { cpSync, mkdtempSync, appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DataError } from "../../src/errors/error-tree.ts";
import { readDerived, writeDerived } from "../../src/data/derived-cache.ts";
import { stringLiteralsOf } from "../../src/data/python-source/strings.ts";
import { PythonSourceFile } from "../../src/data/python-source/syntax.ts";
import { UpstreamMessages } from "../../src/suites/tau2/engine/upstream-messages.ts";
import { retailMessages } from "../../domains/tau2-retail/messages.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const SOURCE = `
class Shop:
    def refund(self, order_id: str, amount: float) -> str:
        """Refunds an order.

        Args:
            order_id: the order
        """
        if amount <= 0:
            raise ValueError("the amount " "is too small")
        for item in ("a", 'b'):
            if item == order_id:
                raise ValueError(
                    f"Order {order_id} "
                    f"cannot take {amount:.2f}"
                )
        return {"status": "refunded"}

def helper():
    return "plain"
`;

function texts(name: string): string[] {
  const file = new PythonSourceFile(SOURCE, "shop.py");
  const definition = name.includes(".")
    ? file.findClass(name.split(".")[0])!.methods.find((method) => method.name === name.split(".")[1])!
    : file.functions().find((candidate) => candidate.name === name)!;
  return stringLiteralsOf(file, definition).map((template) => template.map((part) => ("text" in part ? part.text : `{${part.expression}${part.formatSpec ? `:${part.formatSpec}` : ""}}`)).join(""));
}

describe("stringLiteralsOf", () => {
  it("lists a body's literals in source order: adjacent ones joined, f-string fields kept, the docstring left out", () => {
    expect(texts("Shop.refund")).toEqual(["the amount is too small", "a", "b", "Order {order_id} cannot take {amount:.2f}", "status", "refunded"]);
    expect(texts("helper")).toEqual(["plain"]);
  });
});

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

describe.skipIf(!data)("UpstreamMessages over the pinned τ² sources", () => {
  it("gives the retail tools' sentences from tools.py, plain and filled", () => {
    retailMessages.load(data as string);
    expect(retailMessages.text("orderNotFound")).toMatch(/^Order .+ found$/);
    const filled = retailMessages.format("newItemUnavailable", { new_item_id: "123" });
    expect(filled).toContain(" 123 ");
    expect(() => retailMessages.format("newItemUnavailable", {})).toThrow("no value for the field {new_item_id}");
    expect(() => retailMessages.text("newItemUnavailable")).toThrow("has fields");
  });

  it("refuses a missing source, a source that differs from the pinned commit, and a position the method does not have", () => {
    const root = mkdtempSync(join(tmpdir(), "tau2-sources-"));
    cpSync(join(data as string, "upstream-src"), join(root, "upstream-src"), { recursive: true });
    const messages = new UpstreamMessages("domains/retail/tools.py", { beyond: { in: "RetailTools._get_order", at: 5 } });
    expect(() => messages.load(data as string)).toThrow(/RetailTools._get_order has 1 string literals, none at 5 \(message "beyond"\)/);
    appendFileSync(join(root, "upstream-src", "src", "tau2", "domains", "retail", "tools.py"), "\n# edited\n");
    const edited = new UpstreamMessages("domains/retail/tools.py", { orderNotFound: { in: "RetailTools._get_order", at: 0 } });
    expect(() => edited.load(root)).toThrow(DataError);
    expect(() => edited.load(root)).toThrow("differs from the pinned τ²-bench sources");
    expect(() => edited.text("orderNotFound")).toThrow("not loaded");
    const empty = mkdtempSync(join(tmpdir(), "tau2-no-sources-"));
    expect(() => edited.load(empty)).toThrow(/domains\/retail\/tools\.py is missing from the data directory; run `taubridge data pull tau2-bench`/);
  });

  it("keeps what it read in the derived cache: a later load reads the entry, a damaged entry is read again from the source", () => {
    const previous = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    const folder = mkdtempSync(join(tmpdir(), "tau2-derived-"));
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = folder;
    try {
      const fresh = () => new UpstreamMessages(retailMessages.sourceFile, retailMessages.sources);
      const cold = fresh();
      cold.load(data as string); // a miss: parsed from tools.py, then stored
      const kindFolder = join(folder, "tau2-upstream-messages-v1");
      const [entry] = readdirSync(kindFolder);
      expect(readdirSync(kindFolder)).toHaveLength(1);
      const key = entry.replace(/\.json$/, "");
      const stored = readDerived("tau2-upstream-messages-v1", key) as Record<string, Array<{ text?: string }>>;
      expect(stored.orderNotFound.map((part) => part.text ?? "").join("")).toBe(cold.text("orderNotFound"));

      // A hit: what the entry says is what the tools get (proved with an entry rewritten on purpose).
      writeDerived("tau2-upstream-messages-v1", key, { ...stored, orderNotFound: [{ text: "from the cache" }] });
      const warm = fresh();
      warm.load(data as string);
      expect(warm.text("orderNotFound")).toBe("from the cache");
      expect(warm.format("newItemUnavailable", { new_item_id: "123" })).toBe(cold.format("newItemUnavailable", { new_item_id: "123" }));

      // A damaged entry is ignored, read again from the source and rewritten.
      writeFileSync(join(kindFolder, entry), readFileSync(join(kindFolder, entry), "utf8").replace("from the cache", "from the cachE"));
      const repaired = fresh();
      repaired.load(data as string);
      expect(repaired.text("orderNotFound")).toBe(cold.text("orderNotFound"));
      expect(readDerived("tau2-upstream-messages-v1", key)).toEqual(stored);
    } finally {
      if (previous === undefined) delete process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
      else process.env.TAUBRIDGE_DERIVED_CACHE_DIR = previous;
    }
  });
});
