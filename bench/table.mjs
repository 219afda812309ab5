/** The table `npm run bench` prints (bench/run.mjs). */

/**
 * The printed table of `npm run bench`: one row per figure, its median, p90, target and verdict.
 *
 * @example
 * console.log(table(results));
 */
export function table(r) {
  const rows = [
    ['sse_per_token_overhead_us', r.sse_per_token_overhead_us, 'µs', '<= 20'],
    ['transport_floor_per_token_us', r.transport_floor_per_token_us, 'µs', '(floor)'],
    ['first_event_overhead_ms', r.first_event_overhead_ms, 'ms', '<= 5'],
    ['cold_start_ms', r.cold_start_ms, 'ms', '<= 150'],
    ['json_request_overhead_ms', r.json_request_overhead_ms, 'ms', ''],
    ['idb_transactions_per_1k_tokens', r.idb_transactions_per_1k_tokens, '', '<= 5'],
    ['store_overhead_pct', r.store_overhead_pct, '%', '<= 5'],
    ['concurrent_streams: total', r.concurrent_streams?.total_ms, 'ms', '8 correct'],
    ['concurrent_streams: tokens/s per stream', r.concurrent_streams?.per_stream_tokens_per_s, '', ''],
    ['worker_heap_growth_mb_per_100k_tokens', r.worker_heap_growth_mb_per_100k_tokens, 'MB', '<= 32'],
    ['max_event_loop_block_ms', r.max_event_loop_block_ms, 'ms', '<= 50'],
    ['scripted_page_js_kb', r.scripted_page_js_kb, 'kB', '<= 300'],
    ['vector_scan_ms 10k × 384', r.vector_scan_ms?.['10k_x_384'], 'ms', '<= 20'],
    ['vector_scan_ms 10k × 768', r.vector_scan_ms?.['10k_x_768'], 'ms', '<= 50'],
    ['vector_scan_ms 100k × 384', r.vector_scan_ms?.['100k_x_384'], 'ms', ''],
    ['vector_scan_ms 100k × 768', r.vector_scan_ms?.['100k_x_768'], 'ms', ''],
    ['ingest_ms_per_mb (scripted)', r.ingest_ms_per_mb, 'ms', ''],
    ['ingest_ms_per_mb (scripted, Chromium, from upload)', r.ingest_ms_per_mb_in_chromium, 'ms', ''],
    ['pdf_text_ms_per_page', r.pdf_text_ms_per_page, 'ms', ''],
    ['file_search_turn_ms (10k chunks)', r.file_search_turn_ms, 'ms', '<= 50'],
    ['vector_scan_int8_ms 100k × 384', r.vector_scan_int8_ms?.['100k_x_384'], 'ms', ''],
    ['vector_scan_int8_ms 100k × 768', r.vector_scan_int8_ms?.['100k_x_768'], 'ms', ''],
    [
      'wllama_intab_vs_direct (decode tok/s ratio)',
      r.wllama_intab_vs_direct && { ...r.wllama_intab_vs_direct, p90: '' },
      '',
      '>= 0.97',
    ],
    [
      'wllama_first_token_overhead_ms (p75 in the p90 column)',
      firstToken(r.wllama_first_token_overhead_ms),
      'ms',
      '<= 5 or 5%',
    ],
    [
      'wllama_first_token_overhead_tiny_ms (p75)',
      firstToken(r.wllama_first_token_overhead_tiny_ms),
      'ms',
      '<= 5 or 5%',
    ],
    ['remote_vs_direct (tok/s ratio)', r.remote_vs_direct, '', '>= 0.97'],
    ['pyodide_cold_start_ms (HTTP cache, snapshot)', r.pyodide_cold_start_ms, 'ms', '<= 2500'],
    ['pyodide_cold_start_clean_ms (no snapshot)', r.pyodide_cold_start_clean_ms, 'ms', ''],
    ['pyodide_warm_call_ms', r.pyodide_warm_call_ms, 'ms', ''],
    ['pyodide_warm_call_vs_direct', r.pyodide_warm_call_vs_direct, '', '<= 1.3'],
    ['remote_first_token_overhead_ms', r.remote_first_token_overhead_ms, 'ms', '<= 5'],
    ['mcp_first_call_ms over direct (list + call)', r.mcp_first_call_ms?.over_direct, 'ms', '<= 30'],
  ]
    .filter(([, s]) => s)
    .map(([name, s, unit, target]) => [
      name,
      `${s.median} ${unit}`.trim(),
      `${s.p90} ${unit}`.trim(),
      target,
      verdict(s, target),
    ]);
  rows.unshift(['figure', 'median', 'p90', 'target', '']);
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => String(row[c]).length)));
  const line = (row) => `| ${row.map((cell, c) => String(cell).padEnd(widths[c])).join(' | ')} |`;
  const e = r.environment;
  return [
    line(rows[0]),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
    '',
    `Chromium ${e.chromium}, ${e.cpus} CPUs (${e.cpu_model}), ${e.date}, commit ${e.git_commit?.slice(0, 10)}${e.git_dirty ? ' (dirty)' : ''}, ${e.bench_seconds} s`,
  ].join('\n');
}

/** A first-token figure's row: its p75 where others show p90 (they have none). */
function firstToken(s) {
  return s && { ...s, p90: s.p75 ?? '' };
}

function verdict(s, target) {
  // Within 5 ms, or within 5% of the direct first token (issue 23's "5 ms (or 5%)").
  if (target === '<= 5 or 5%') return s.median <= 5 || s.pct_of_direct <= 5 ? 'ok' : 'MISSED';
  const m = /^(<=|>=) ([\d.]+)$/.exec(target);
  if (!m) return '';
  const ok = m[1] === '<=' ? s.median <= Number(m[2]) : s.median >= Number(m[2]);
  return ok ? 'ok' : 'MISSED';
}
