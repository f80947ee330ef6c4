/**
 * Message timestamps as τ² writes them (local ISO time with microseconds, `datetime.now().isoformat()`).
 * τ² sorts a trajectory by timestamp, so ours are strictly increasing within an episode even when
 * two messages are made in the same microsecond; a task's message history gets synthetic times
 * one second apart, ending before the episode starts, as the original assigns them.
 */
const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** The last second formatted, and its text up to the seconds (messages come many to a second: the date is worked out once per second). */
let formattedSecond = Number.NaN;
let secondText = "";

function isoLocal(epochMicros: number): string {
  const second = Math.floor(epochMicros / 1_000_000);
  if (second !== formattedSecond) {
    const date = new Date(second * 1000);
    secondText = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
    formattedSecond = second;
  }
  const micros = Math.floor(epochMicros % 1_000_000);
  return `${secondText}.${pad(micros, 6)}`;
}

export class Clock {
  private last = 0;

  private micros(): number {
    const now = Math.floor((performance.timeOrigin + performance.now()) * 1000);
    this.last = Math.max(now, this.last + 1);
    return this.last;
  }

  /** A fresh timestamp, later than every earlier one of this clock. */
  now(): string {
    return isoLocal(this.micros());
  }

  /** Timestamps for `count` history messages: now − count s, then one second apart. */
  history(count: number): string[] {
    const start = this.micros() - count * 1_000_000;
    return Array.from({ length: count }, (_, index) => isoLocal(start + index * 1_000_000));
  }

  /** The wall-clock time for `start_time` / `end_time`. */
  wallNow(): string {
    return isoLocal(Math.floor((performance.timeOrigin + performance.now()) * 1000));
  }
}
