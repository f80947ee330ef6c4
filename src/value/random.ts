/**
 * Python's `random` module (Mersenne Twister MT19937, CPython's seeding and `randint`), for the
 * few places where a benchmark's behaviour depends on it: τ²-bench derives each trial's seed with
 * `random.seed(config.seed)` then `randint(0, 1_000_000)` per trial (seed 300 gives 626729,
 * 373753, 361454, 1567), and users compare runs by those seeds.
 */
const N = 624;
const M = 397;

export class PyRandom {
  private readonly state = new Uint32Array(N);
  private index = N + 1;

  /** `random.seed(n)` for a non-negative int (CPython's `init_by_array` over the int's 32-bit words). */
  constructor(seed: number | bigint) {
    this.seed(seed);
  }

  seed(seed: number | bigint): void {
    let value = BigInt(seed) < 0n ? -BigInt(seed) : BigInt(seed);
    const key: number[] = [];
    do {
      key.push(Number(value & 0xffffffffn));
      value >>= 32n;
    } while (value > 0n);
    this.initByArray(key);
  }

  private initGenrand(seed: number): void {
    const mt = this.state;
    mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const previous = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, previous) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: number[]): void {
    this.initGenrand(19650218);
    const mt = this.state;
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const previous = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(previous, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const previous = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(previous, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private twist(): void {
    const mt = this.state;
    for (let k = 0; k < N; k++) {
      const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
      mt[k] = mt[(k + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    this.index = 0;
  }

  /** One 32-bit output (`genrand_uint32`). */
  nextUint32(): number {
    if (this.index >= N) this.twist();
    let y = this.state[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random.getrandbits(k)` for 1 ≤ k ≤ 32. */
  getrandbits(bits: number): number {
    return this.nextUint32() >>> (32 - bits);
  }

  /** `random.randint(a, b)`: `a + _randbelow(b - a + 1)` by rejection sampling on `getrandbits`. */
  randint(low: number, high: number): number {
    const span = high - low + 1;
    const bits = Math.floor(Math.log2(span)) + 1;
    let value = this.getrandbits(bits);
    while (value >= span) value = this.getrandbits(bits);
    return low + value;
  }
}

/** τ²'s per-trial seeds: `random.seed(seed)`, then `randint(0, 1_000_000)` once per trial. */
export function tau2TrialSeeds(seed: number, trials: number): number[] {
  const random = new PyRandom(seed);
  return Array.from({ length: trials }, () => random.randint(0, 1_000_000));
}
