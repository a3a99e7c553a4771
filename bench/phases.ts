/**
 * The phases a measured process prints (bench/library-synth.ts, bench/stack-floor.ts), in seconds rounded to the
 * millisecond, from `performance.now()` marks in order: the first since the process's time origin, each other since
 * the mark before it.
 */
export function phaseSeconds(marks: Readonly<Record<string, number>>): Record<string, number> {
  let previous = 0;
  return Object.fromEntries(
    Object.entries(marks).map(([name, ms]) => {
      const seconds = Math.round(ms - previous) / 1000;
      previous = ms;
      return [name, seconds];
    }),
  );
}
