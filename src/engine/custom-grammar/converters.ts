/**
 * The grammar converters of `custom` tools, one chunk of their own: the first request that declares
 * a custom tool loads it (load-converters.ts), so a page that never does stays without them.
 */
export { larkInputPattern } from './lark-regex';
export { regexInputPattern } from './regex-definition';
