import { invalidRequest } from '../../common/api-error';
import { pace, yieldTurn } from '../../common/pace';
import { jsonDepthExceedsPaced, MAX_JSON_DEPTH } from '../validation/json-depth';
import { readBodyCapped } from './capped-read';

/** A JSON response with OpenAI's content type. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

const INVALID_JSON =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";

const TOO_DEEP = `The JSON body of your request is nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and arrays are allowed.`;

/**
 * Reads a JSON object body with a size cap. Oversized bodies get 413 before they are parsed, bodies
 * nested deeper than {@link MAX_JSON_DEPTH} a 400 (nothing downstream then meets a deeper value), and
 * anything but a JSON object gets OpenAI's invalid-JSON error.
 *
 * @example
 * const body = await readJsonObject(request, DEFAULT_MAX_BODY_BYTES);
 */
export async function readJsonObject(request: Request, maxBytes: number): Promise<Record<string, unknown>> {
  const bytes = await readBodyCapped(request, maxBytes);
  const text = await decodePaced(bytes);
  if (await jsonDepthExceedsPaced(text)) throw invalidRequest(null, TOO_DEEP);
  // Parsing megabytes is one step that cannot be sliced (~25 ms for 16 MiB): it gets a turn of its own.
  if (text.length > DECODE_SLICE) await yieldTurn();
  else await pace();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidRequest(null, INVALID_JSON);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalidRequest(null, INVALID_JSON);
  return parsed as Record<string, unknown>;
}

/** Bytes decoded between two chances to yield (a millisecond or so). */
const DECODE_SLICE = 1 << 20;

/**
 * UTF-8 `bytes` as text, decoded as a stream in slices with {@link pace} between them: the same
 * text as one `decode` (a character split between slices is carried over), but a body near the
 * 16 MiB cap is not one long step of the worker every tab shares.
 */
async function decodePaced(bytes: Uint8Array): Promise<string> {
  const decoder = new TextDecoder();
  if (bytes.byteLength <= DECODE_SLICE) return decoder.decode(bytes);
  // Receiving and copying a body this big already took the turn a while, unseen by pace().
  await yieldTurn();
  const parts: string[] = [];
  for (let at = 0; at < bytes.byteLength; at += DECODE_SLICE) {
    await pace();
    parts.push(decoder.decode(bytes.subarray(at, at + DECODE_SLICE), { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}
