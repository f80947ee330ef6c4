/**
 * The exact floats of the numpy and pandas calls τ²'s metrics make (`agent_metrics.py`): a
 * leaderboard validator compares the submitted pass^k and cost with `!=`, so the summation order
 * and grouping must be numpy's, not a left-to-right loop.
 *
 * - `np.add.reduce` on a float64 array (what `Series.mean()` sums with: pandas leaves bottleneck
 *   out of `nanmean`) is numpy's pairwise summation: under 8 values a plain loop; up to 128, eight
 *   interleaved accumulators combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) and the rest added in
 *   order; above, the two halves (the first a multiple of 8 long) summed separately and added. The
 *   reduction starts from the identity 0.0.
 * - `Series.mean()` skips missing values: they are summed as 0.0 in place and the count leaves them out.
 * - `np.argsort(kind="quicksort")` (what `sort_values` uses) is numpy's introsort; its order of
 *   equal keys is the portable implementation's (numpy < 1.25, or a CPU without the AVX2/AVX-512
 *   sort kernels numpy 2 dispatches to, which order equal keys differently).
 */

/** numpy's `pairwise_sum` of `values[start, start + count)` (float64). */
function pairwise(values: ArrayLike<number>, start: number, count: number): number {
  if (count < 8) {
    let sum = 0;
    for (let index = 0; index < count; index++) sum += values[start + index];
    // numpy starts its plain loop at -0.0 for n < 8 (`res = 0.` then adds): 0.0 + -0.0 is 0.0 as here.
    return sum;
  }
  if (count <= 128) {
    const r = [0, 0, 0, 0, 0, 0, 0, 0];
    for (let lane = 0; lane < 8; lane++) r[lane] = values[start + lane];
    let index = 8;
    for (; index < count - (count % 8); index += 8) for (let lane = 0; lane < 8; lane++) r[lane] += values[start + index + lane];
    let sum = r[0] + r[1] + (r[2] + r[3]) + (r[4] + r[5] + (r[6] + r[7]));
    for (; index < count; index++) sum += values[start + index];
    return sum;
  }
  let half = Math.floor(count / 2);
  half -= half % 8;
  return pairwise(values, start, half) + pairwise(values, start + half, count - half);
}

/** `np.sum` of a float64 array: 0.0 plus numpy's pairwise sum. */
export function numpySum(values: ArrayLike<number>): number {
  return 0 + pairwise(values, 0, values.length);
}

/** `pd.Series(values).mean()`: missing values (null) left out of the count, summed as 0.0; NaN when none is present. */
export function pandasMean(values: ReadonlyArray<number | null>): number {
  const filled = values.map((value) => (value === null || Number.isNaN(value) ? 0 : value));
  const count = values.filter((value) => value !== null && !Number.isNaN(value)).length;
  return count === 0 ? Number.NaN : numpySum(filled) / count;
}

/** Python's `sorted()` of strings: by code point (JavaScript's default compares UTF-16 units). */
export function pythonStringCompare(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const difference = (left[index].codePointAt(0) as number) - (right[index].codePointAt(0) as number);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/**
 * `np.argsort(values, kind="quicksort")` for integer keys: numpy's portable introsort
 * (`npysort/quicksort.cpp`, `aquicksort_`): median-of-three partitions down to 16 elements (SMALL_QUICKSORT 15), then
 * insertion sort, the larger partition pushed on the stack; heapsort past 2·log2(n) levels.
 */
export function numpyArgsortQuicksort(values: readonly number[]): number[] {
  const n = values.length;
  const order = Array.from({ length: n }, (_, index) => index);
  if (n < 2) return order;
  const v = (position: number) => values[order[position]];
  const swap = (a: number, b: number) => {
    const held = order[a];
    order[a] = order[b];
    order[b] = held;
  };
  const stack: Array<[number, number, number]> = [];
  let low = 0;
  let high = n - 1;
  let depth = 2 * Math.floor(Math.log2(n));
  for (;;) {
    if (depth < 0) {
      heapsortRange(values, order, low, high);
    } else {
      while (high - low > 15) {
        const middle = low + ((high - low) >> 1);
        if (v(middle) < v(low)) swap(middle, low);
        if (v(high) < v(middle)) swap(high, middle);
        if (v(middle) < v(low)) swap(middle, low);
        const pivot = v(middle);
        let i = low;
        let j = high - 1;
        swap(middle, j);
        for (;;) {
          do i++;
          while (v(i) < pivot);
          do j--;
          while (pivot < v(j));
          if (i >= j) break;
          swap(i, j);
        }
        swap(i, high - 1);
        depth--;
        if (i - low < high - i) {
          stack.push([i + 1, high, depth]);
          high = i - 1;
        } else {
          stack.push([low, i - 1, depth]);
          low = i + 1;
        }
      }
      for (let i = low + 1; i <= high; i++) {
        const held = order[i];
        const key = values[held];
        let j = i;
        while (j > low && key < values[order[j - 1]]) {
          order[j] = order[j - 1];
          j--;
        }
        order[j] = held;
      }
    }
    const next = stack.pop();
    if (!next) break;
    [low, high, depth] = next;
  }
  return order;
}

/** numpy's `aheapsort_` over `order[low..high]` (only reached past the depth limit). */
function heapsortRange(values: readonly number[], order: number[], low: number, high: number): void {
  const n = high - low + 1;
  const a = (k: number) => order[low + k - 1]; // 1-based, as numpy's
  const set = (k: number, value: number) => {
    order[low + k - 1] = value;
  };
  let tmp: number;
  for (let l = n >> 1; l > 0; --l) {
    tmp = a(l);
    let i = l;
    for (let j = l << 1; j <= n; ) {
      if (j < n && values[a(j)] < values[a(j + 1)]) j += 1;
      if (values[tmp] < values[a(j)]) {
        set(i, a(j));
        i = j;
        j += j;
      } else break;
    }
    set(i, tmp);
  }
  for (let m = n; m > 1; ) {
    tmp = a(m);
    set(m, a(1));
    m -= 1;
    let i = 1;
    for (let j = 2; j <= m; ) {
      if (j < m && values[a(j)] < values[a(j + 1)]) j++;
      if (values[tmp] < values[a(j)]) {
        set(i, a(j));
        i = j;
        j += j;
      } else break;
    }
    set(i, tmp);
  }
}
