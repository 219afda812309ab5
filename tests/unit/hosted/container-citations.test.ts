/**
 * The reader that turns an answer's mentions of files code wrote into `container_file_citation`s:
 * which spellings of a name cite (full path, `sandbox:` link, path under /mnt/data, file name),
 * which do not (another folder, a longer name, a name shared by two files), the span of each, and
 * that the result does not depend on how the text is cut into deltas.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CitableFile, ContainerFileNames } from '../../../src/core/hosted/container-citations';
import { cpuNow } from '../../helpers/cpu-time';

const C = 'cntr_1';
const file = (file_id: string, path: string): CitableFile => ({ container_id: C, file_id, path });
const FILES = [
  file('cfile_plot', '/mnt/data/plot.png'),
  file('cfile_data', '/mnt/data/out/data.csv'),
  file('cfile_a', '/mnt/data/a/same.txt'),
  file('cfile_b', '/mnt/data/b/same.txt'),
];

/** The cited spans of `text` read whole: [mention, file_id, filename]. */
function cite(text: string, files = FILES) {
  const found = new ContainerFileNames(files).scanner().scan(text, true);
  for (const f of found) expect(f).toMatchObject({ type: 'container_file_citation', container_id: C });
  return found.map((f) => [text.slice(f.start_index, f.end_index), f.file_id, f.filename]);
}

describe('container file mentions', () => {
  it('cites the full path, a sandbox: link, the path under /mnt/data and the file name, each where it is', () => {
    expect(cite('Saved to /mnt/data/plot.png.')).toEqual([['/mnt/data/plot.png', 'cfile_plot', 'plot.png']]);
    expect(cite('[Download the chart](sandbox:/mnt/data/plot.png)')).toEqual([
      ['sandbox:/mnt/data/plot.png', 'cfile_plot', 'plot.png'],
    ]);
    expect(cite('See `out/data.csv`, or **data.csv**!')).toEqual([
      ['out/data.csv', 'cfile_data', 'data.csv'],
      ['data.csv', 'cfile_data', 'data.csv'],
    ]);
  });

  it('cites a name each time it is written', () => {
    expect(cite('plot.png and plot.png; plot.png?')).toEqual([
      ['plot.png', 'cfile_plot', 'plot.png'],
      ['plot.png', 'cfile_plot', 'plot.png'],
      ['plot.png', 'cfile_plot', 'plot.png'],
    ]);
  });

  it('cites nothing for another folder, a longer name, a prefix, or a name two files share', () => {
    expect(cite('/tmp/plot.png plot.png.bak myplot.png plot.pn data/out/data.csv')).toEqual([]);
    expect(cite('same.txt')).toEqual([]);
    expect(cite('a/same.txt /mnt/data/b/same.txt')).toEqual([
      ['a/same.txt', 'cfile_a', 'same.txt'],
      ['/mnt/data/b/same.txt', 'cfile_b', 'same.txt'],
    ]);
  });

  it('cites a file name that is exactly another file’s path under /mnt/data as that file', () => {
    const files = [file('cfile_top', '/mnt/data/x.png'), file('cfile_sub', '/mnt/data/sub/x.png')];
    expect(cite('x.png sub/x.png', files)).toEqual([
      ['x.png', 'cfile_top', 'x.png'],
      ['sub/x.png', 'cfile_sub', 'x.png'],
    ]);
  });

  it('holds the word being written: a name is cited once a break or the end shows it is whole', () => {
    const scanner = new ContainerFileNames(FILES).scanner();
    expect(scanner.scan('see plot.png', false)).toEqual([]);
    // The word grew: it was never plot.png.
    expect(scanner.scan('see plot.png.bak and plot.png', false)).toEqual([]);
    expect(scanner.scan('see plot.png.bak and plot.png', true)).toEqual([
      expect.objectContaining({ file_id: 'cfile_plot', start_index: 21, end_index: 29 }),
    ]);
  });

  it('gives the same citations however the text is cut into deltas', () => {
    const words = [
      'plot.png',
      'sandbox:/mnt/data/plot.png',
      'out/data.csv',
      'nope.png',
      'and',
      '(',
      ')',
      '. ',
      '\n',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...words), { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (parts, cuts) => {
          const text = parts.join(' ');
          const whole = new ContainerFileNames(FILES).scanner().scan(text, true);
          const scanner = new ContainerFileNames(FILES).scanner();
          const ends = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const found = [
            ...ends.flatMap((end) => scanner.scan(text.slice(0, end), false)),
            ...scanner.scan(text, true),
          ];
          expect(found).toEqual(whole);
        },
      ),
    );
  });

  it('skips words longer than any name without reading them as names', () => {
    const long = `${'x'.repeat(100_000)}plot.png`;
    expect(cite(`${long} plot.png`)).toEqual([['plot.png', 'cfile_plot', 'plot.png']]);
  });

  // CPU time, not wall time: the cost of the work, whatever else a loaded machine runs (issue 38).
  it('reads 1,000,000 characters in 10,000 deltas with 256 files in under 2 s of CPU (linear, not quadratic)', () => {
    const files = Array.from({ length: 256 }, (_, i) => file(`cfile_${i}`, `/mnt/data/dir${i}/f${i}.csv`));
    const text = Array.from({ length: 50_000 }, (_, i) => `f${i % 300}.csv, `)
      .join('')
      .padEnd(1_000_000, 'x');
    const scanner = new ContainerFileNames(files).scanner();
    const start = cpuNow();
    let found = 0;
    for (let end = 100; end <= text.length; end += 100)
      found += scanner.scan(text.slice(0, end), false).length;
    found += scanner.scan(text, true).length;
    expect(cpuNow() - start).toBeLessThan(2000);
    // Names f0…f255 are files; f256…f299 are not.
    expect(found).toBe(Math.floor(50_000 / 300) * 256 + Math.min(50_000 % 300, 256));
  });

  it('has nothing to cite without files', () => {
    const names = new ContainerFileNames([]);
    expect(names.size).toBe(0);
    expect(names.scanner().scan('plot.png', true)).toEqual([]);
  });
});
