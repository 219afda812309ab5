/** Why a child failed: past its bound (killed), or its own exit. */
export function stalled(err: unknown, ms: number): string {
  const e = err as { code?: string; status?: number | null; message?: string };
  if (e.code === 'ETIMEDOUT') return `it ran past ${ms / 60_000} minutes and was stopped`;
  return e.status != null ? `exit code ${e.status}` : (e.message ?? String(err));
}
