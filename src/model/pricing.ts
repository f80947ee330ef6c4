/**
 * Cost of a model call in US dollars. Prices come from a user price file first (so users can fix
 * or add models without waiting for a release), then from `@pydantic/genai-prices`' bundled
 * catalogue (works offline). A model found in neither costs `null` — unknown is shown as unknown,
 * never as $0, which is what τ-bench users complained about.
 */
import { readFile } from "node:fs/promises";
import { calcPrice } from "@pydantic/genai-prices";
import { z } from "zod";
import { ConfigError } from "../errors/error-tree.ts";
import type { CatalogueLookup } from "./providers.ts";
import type { CostSource, ModelUsage } from "./types.ts";

/** One price-file entry; all prices are US dollars per 1 million tokens. */
export const priceEntrySchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  /** Price of prompt tokens served from the provider's prompt cache; defaults to `input`. */
  cachedInput: z.number().nonnegative().optional(),
});
export type PriceEntry = z.infer<typeof priceEntrySchema>;

/**
 * A user price file: `{ "<model>" | "<provider>:<model>": { input, output, cachedInput? } }`.
 * A `provider:model` key wins over a bare `model` key.
 */
export const priceTableSchema = z.record(z.string().min(1), priceEntrySchema);
export type PriceTable = z.infer<typeof priceTableSchema>;

/** Validates a parsed price table; throws {@link ConfigError} naming the bad entry. */
export function parsePriceTable(value: unknown, source = "price table"): PriceTable {
  const parsed = priceTableSchema.safeParse(value);
  if (!parsed.success) throw new ConfigError(`Invalid ${source}:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Reads and validates a JSON price file (`--prices <file>`). */
export async function loadPriceFile(path: string): Promise<PriceTable> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read price file ${path}: ${(error as Error).message}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Price file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return parsePriceTable(value, `price file ${path}`);
}

export interface CostInput {
  provider: string;
  model: string;
  /** The model as the catalogue names it, when the name sent differs from the configured one (Fireworks' `accounts/fireworks/models/<name>`). */
  catalogueModel?: string;
  /** The endpoint actually called, used for `by-base-url` catalogue matching. */
  baseURL: string | undefined;
  catalogue: CatalogueLookup;
  usage: ModelUsage;
  prices?: PriceTable;
}

export interface CostResult {
  cost: number | null;
  source: CostSource | null;
}

/** Price from a user table entry; cached prompt tokens use `cachedInput` when given. */
function costFromEntry(entry: PriceEntry, usage: ModelUsage): number {
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const uncached = usage.promptTokens - cached;
  const cachedPrice = entry.cachedInput ?? entry.input;
  return (uncached * entry.input + cached * cachedPrice + usage.completionTokens * entry.output) / 1_000_000;
}

/** Finds the user's price entry: `provider:model` first, then the bare model name. */
export function findPriceEntry(prices: PriceTable | undefined, provider: string, model: string): PriceEntry | undefined {
  if (!prices) return undefined;
  const qualified = `${provider}:${model}`;
  if (Object.hasOwn(prices, qualified)) return prices[qualified];
  if (Object.hasOwn(prices, model)) return prices[model];
  return undefined;
}

/**
 * Computes the cost of one call. Returns `{cost: null}` when usage was not reported or the model
 * is priced nowhere; never guesses.
 */
export function computeCost(input: CostInput): CostResult {
  return new CostCalculator(input).cost(input.usage);
}

/**
 * One client's pricing, decided once: its user price entry and its catalogue key. A model client
 * prices every call it makes, and building the lookup keys (two strings, hashed) per call was a
 * measurable share of the harness's CPU per call at scale (issue 28 §1); the costs are those of
 * {@link computeCost}, which is this made for one call. The user price table is read when the
 * calculator is made (clients parse their options, so theirs is their own copy).
 */
export class CostCalculator {
  private readonly input: Omit<CostInput, "usage">;
  private readonly entry: PriceEntry | undefined;
  /** `undefined` when the catalogue is not consulted (`catalogue: "none"`, or no base URL to resolve by). */
  private readonly unknownKey: string | undefined;

  constructor(input: Omit<CostInput, "usage">) {
    this.input = input;
    this.entry = findPriceEntry(input.prices, input.provider, input.model);
    const lookup = catalogueLookupKey(input);
    this.unknownKey = lookup === undefined ? undefined : `${lookup}\u0000${input.catalogueModel ?? input.model}`;
  }

  /** The cost of one call with this usage. */
  cost(usage: ModelUsage): CostResult {
    if (usage.reported === false) return { cost: null, source: null };
    if (this.entry) return { cost: costFromEntry(this.entry, usage), source: "price-file" };
    const unknownKey = this.unknownKey;
    if (unknownKey === undefined || unknownInCatalogue.has(unknownKey)) return { cost: null, source: null };
    return catalogueCost(this.input, usage, unknownKey);
  }
}

/** The genai-prices catalogue's cost of one call, remembering a model it does not price. */
function catalogueCost(input: Omit<CostInput, "usage">, usage: ModelUsage, unknownKey: string): CostResult {
  const catalogueModel = input.catalogueModel ?? input.model;
  const providerId = input.catalogue === "by-base-url" ? providerByBaseURL.get(input.baseURL!) : (input.catalogue as { providerId: string }).providerId;
  const options = providerId !== undefined ? { providerId } : { providerApiUrl: input.baseURL! };
  try {
    const result = calcPrice(
      {
        input_tokens: usage.promptTokens,
        output_tokens: usage.completionTokens,
        ...(usage.cachedPromptTokens ? { cache_read_tokens: Math.min(usage.cachedPromptTokens, usage.promptTokens) } : {}),
      },
      catalogueModel,
      options,
    );
    if (!result || !Number.isFinite(result.total_price)) {
      if (!result) unknownInCatalogue.add(unknownKey);
      return { cost: null, source: null };
    }
    if (input.catalogue === "by-base-url" && providerId === undefined) providerByBaseURL.set(input.baseURL!, result.provider.id);
    return { cost: result.total_price, source: "genai-prices" };
  } catch {
    // The catalogue throws on incomplete price data for some models; that is "unknown", not 0.
    return { cost: null, source: null };
  }
}

/*
 * The catalogue is static for the life of the process, so two lookups are remembered (every model
 * call prices itself, and resolving a provider from a base URL compiles every provider's pattern):
 * which catalogue provider a base URL resolved to, and which (provider, model) pairs it does not
 * price at all.
 */
const providerByBaseURL = new Map<string, string>();
const unknownInCatalogue = new Set<string>();

function catalogueLookupKey(input: Omit<CostInput, "usage">): string | undefined {
  if (input.catalogue === "none") return undefined;
  if (input.catalogue === "by-base-url") return input.baseURL ? `url:${input.baseURL}` : undefined;
  return `id:${input.catalogue.providerId}`;
}
