import type { FileSearchTool } from 'openai/resources/responses/responses';
import type { ComparisonFilter, CompoundFilter } from 'openai/resources/shared';

/**
 * The seams between the Responses tool loop and the surfaces that serve hosted tools. The loop
 * (`src/core/responses/`) only knows these shapes; `src/core/vector-stores/` and `src/core/files/`
 * implement them, and the server wires one to the other. Surfaces never import each other (see
 * `tests/unit/layout.test.ts`), so the contract lives here, below both.
 */

/** Attributes as OpenAI stores them on a vector store file: at most 16 keys of string, number or boolean. */
export type FileAttributes = Record<string, string | number | boolean>;

/** One search hit, as `file_search_call.results[]` carries it and as the model is shown it. */
export interface FileSearchHit {
  file_id: string;
  filename: string;
  /** In [0, 1], higher is closer. */
  score: number;
  text: string;
  attributes: FileAttributes | null;
}

/** What the loop asks of the vector stores for one `file_search` call. */
export interface FileSearchQuery {
  vectorStoreIds: string[];
  /** The model's queries; hits of all of them are merged, best first. */
  queries: string[];
  filters?: ComparisonFilter | CompoundFilter | null;
  /** 1–50; the tool's `max_num_results` or its default. */
  maxNumResults: number;
  rankingOptions?: FileSearchTool.RankingOptions;
  /** The run's signal: an aborted response stops embedding and scanning. */
  signal?: AbortSignal;
}

/** The vector stores as the `file_search` tool sees them. */
export interface FileSearchBackend {
  /** Throws a 400 ApiError whose `param` is `param` when an id names no vector store. */
  checkStores(vectorStoreIds: string[], param: string): Promise<void>;
  /** The best hits over every store and query, at most `maxNumResults`, best first. */
  search(query: FileSearchQuery): Promise<FileSearchHit[]>;
}

/** A stored file's bytes, as `input_file.file_id` / `input_image.file_id` read them. */
export interface StoredFileContent {
  id: string;
  filename: string;
  purpose: string;
  bytes: Uint8Array;
}

/**
 * Reads a file uploaded through `/v1/files`. Rejects with an OpenAI-shaped ApiError (a 400 whose
 * `param` is `param`) when no such file exists.
 */
export type FileContentReader = (fileId: string, param: string) => Promise<StoredFileContent>;
