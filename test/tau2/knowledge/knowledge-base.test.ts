/**
 * Loading the knowledge base: every `*.json` as `Path.glob` finds it, in sorted name order (the
 * order the reference fixtures were made with), validated, one-line DataErrors naming file and field.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DataError } from "../../../src/errors/error-tree.ts";
import { KnowledgeBase } from "../../../src/suites/tau2/knowledge/index.ts";
import { describeWithTau2Data } from "../../support/shared-data.ts";
import { documentsDirectory, readRetrievalFixture } from "./retrieval-fixture.ts";

/** A fresh directory holding the given files (name → text). */
function directoryWith(files: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-kb-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, name), text);
  return directory;
}

const doc = (id: string, title = `Title ${id}`, content = `content of ${id}`) => JSON.stringify({ id, title, content });

/** The message of the DataError `load` raises. */
function loadError(directory: string): string {
  try {
    KnowledgeBase.load(directory);
  } catch (error) {
    expect(DataError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error("loaded");
}

describe("KnowledgeBase.load", () => {
  it("reads every *.json (hidden ones too) in code point order of the names, ignoring other files", () => {
    const directory = directoryWith({
      "b.json": doc("b"),
      "a.json": doc("a"),
      ".hidden.json": doc("hidden"),
      "\u{1F600}.json": doc("astral"),
      "\uFFFD.json": doc("bmp-high"),
      "notes.txt": "not a document",
      "upper.JSON": doc("upper"),
    });
    // Code point order puts U+FFFD before U+1F600; JavaScript's default sort (UTF-16 units) would not.
    expect(KnowledgeBase.load(directory).documents.map((document) => document.id)).toEqual(["hidden", "a", "b", "bmp-high", "astral"]);
  });

  it("keeps a repeated id in its first place with the last document, ignores extra keys", () => {
    const directory = directoryWith({
      "1.json": doc("same", "first"),
      "2.json": doc("other"),
      "3.json": JSON.stringify({ id: "same", title: "last", content: "x", extra: 1 }),
    });
    const knowledgeBase = KnowledgeBase.load(directory);
    expect(knowledgeBase.documents.map(({ id, title }) => [id, title])).toEqual([
      ["same", "last"],
      ["other", "Title other"],
    ]);
    expect(knowledgeBase.get("same")).toEqual({ id: "same", title: "last", content: "x" });
    expect(knowledgeBase.size).toBe(2);
  });

  it.each([
    ["bad.json", "{", /bad\.json: not JSON/],
    ["missing.json", JSON.stringify({ id: "x", content: "y" }), /missing\.json: field "title": .*all strings/],
    ["typed.json", JSON.stringify({ id: 5, title: "t", content: "c" }), /typed\.json: field "id": /],
    ["list.json", "[]", /list\.json: the document: /],
  ])("rejects %s with a one-line DataError naming the file and field", (name, text, expected) => {
    const message = loadError(directoryWith({ [name]: text }));
    expect(message).toMatch(expected);
    expect(message).not.toContain("\n");
  });

  it("rejects a directory named *.json and a missing folder", () => {
    const directory = directoryWith({ "a.json": doc("a") });
    mkdirSync(join(directory, "folder.json"));
    expect(loadError(directory)).toMatch(/folder\.json: is a directory/);
    expect(loadError(join(directory, "absent"))).toMatch(/knowledge base folder not readable: .*absent \(ENOENT\)/);
  });
});

describeWithTau2Data("the banking_knowledge knowledge base", (tau2Data) => {
  const fixture = readRetrievalFixture(tau2Data);
  const knowledgeBase = KnowledgeBase.load(documentsDirectory(tau2Data));

  it("has the fixture's 698 documents in its index order", () => {
    expect(knowledgeBase.size).toBe(fixture.index.corpus_size);
    expect(knowledgeBase.documents.map((document) => document.id)).toEqual(fixture.index.index_order);
  });
});
