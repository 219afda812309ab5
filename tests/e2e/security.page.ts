/**
 * Page-side scripts for the security test, run through `page.evaluate` (self-contained, plain JSON
 * in and out): an attack from another site's page, and the app's own calls that must keep working.
 */

/**
 * Runs in the other site's page: builds a `<form method=post>` aimed at the app and submits it, as
 * any site the user visits could. With `text/plain` the one field's name and value join as
 * `name=value`, which is enough to smuggle a JSON body.
 */
export function submitForm(args: { action: string; enctype: string; name: string; value: string }): void {
  const form = document.createElement('form');
  form.method = 'post';
  form.action = args.action;
  form.enctype = args.enctype;
  const field = document.createElement('input');
  field.type = 'hidden';
  field.name = args.name;
  field.value = args.value;
  form.append(field);
  document.body.append(form);
  form.submit();
}

/** Runs in the app's page: the ids of the stored responses, as the storage view lists them. */
export async function storedResponseIds(): Promise<string[]> {
  const res = await fetch('/v1/intab/storage?limit=100');
  const body = (await res.json()) as { responses: { id: string }[] };
  return body.responses.map((r) => r.id);
}

/** Runs in the app's page: POSTs `bytes` bytes (made here, not sent through CDP) with no content type. */
export async function postOversized(bytes: number): Promise<{ status: number; body: unknown }> {
  const res = await fetch('/v1/responses', { method: 'POST', body: new Uint8Array(bytes).fill(0x20) });
  return { status: res.status, body: await res.json() };
}
