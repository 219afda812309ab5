/**
 * Bytes, speed and time left for a web-llm download, read from the progress web-llm 0.2.86 reports.
 * web-llm does not hand over byte counts: once per weight shard its `InitProgressReport` says
 * `Fetching param cache[3/22]: 512MB fetched. 13% completed, 40 secs elapsed. …` with `progress` =
 * fetched / total bytes. So the MB figure is the bytes loaded (to 1 MB), the total is that over
 * `progress`, and the speed is measured here on the page's clock. Between two shards the engine
 * worker repeats the last report with the bytes received so far (`receivedBytes`), so the bar moves
 * and the speed is the network's. Before the first shard (`progress` 0) the total is unknown, and
 * an estimate the caller gives is shown as one.
 */
import { catalogEntry } from '../catalog';
import type { LoadProgress } from '../engine/types';
import type { DownloadProgress } from './gguf-download';

/** A web-llm download as the progress UI shows it. */
export interface WebLlmDownload extends DownloadProgress {
  /** The total is the caller's estimate, not web-llm's figure. */
  estimated: boolean;
}

const MB = 2 ** 20;
// web-llm's own strings (lib/index.js, fetchTensorCacheInternal): one per shard downloaded.
const FETCHING = /^Fetching param cache\[\d+\/\d+\]: (\d+)MB fetched\./;
const STARTING = /^Start to fetch params/;

/**
 * What a report says about the bytes, or null for a report that is not about the download (the
 * config and wasm, loading cached shards onto the GPU): those keep web-llm's own text.
 *
 * @example
 * parseWebLlmReport({ progress: 0.25, text: 'Fetching param cache[1/4]: 100MB fetched. 25% completed, 3 secs elapsed.' });
 * // { loaded: 104857600, total: 419430400 }
 */
export function parseWebLlmReport(p: LoadProgress): { loaded: number; total: number | null } | null {
  if (STARTING.test(p.text)) return { loaded: 0, total: null };
  const hit = FETCHING.exec(p.text);
  if (!hit) return null;
  const loaded = Number(hit[1]) * MB;
  const fraction = Number.isFinite(p.progress) ? p.progress : 0;
  // web-llm rounds MB up: never report more loaded than the total it implies.
  const total = fraction > 0 ? Math.max(loaded, Math.round(loaded / Math.min(1, fraction))) : null;
  return { loaded, total };
}

/**
 * A meter for one load: feed it every report, get the download's figures or null.
 * `estimatedBytes` (e.g. from the catalog's `vramRequiredMB`) stands in for the total until web-llm's first shard.
 *
 * @example
 * const meter = webLlmDownloadMeter({ estimatedBytes: 900 * 2 ** 20 });
 * await intab.loadModel(id, (p) => { const d = meter(p); if (d) bar.value = d.loaded / (d.total ?? 1); });
 */
export function webLlmDownloadMeter(
  opts: { estimatedBytes?: number | null; now?: () => number } = {},
): (p: LoadProgress) => WebLlmDownload | null {
  const now = opts.now ?? (() => performance.now());
  let start: { at: number; loaded: number; received: number } | null = null;
  let shown = 0;
  return (p) => {
    const parsed = parseWebLlmReport(p);
    if (!parsed) return null;
    const at = now();
    const received = p.receivedBytes ?? null;
    start ??= { at, loaded: parsed.loaded, received: received ?? 0 };
    // The network's bytes move between web-llm's per-shard figures; its figure counts shards found
    // in the cache too. The larger of the two, never going back, and never past the total.
    const net = received === null ? 0 : Math.max(0, received - start.received);
    const estimate = opts.estimatedBytes && opts.estimatedBytes > 0 ? opts.estimatedBytes : null;
    const estimated = parsed.total === null && estimate !== null;
    const total = parsed.total ?? (estimated ? (estimate as number) : null);
    shown = Math.max(shown, parsed.loaded, net);
    if (total !== null) shown = Math.min(shown, Math.max(total, parsed.loaded));
    const seconds = (at - start.at) / 1000;
    const moved = received === null ? Math.max(0, parsed.loaded - start.loaded) : net;
    const bytesPerSecond = seconds > 0 ? moved / seconds : 0;
    return {
      loaded: shown,
      total: total === null ? null : Math.max(total, shown),
      bytesPerSecond,
      estimated,
    };
  };
}

/**
 * A stand-in total for a catalog model before web-llm's first shard: its download size where the
 * catalog has one, else its GPU memory need (web-llm's `vram_required_MB`, weights plus cache, so
 * on the high side); null for a model outside the catalog. Shown labelled as an estimate.
 *
 * @example
 * estimatedDownloadBytes('Qwen3-0.6B-q4f16_1-MLC'); // ≈ 1.4 GB
 */
export function estimatedDownloadBytes(id: string): number | null {
  const entry = catalogEntry(id);
  if (!entry) return null;
  return entry.downloadBytes ?? (entry.vramRequiredMB ? entry.vramRequiredMB * MB : null);
}
