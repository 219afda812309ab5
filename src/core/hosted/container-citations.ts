import type { ResponseOutputText } from 'openai/resources/responses/responses';

/**
 * Citations for `code_interpreter`. Once code has written files in a response's container, an
 * answer that names one gets a `container_file_citation` over the mention: its full path
 * (`/mnt/data/plot.png`, or `sandbox:/mnt/data/plot.png` as OpenAI's models write it in a Markdown
 * link), its path under `/mnt/data` (`out/plot.png`), or its file name (`plot.png`). Unlike
 * `file_search`'s markers the mention stays in the text; the citation spans it, `start_index` to
 * `end_index` as a slice (`text.slice(start_index, end_index)` is the mention), in the same units
 * as `file_citation`'s `index` here: the text's UTF-16 offsets.
 *
 * Mentions are read word by word, a word ending at whitespace, a bracket, a quote, `*`, `|`, `,` or
 * `;` (so a Markdown link, `**bold**` or a backquoted path reads as the bare name), less a trailing
 * `.`, `:`, `!` or `?`; so `plot.png.bak` does not cite `plot.png`, and a name with a space or a
 * bracket in it is not cited. Each character is read once and each word looked up once: the work
 * is linear in the text, whatever the number of files.
 */

export type ContainerFileCitation = ResponseOutputText.ContainerFileCitation;

/** A file code wrote in a container: its id and its full path (`/mnt/data/…`). */
export interface CitableFile {
  container_id: string;
  file_id: string;
  path: string;
}

const DATA = '/mnt/data/';
const SANDBOX = 'sandbox:';
/** Characters that end a word: whitespace, brackets, quotes, Markdown's `*` and `|`, `,` and `;`. */
const BREAKS = /[\s()[\]{}<>"'`*|,;]/;
/** Sentence punctuation a word may end with that no mention ends with. */
const TRAILING = /[.:!?]+$/;
/** Room for `sandbox:` and trailing punctuation around the longest name. */
const SLACK = SANDBOX.length + 8;

/**
 * The names a set of files is cited by. A full path or a path under `/mnt/data` names one file; a
 * file name shared by two files (in different folders) names neither, and is not cited.
 *
 * @example
 * const names = new ContainerFileNames([{ container_id: 'cntr_1', file_id: 'cfile_1', path: '/mnt/data/plot.png' }]);
 * names.scanner().scan('See plot.png', true) // → [{ type: 'container_file_citation', …, start_index: 4, end_index: 12 }]
 */
export class ContainerFileNames {
  private readonly names = new Map<string, CitableFile | null>();
  private longest = 0;

  constructor(files: readonly CitableFile[]) {
    const exact = new Set<string>();
    for (const f of files) {
      if (!f.path.startsWith(DATA)) continue;
      for (const name of [f.path, f.path.slice(DATA.length)]) this.add(name, f, exact);
    }
    for (const f of files) {
      const base = f.path.slice(f.path.lastIndexOf('/') + 1);
      if (exact.has(base) || !f.path.startsWith(DATA)) continue;
      const had = this.names.get(base);
      this.names.set(base, had === undefined || had?.file_id === f.file_id ? f : null);
      this.longest = Math.max(this.longest, base.length);
    }
  }

  /** How many names cite a file (0: nothing to cite). */
  get size(): number {
    return this.names.size;
  }

  /** A scanner for one text part. */
  scanner(): MentionScanner {
    return new MentionScanner(this.names, this.longest + SLACK);
  }

  private add(name: string, f: CitableFile, exact: Set<string>): void {
    if (name === '') return;
    exact.add(name);
    this.names.set(name, f);
    this.longest = Math.max(this.longest, name.length);
  }
}

/**
 * Reads one text part as it grows and returns the citations of the words it completes; the word
 * still being written is held (it may grow into another name) until a break or the part's end.
 */
export class MentionScanner {
  /** Where the word being read starts, and how far the text has been read. */
  private start = 0;
  private at = 0;

  constructor(
    private readonly names: ReadonlyMap<string, CitableFile | null>,
    private readonly longest: number,
  ) {}

  /** The citations of the words `text` (the part's whole text so far) completes; `ended`: its last word too. */
  scan(text: string, ended: boolean): ContainerFileCitation[] {
    const found: ContainerFileCitation[] = [];
    for (; this.at < text.length; this.at += 1) {
      if (!BREAKS.test(text[this.at] as string)) continue;
      this.word(text, this.at, found);
      this.start = this.at + 1;
    }
    if (ended) {
      this.word(text, text.length, found);
      this.start = text.length;
    }
    return found;
  }

  private word(text: string, end: number, found: ContainerFileCitation[]): void {
    if (end <= this.start || end - this.start > this.longest) return;
    const word = text.slice(this.start, end).replace(TRAILING, '');
    const file = this.names.get(word.startsWith(SANDBOX) ? word.slice(SANDBOX.length) : word);
    if (!file) return;
    found.push({
      type: 'container_file_citation',
      container_id: file.container_id,
      file_id: file.file_id,
      filename: file.path.slice(file.path.lastIndexOf('/') + 1),
      start_index: this.start,
      end_index: this.start + word.length,
    });
  }
}
