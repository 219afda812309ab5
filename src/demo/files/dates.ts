/**
 * Dates the demo's lists show: the API's Unix seconds as the visitor's local date and time.
 *
 * @example
 * shortDate(1_700_000_000); // "14 Nov 2023, 22:13" (in the visitor's locale and zone)
 */
export function shortDate(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
