/**
 * Every bound of the hosted tool loop, in one place: how many engine passes a response runs, what
 * one `file_search` call may ask and return, how deep its filters nest, and what room the model
 * keeps for its answer once tool results are in its context.
 */

/**
 * The most engine passes one response runs: each pass after the first follows a hosted tool's
 * result. The last pass is offered no hosted tool, so it has to answer (or call a client function).
 * A bound on the loop whatever the model does, as `max_tool_calls` and `max_output_tokens` are.
 */
export const MAX_ENGINE_PASSES = 8;

/**
 * `file_search`'s `max_num_results` when the tool leaves it out. The `openai` package documents 20
 * for the Assistants file_search tool ("The default is 20 for `gpt-4*` models and 5 for
 * `gpt-3.5-turbo`", `resources/beta/assistants.d.ts`); the Responses `FileSearchTool` states no
 * default, so intab uses the same 20.
 */
export const DEFAULT_FILE_SEARCH_RESULTS = 20;

/** The most queries one `file_search` call runs; more are dropped (the model-facing schema says so too). */
export const MAX_FILE_SEARCH_QUERIES = 5;

/**
 * The longest query the model-facing `file_search` schema allows (`maxLength`): a grammar-held call
 * (llama.cpp) then always closes its strings, so a model that babbles cannot spend the whole
 * `max_output_tokens` inside one query and lose the call.
 */
export const MAX_FILE_SEARCH_QUERY_CHARS = 128;

/** How deep `filters` may nest `and`/`or`: deeper is a 400, never a deep recursion. */
export const MAX_FILTER_DEPTH = 8;

/** Room kept for the model's answer when tool results are fitted into its context: this many tokens, or an eighth of a smaller window. */
export const ANSWER_RESERVE_TOKENS = 256;

/**
 * The longest one request to a remote MCP server may take (`initialize`, `tools/list`, one
 * `tools/call`, each HTTP exchange with its body): past it the fetch is aborted and the list fails
 * (424) or the call ends `failed` with an `http_error`. A hanging server cannot hold a response.
 */
export const MCP_REQUEST_TIMEOUT_MS = 30_000;

/**
 * The longest listing a response's MCP servers may take in all: opening each, and every page of its
 * `tools/list` (issue 38 §3.6: 64 pages of just under {@link MCP_REQUEST_TIMEOUT_MS} each held a
 * response for half an hour). Past it the request is a 424 saying the listing timed out. The user
 * waits this long for a response that has not started, so it is no longer than one exchange may
 * take (issue 43: 60 s held a slowly paging server's response past a client's 45 s). Each call of a
 * run is bounded on its own by {@link MCP_REQUEST_TIMEOUT_MS}.
 */
export const MCP_LIST_DEADLINE_MS = 30_000;

/** The most bytes one answer of an MCP server may carry; a longer body is cut off and the exchange fails. */
export const MCP_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The most tools one `mcp_list_tools` keeps (and offers the model); a server listing more is cut here. */
export const MCP_MAX_LISTED_TOOLS = 128;

/** The most characters of one `mcp_call`'s output kept in its item and shown to the model. */
export const MCP_MAX_OUTPUT_CHARS = 256 * 1024;
