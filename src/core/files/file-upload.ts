import type { FilePurpose } from 'openai/resources/files';
import { clip, invalidRequest } from '../../common/api-error';
import { readBodyCapped } from '../http/capped-read';
import { mimeOfName } from './file-types';

/** The `purpose` values `client.files.create` may send (the SDK's `FilePurpose`). */
export const FILE_PURPOSES: readonly FilePurpose[] = [
  'assistants',
  'batch',
  'fine-tune',
  'vision',
  'user_data',
  'evals',
];

/** The budgets of an upload, in one place. */
export const FILE_BUDGETS = {
  /** `expires_after.seconds` bounds, as the SDK documents them: 1 hour to 30 days. */
  minExpirySeconds: 3600,
  maxExpirySeconds: 2_592_000,
  /** "By default, files with `purpose=batch` expire after 30 days" (the SDK's doc comment). */
  batchExpirySeconds: 2_592_000,
  /** The longest file name kept; a longer one is a 400 on `file`. */
  maxFilenameChars: 1024,
  /** `GET /v1/files`' `limit`: OpenAI's range is 1–10,000, and its default is the most. */
  maxListLimit: 10_000,
} as const;

/** A validated upload, ready to store. */
export interface Upload {
  bytes: Uint8Array;
  filename: string;
  mimeType: string;
  purpose: FilePurpose;
  /** Seconds after `created_at` the file expires; null = kept until deleted. */
  expiresAfterSeconds: number | null;
}

/** The form fields `POST /v1/files` reads; the SDK encodes `expires_after` as bracketed keys. */
const FIELDS = new Set(['file', 'purpose', 'expires_after[anchor]', 'expires_after[seconds]']);

/**
 * Reads `POST /v1/files`'s multipart body, capped at `maxBytes` before it is parsed (413 past it),
 * and validates it to OpenAI's 400s: `file` a file part, `purpose` one of {@link FILE_PURPOSES},
 * `expires_after[anchor]` `created_at` with `expires_after[seconds]` 3600–2592000.
 *
 * @example
 * const upload = await readUpload(request, DEFAULT_MAX_BODY_BYTES);
 */
export async function readUpload(request: Request, maxBytes: number): Promise<Upload> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw invalidRequest(
      null,
      `Invalid Content-Type header (${clip(type || 'none')}), expected multipart/form-data. (HINT: If you're using curl, you can pass -F 'file=@<path>' instead of -d.)`,
    );
  }
  const body = await readBodyCapped(request, maxBytes);
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': type } }).formData();
  } catch {
    throw invalidRequest(null, 'The multipart/form-data body could not be parsed.');
  }
  const fields = new Map<string, FormDataEntryValue>();
  for (const [name, value] of form) {
    if (!FIELDS.has(name))
      throw invalidRequest(name, `Unrecognized request argument supplied: ${clip(name)}`);
    if (fields.has(name)) throw invalidRequest(name, `Duplicate parameter: '${clip(name)}' was sent twice.`);
    fields.set(name, value);
  }
  const file = fields.get('file');
  if (file === undefined)
    throw invalidRequest('file', "Missing required parameter: 'file'.", 'missing_required_parameter');
  if (typeof file === 'string') {
    throw invalidRequest(
      'file',
      "Invalid 'file': expected a file part (a file upload), got a string.",
      'invalid_type',
    );
  }
  const filename = file.name || 'upload';
  if (filename.length > FILE_BUDGETS.maxFilenameChars) {
    throw invalidRequest(
      'file',
      `Invalid 'file': the file name is ${filename.length} characters long, above the limit of ${FILE_BUDGETS.maxFilenameChars}.`,
      'invalid_value',
    );
  }
  const purpose = readPurpose(fields.get('purpose'));
  return {
    bytes: new Uint8Array(await file.arrayBuffer()),
    filename,
    mimeType: declaredType(file.type) ?? mimeOfName(filename) ?? 'application/octet-stream',
    purpose,
    expiresAfterSeconds: readExpiry(fields, purpose),
  };
}

function declaredType(type: string): string | undefined {
  const bare = type.split(';')[0]?.trim().toLowerCase();
  return bare && bare !== 'application/octet-stream' ? type : undefined;
}

function readPurpose(raw: FormDataEntryValue | undefined): FilePurpose {
  if (raw === undefined) {
    throw invalidRequest('purpose', "Missing required parameter: 'purpose'.", 'missing_required_parameter');
  }
  if (typeof raw !== 'string' || !(FILE_PURPOSES as readonly string[]).includes(raw)) {
    const shown = typeof raw === 'string' ? clip(raw) : 'a file';
    throw invalidRequest(
      'purpose',
      `Invalid value for 'purpose': '${shown}'. Supported values are: ${FILE_PURPOSES.map((p) => `'${p}'`).join(', ')}.`,
      'invalid_value',
    );
  }
  return raw as FilePurpose;
}

function readExpiry(fields: Map<string, FormDataEntryValue>, purpose: FilePurpose): number | null {
  const anchor = fields.get('expires_after[anchor]');
  const seconds = fields.get('expires_after[seconds]');
  if (anchor === undefined && seconds === undefined) {
    return purpose === 'batch' ? FILE_BUDGETS.batchExpirySeconds : null;
  }
  if (anchor === undefined) {
    throw invalidRequest(
      'expires_after.anchor',
      "Missing required parameter: 'expires_after.anchor'.",
      'missing_required_parameter',
    );
  }
  if (anchor !== 'created_at') {
    const shown = typeof anchor === 'string' ? clip(anchor) : 'a file';
    throw invalidRequest(
      'expires_after.anchor',
      `Invalid value for 'expires_after.anchor': '${shown}'. Supported values are: 'created_at'.`,
      'invalid_value',
    );
  }
  if (seconds === undefined) {
    throw invalidRequest(
      'expires_after.seconds',
      "Missing required parameter: 'expires_after.seconds'.",
      'missing_required_parameter',
    );
  }
  const n = typeof seconds === 'string' && /^\d+$/.test(seconds.trim()) ? Number(seconds) : Number.NaN;
  const { minExpirySeconds: min, maxExpirySeconds: max } = FILE_BUDGETS;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const shown = typeof seconds === 'string' ? clip(seconds) : 'a file';
    throw invalidRequest(
      'expires_after.seconds',
      `Invalid 'expires_after.seconds': expected an integer between ${min} and ${max} (1 hour to 30 days), but got '${shown}'.`,
      'invalid_value',
    );
  }
  return n;
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A file id as OpenAI writes them: `file-` and 24 random letters and digits (OpenAI's are 22–24).
 *
 * @example
 * newFileId() // → 'file-BK7bzQj3FfZFXr7DbL6xJwfo'
 */
export function newFileId(): string {
  let id = 'file-';
  while (id.length < 'file-'.length + 24) {
    const bytes = new Uint8Array(32);
    crypto.getRandomValues(bytes);
    // 248 = 4 × 62: bytes at or above it would make the first letters likelier, so they are skipped.
    for (const b of bytes) if (b < 248 && id.length < 29) id += ID_ALPHABET[b % 62];
  }
  return id;
}
