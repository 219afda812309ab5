/**
 * Where intab's API lives: OpenAI's paths under `/v1`, and the same paths without it, which some
 * OpenAI-compatible clients send (a `baseURL` of the bare origin). The core answers both; the
 * service worker intercepts the bare ones only when the app asks (`installIntab(self, { rootAliases: true })`),
 * since `/models` or `/responses` may be the app's own pages.
 */

/** First path segments of the routes the core serves; each also answers under `/v1`. */
export const API_ROOTS = ['responses', 'chat', 'embeddings', 'models', 'conversations', 'intab'] as const;

const ROOT_ALIAS = new RegExp(`^/(${API_ROOTS.join('|')})(/|$)`);

/**
 * The route path of a request path: `/v1/responses/x` and `/responses/x` are both `/responses/x`
 * (trailing slashes dropped). Other paths come back unchanged and match no route.
 *
 * @example
 * routePath('/v1/chat/completions/') // → '/chat/completions'
 * routePath('/models')               // → '/models'
 */
export function routePath(pathname: string): string {
  // A loop, not `/\/+$/`: that regex is quadratic (100k slashes then a letter took seconds).
  let end = pathname.length;
  while (end > 0 && pathname.charCodeAt(end - 1) === 47 /* '/' */) end--;
  return pathname.slice(0, end).replace(/^\/v1(?=\/|$)/, '');
}

/**
 * Whether `pathname` is one of the core's routes without `/v1` (`/responses`, `/chat/completions`…).
 *
 * @example
 * isRootAlias('/chat/completions') // → true
 * isRootAlias('/v1/models')        // → false: the `/v1` form is no alias
 */
export function isRootAlias(pathname: string): boolean {
  return ROOT_ALIAS.test(pathname);
}

/**
 * Whether `pathname` reaches intab's API: under `/v1`, or one of its root aliases.
 *
 * @example
 * isApiPath('/v1/responses') // → true
 * isApiPath('/embeddings')   // → true
 * isApiPath('/docs/a.txt')   // → false
 */
export function isApiPath(pathname: string): boolean {
  return /^\/v1(\/|$)/.test(pathname) || isRootAlias(pathname);
}
