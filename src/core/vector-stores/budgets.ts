/**
 * Every limit of the Vector Stores API and of `file_search`'s search, in one place. OpenAI's own
 * limits come from the SDK's doc comments; intab's are named here with why.
 */

/** `auto` chunking, per the SDK: "a `max_chunk_size_tokens` of 800 and `chunk_overlap_tokens` of 400". */
export const AUTO_CHUNK_TOKENS = 800;
export const AUTO_CHUNK_OVERLAP = 400;
/** `static` chunking: `max_chunk_size_tokens` 100–4096; the overlap at most half of it. */
export const MIN_CHUNK_TOKENS = 100;
export const MAX_CHUNK_TOKENS = 4096;

/**
 * Each chunk is embedded as the mean of its windows of at most this many o200k tokens. Small
 * embedding models read at most 512 of their own tokens (BERT-style word pieces, which split text
 * finer than o200k does), so the window stays below 512 with room for that difference.
 */
export const EMBED_WINDOW_TOKENS = 384;
/** Windows embedded per engine call: one call's inputs, not the whole file at once. */
export const EMBED_BATCH = 32;

/** Attributes: at most 16 keys, keys ≤ 64 characters, string values ≤ 512 characters. */
export const MAX_ATTRIBUTE_KEYS = 16;
export const MAX_ATTRIBUTE_KEY_LENGTH = 64;
export const MAX_ATTRIBUTE_STRING_LENGTH = 512;

/**
 * How deep `filters` may nest compound filters (`and`/`or`): OpenAI sets no documented bound, and
 * an unbounded one lets a request recurse as deep as its JSON nesting allows.
 */
export const MAX_FILTER_DEPTH = 8;
/** The most comparison filters one `filters` tree may hold in all. */
export const MAX_FILTER_NODES = 256;
/** The most values an `in`/`nin` filter may list. */
export const MAX_FILTER_VALUES = 256;

/** `max_num_results`: 1–50; the search endpoint's default is 10, as OpenAI's. */
export const MAX_NUM_RESULTS = 50;
export const DEFAULT_NUM_RESULTS = 10;
/** The most query strings one search takes. */
export const MAX_QUERIES = 10;
/** The longest one query may be, in characters. */
export const MAX_QUERY_CHARS = 4096;
/**
 * The distinct terms of one query that BM25 ranks by: its first 64 (later new ones are dropped, as
 * OpenAI takes long queries rather than refusing them). Each term is one step of the ranking, with
 * a chance to yield between two, so a 4,096-character query of 700 two-letter words is 64 short
 * steps, not one that held the engine 4 s on a 2,000-chunk store (issue 43).
 */
export const MAX_QUERY_TERMS = 64;

/** A file batch names at most 2000 files, per the SDK. */
export const MAX_BATCH_FILES = 2000;
/** `file_ids` on `POST /v1/vector_stores`: OpenAI takes up to 500 there. */
export const MAX_CREATE_FILE_IDS = 500;
/** `expires_after.days`: 1–365, as OpenAI's. */
export const MAX_EXPIRY_DAYS = 365;

/** Chunks scanned between two chances to yield: a slice is well under a millisecond at 768 dims. */
export const SCAN_SLICE = 1024;
/**
 * The `embedding.model` of a store built with no embedding model (none configured, none runnable
 * here): its files are chunked and searched by BM25 alone, with no download and no GPU. Also a value
 * of `fileSearch.embeddingModel`, to ask for it.
 */
export const LEXICAL_ONLY = 'lexical';
/** Reciprocal rank fusion's constant (the `k` of 1 / (k + rank)), the usual 60. */
export const RRF_K = 60;
/**
 * A store with more chunks than this keeps its vectors in worker memory as int8 (one scale per row:
 * about 4× less memory, see `Int8Rows` in vector-index.ts); smaller stores keep float32. IndexedDB holds float32 either
 * way, so the threshold can move without a migration.
 */
export const INT8_ABOVE_CHUNKS = 50_000;
/** Stores whose vectors stay in worker memory between searches (a response's tool calls reuse them). */
export const INDEX_CACHE_STORES = 8;
/** How long a poll should wait before asking again, sent as `openai-poll-after-ms` on unfinished objects. */
export const POLL_AFTER_MS = 100;
