import { ConfigError, UnknownNameError } from "../errors/error-tree.ts";

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
