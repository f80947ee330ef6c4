/**
 * The grep retriever against the reference fixture: 18 patterns (literal words, alternation,
 * `.*`, `\d`, `\b`, `(?i)`, `^`, `$`, `x*` with its thousands of empty matches, an invalid pattern
 * searched literally) with the top ten `[id, count]`, case-insensitive and case-sensitive.
 */
import { expect, it } from "vitest";
import { GrepRetriever, KnowledgeBase } from "../../../src/suites/tau2/knowledge/index.ts";
import { RegexTranslationError, pyReEscape } from "../../../src/value/index.ts";
import { describeWithTau2Data } from "../../support/shared-data.ts";
import { documentsDirectory, readRetrievalFixture } from "./retrieval-fixture.ts";

describeWithTau2Data("grep over the banking_knowledge documents", (tau2Data) => {
  const fixture = readRetrievalFixture(tau2Data);
  const knowledgeBase = KnowledgeBase.load(documentsDirectory(tau2Data));
  const insensitive = new GrepRetriever(knowledgeBase);
  const sensitive = new GrepRetriever(knowledgeBase, 10, true);

  it.each(fixture.grep_patterns.map((entry) => [entry.pattern, entry] as const))("pattern %j in both case modes", (pattern, entry) => {
    expect(insensitive.retrieve(pattern)).toEqual(entry.case_insensitive_top10);
    expect(sensitive.retrieve(pattern)).toEqual(entry.case_sensitive_top10);
  });

  it("covers 18 patterns, with thousands of empty matches for x*", () => {
    expect(fixture.grep_patterns.length).toBe(18);
    expect(insensitive.retrieve("x*")[0][1]).toBeGreaterThan(5000);
  });

  it("searches an invalid pattern as re.escape(pattern)", () => {
    for (const pattern of ["[", "fee (waiver", "(e.g.", "$5 (or"]) {
      expect(insensitive.retrieve(pattern)).toEqual(insensitive.retrieve(pyReEscape(pattern)));
    }
    expect(insensitive.retrieve("(e.g.").length).toBeGreaterThan(0);
  });

  it("returns nothing for an empty or whitespace pattern", () => {
    expect(insensitive.retrieve("")).toEqual([]);
    expect(insensitive.retrieve(" \t\n")).toEqual([]);
  });

  it("keeps grep_top_k", () => {
    const entry = fixture.grep_patterns[1];
    expect(new GrepRetriever(knowledgeBase, 2).retrieve(entry.pattern)).toEqual(entry.case_insensitive_top10.slice(0, 2));
  });

  it("fails loudly on a valid pattern it cannot reproduce (a backreference under IGNORECASE), not case-sensitively", () => {
    expect(() => insensitive.retrieve("(\\w+) \\1")).toThrow(RegexTranslationError);
    // Top three of CPython 3.11's re.findall(r"(\w+) \1", content) over the documents (684 match).
    expect(sensitive.retrieve("(\\w+) \\1").slice(0, 3)).toEqual([
      ["doc_checking_accounts_checking_accounts_(general)_003", 38],
      ["doc_bank_accounts_bank_accounts_(general)_037", 29],
      ["doc_checking_accounts_purple_account_006", 28],
    ]);
  });
});
