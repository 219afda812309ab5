/**
 * This process's CPU time in milliseconds (user and system, every thread): what a piece of work
 * costs, whatever else the machine runs. Tests that bound a cost read it instead of the wall clock
 * (issue 38: on a machine loaded by other processes, wall-clock bounds failed while the work was
 * unchanged: a fixed job measured 2.58 s of CPU idle and 2.66 s beside four busy loops, its wall time
 * 8.7 s and 41 s). Only a difference of two readings means anything.
 *
 * @example
 * const start = cpuNow();
 * await schemaInstancePaced(schema);
 * expect(cpuNow() - start).toBeLessThan(100);
 */
export function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
