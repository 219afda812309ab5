/**
 * The smallest intab app: `startIntab()` and one `scripted` request. The bench counts the JavaScript
 * its load fetches, which must not include any real engine's chunk.
 */
import { startIntab } from '../src/client';

const intab = startIntab();
(window as unknown as { scriptedDone: Promise<string> }).scriptedDone = intab.ready.then(async () => {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', input: 'hello' }),
  });
  return (await res.json()).output[0].content[0].text as string;
});
