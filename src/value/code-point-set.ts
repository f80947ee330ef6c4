/**
 * Sets of Unicode code points as sorted ranges, and their JavaScript character class. The regex
 * translation (regex-compile.ts) computes every Python character class, case-insensitive literal and
 * `\w`-style category as an explicit set, so the JavaScript pattern never relies on the running
 * Node's Unicode tables or on JavaScript's case folding. Not a Python operation: no `py` prefix.
 */

const MAX_CODE_POINT = 0x10ffff;

/** An immutable set of code points: flat `[lo0, hi0, lo1, hi1, …]`, sorted, disjoint and non-adjacent. */
export class CodePointSet {
  static readonly EMPTY = new CodePointSet([]);
  static readonly ALL = new CodePointSet([0, MAX_CODE_POINT]);

  private constructor(readonly bounds: readonly number[]) {}

  /** The set of the given inclusive ranges (any order, overlaps allowed). */
  static fromRanges(ranges: Iterable<readonly [number, number]>): CodePointSet {
    const sorted = [...ranges].filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0]);
    const bounds: number[] = [];
    for (const [lo, hi] of sorted) {
      const last = bounds.length - 1;
      if (last > 0 && lo <= bounds[last] + 1) bounds[last] = Math.max(bounds[last], hi);
      else bounds.push(lo, hi);
    }
    return new CodePointSet(bounds);
  }

  /** The set of the given code points. */
  static of(codePoints: Iterable<number>): CodePointSet {
    return CodePointSet.fromRanges([...codePoints].map((code) => [code, code] as const));
  }

  /** Whether the set has no member. */
  get isEmpty(): boolean {
    return this.bounds.length === 0;
  }

  /** Whether `code` is in the set (binary search). */
  has(code: number): boolean {
    let low = 0;
    let high = this.bounds.length / 2 - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (code < this.bounds[2 * middle]) high = middle - 1;
      else if (code > this.bounds[2 * middle + 1]) low = middle + 1;
      else return true;
    }
    return false;
  }

  /** The ranges as `[lo, hi]` pairs. */
  *ranges(): Generator<[number, number]> {
    for (let index = 0; index < this.bounds.length; index += 2) yield [this.bounds[index], this.bounds[index + 1]];
  }

  /** The members of either set. */
  union(other: CodePointSet): CodePointSet {
    if (other.isEmpty) return this;
    if (this.isEmpty) return other;
    return CodePointSet.fromRanges([...this.ranges(), ...other.ranges()]);
  }

  /** Every code point (0 to U+10FFFF) not in the set. */
  complement(): CodePointSet {
    const bounds: number[] = [];
    let next = 0;
    for (const [lo, hi] of this.ranges()) {
      if (lo > next) bounds.push(next, lo - 1);
      next = hi + 1;
    }
    if (next <= MAX_CODE_POINT) bounds.push(next, MAX_CODE_POINT);
    return new CodePointSet(bounds);
  }

  /** The members of both sets. */
  intersect(other: CodePointSet): CodePointSet {
    return this.complement().union(other.complement()).complement();
  }

  /** The members not in `other`. */
  minus(other: CodePointSet): CodePointSet {
    return this.intersect(other.complement());
  }

  /** The members of this set within `[lo, hi]`, as code points (for small intersections). */
  membersWithin(lo: number, hi: number): number[] {
    const members: number[] = [];
    for (const [start, end] of this.ranges()) {
      for (let code = Math.max(start, lo); code <= Math.min(end, hi); code++) members.push(code);
    }
    return members;
  }

  /** Whether the set has a member in `[lo, hi]`. */
  overlaps(lo: number, hi: number): boolean {
    for (const [start, end] of this.ranges()) if (start <= hi && end >= lo) return true;
    return false;
  }

  /**
   * A JavaScript character class matching exactly this set, for a RegExp with the `u` flag (code
   * points, lone surrogates included). The empty set is `[]`, which matches nothing.
   */
  toRegExpClass(): string {
    let body = "";
    for (const [lo, hi] of this.ranges()) body += lo === hi ? classAtom(lo) : `${classAtom(lo)}-${classAtom(hi)}`;
    return `[${body}]`;
  }
}

/** One code point inside a `u`-mode class: printable ASCII letters and digits as themselves, anything else as `\u{…}`. */
function classAtom(code: number): string {
  if ((code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) return String.fromCharCode(code);
  return `\\u{${code.toString(16)}}`;
}
