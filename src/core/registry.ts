import { ConfigError, InfraError, UnknownNameError } from "../errors/error-tree.ts";

/**
 * A registry keyed by explicit names. Registering a name twice is a programming error; looking up
 * an unknown name is the user's error and lists the known names
 * (`Unknown domain "airlin"; known: airline, retail, library`).
 */
export class Registry<T> {
  private readonly entries = new Map<string, T>();

  constructor(readonly kind: string) {}

  register(name: string, value: T): void {
    if (this.entries.has(name)) throw new ConfigError(`${this.kind} "${name}" is already registered`);
    this.entries.set(name, value);
  }

  get(name: string): T {
    const value = this.entries.get(name);
    if (value === undefined) throw new UnknownNameError(this.kind, name, this.names());
    return value;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }
}

/**
 * A registry whose entries are loaded on first use: each name is registered with a loader (a dynamic
 * `import()`), so a process loads only the entries it names. `load(name)` loads one (an unknown name
 * is the user's error, as in {@link Registry}); `get(name)` then answers synchronously. Asking `get`
 * for a registered name that was never loaded is a programming error: whoever resolves a name first
 * awaits `load`. `loadAll()` loads every entry (listings, tools that walk every entry).
 */
export class DeferredRegistry<T> {
  /** The loaders: a {@link Registry}, which refuses a name twice and names the known ones for an unknown name. */
  private readonly loaders: Registry<() => Promise<T>>;
  private readonly loaded = new Map<string, T>();
  private readonly pending = new Map<string, Promise<T>>();

  constructor(readonly kind: string) {
    this.loaders = new Registry(kind);
  }

  register(name: string, load: () => Promise<T>): void {
    this.loaders.register(name, load);
  }

  /** The entry, loading it the first time (concurrent callers share one load). */
  load(name: string): Promise<T> {
    const value = this.loaded.get(name);
    if (value !== undefined) return Promise.resolve(value);
    let pending = this.pending.get(name);
    if (pending === undefined) {
      let loader: () => Promise<T>;
      try {
        loader = this.loaders.get(name);
      } catch (error) {
        return Promise.reject(error);
      }
      pending = loader().then((entry) => {
        this.loaded.set(name, entry);
        return entry;
      });
      pending.catch(() => this.pending.delete(name));
      this.pending.set(name, pending);
    }
    return pending;
  }

  /** Every entry loaded; the registry itself, so `get` answers for every name. */
  async loadAll(): Promise<this> {
    await Promise.all(this.names().map((name) => this.load(name)));
    return this;
  }

  /** A loaded entry. An unknown name is the user's error; a known one not loaded yet, the caller's bug. */
  get(name: string): T {
    const value = this.loaded.get(name);
    if (value !== undefined) return value;
    this.loaders.get(name); // an unknown name: the user's error, listing the known ones
    throw new InfraError(`${this.kind} "${name}" is not loaded yet: await load("${name}") before get`);
  }

  has(name: string): boolean {
    return this.loaders.has(name);
  }

  names(): string[] {
    return this.loaders.names();
  }
}
