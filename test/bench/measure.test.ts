import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Meter, defaultMeter, measure, spread } from '../../bench/measure';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-measure-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A Node child that holds 96 MiB of touched memory for a moment and prints a line. */
const HOG = {
  file: process.execPath,
  args: ['-e', 'const b = Buffer.alloc(96 * 2 ** 20, 1); setTimeout(() => console.log(b[5]), 50);'],
  cwd: scratch,
};

describe('measure', () => {
  test.each([Meter.GNU_TIME, Meter.NODE])(
    'with the %s meter: wall time, CPU time, peak RSS and stdout of the process',
    (meter) => {
      if (meter === Meter.GNU_TIME && defaultMeter() !== Meter.GNU_TIME) {
        return; // GNU time is not installed; the Node meter is what the bench uses then
      }
      const sample = measure(HOG, meter, scratch);
      expect(sample.stdout).toBe('1\n');
      expect(sample.rssBytes).toBeGreaterThan(96 * 2 ** 20);
      expect(sample.rssBytes).toBeLessThan(400 * 2 ** 20);
      expect(sample.wallSeconds).toBeGreaterThan(0.05);
      expect(sample.cpuSeconds).toBeGreaterThan(0);
    },
  );

  test('throws with the command, its exit status and its stderr when it fails', () => {
    expect(() =>
      measure(
        { file: process.execPath, args: ['-e', 'console.error("boom"); process.exit(3)'], cwd: scratch },
        Meter.NODE,
        scratch,
      ),
    ).toThrow(/-e console.error\("boom"\); process.exit\(3\) \(in .*\) failed: exit 3\nboom/);
  });
});

describe('spread', () => {
  test('min, median and max; the median of an even count is the mean of the middle two', () => {
    expect(spread([3, 1, 2])).toEqual({ min: 1, median: 2, max: 3 });
    expect(spread([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5, max: 4 });
    expect(() => spread([])).toThrow('spread of no values');
  });
});
