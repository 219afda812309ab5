/**
 * llama.cpp's log, kept per instance. wllama's own errors are opaque (`RuntimeError: Invalid typed
 * array length`, `(ABORT)`); the real reason (a failed assertion, a JSON exception, a bad tensor)
 * reaches only the logger, so the last lines are kept and quoted in the error a client gets.
 */

/** How many lines are kept. */
const KEEP = 200;
/** Lines that say what went wrong, as opposed to progress chatter. */
const TROUBLE = /error|fail|abort|exception|assert|invalid|unable|cannot|terminat|out of memory|oom/i;

/** A logger for wllama (`WllamaConfig.logger`) that remembers instead of printing. */
export interface LlamaLogger {
  debug: (...args: unknown[]) => void;
  log: (...args: unknown[]) => void;
  warn: (...args: unknown[]) => void;
  error: (...args: unknown[]) => void;
}

/**
 * @example
 * const log = new LlamaLog();
 * new Wllama(paths, { logger: log.logger });
 * log.trouble(); // 'llama_model_load: error loading model: …'
 */
export class LlamaLog {
  private readonly lines: string[] = [];
  private readonly watchers = new Set<(line: string) => void>();

  readonly logger: LlamaLogger = {
    debug: (...args) => this.add(args),
    log: (...args) => this.add(args),
    warn: (...args) => this.add(args),
    error: (...args) => this.add(args),
  };

  /** Every kept line, oldest first. */
  all(): readonly string[] {
    return this.lines;
  }

  /** Marks a point; {@link trouble} with it looks only at lines logged after. */
  mark(): number {
    return this.total;
  }

  private total = 0;

  /**
   * Calls `onLine` with each line logged from now on, until the returned function is called: how a
   * start is seen to fail or get going while wllama's own promise says nothing (limits/wasm-start.ts).
   */
  watch(onLine: (line: string) => void): () => void {
    this.watchers.add(onLine);
    return () => this.watchers.delete(onLine);
  }

  /**
   * The lines since `since` (a {@link mark}) that report trouble, joined and shortened to `max`
   * characters; '' when there are none.
   */
  trouble(since = 0, max = 600): string {
    const first = Math.max(0, this.lines.length - (this.total - since));
    const found = this.lines.slice(first).filter((l) => TROUBLE.test(l) && !/^Stack trace/.test(l));
    const text = [...new Set(found)].join(' | ');
    return text.length > max ? `${text.slice(0, max)}…` : text;
  }

  /**
   * The compute device llama.cpp put the weights on, from its `load_tensors` lines: `webgpu` when
   * any weights went to a WebGPU buffer, `cpu` when only CPU buffers were reported, null if unknown.
   */
  device(): 'cpu' | 'webgpu' | null {
    const buffers = this.lines.filter((l) => /load_tensors:.*buffer size/.test(l));
    if (buffers.length === 0) return null;
    return buffers.some((l) => /webgpu/i.test(l)) ? 'webgpu' : 'cpu';
  }

  private add(args: unknown[]): void {
    const line = args
      .map((a) => (typeof a === 'string' ? a : describe(a)))
      .join(' ')
      .trim();
    if (line === '') return;
    this.total++;
    this.lines.push(line.length > 1000 ? `${line.slice(0, 1000)}…` : line);
    if (this.lines.length > KEEP) this.lines.shift();
    for (const onLine of this.watchers) onLine(line);
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (typeof value === 'object' && value !== null) {
    const o = value as { message?: unknown };
    if (typeof o.message === 'string') return o.message;
    try {
      return JSON.stringify(value).slice(0, 500);
    } catch {
      return String(value);
    }
  }
  return String(value);
}
