/**
 * "Connect a server": adds an OpenAI-compatible server (llama-server, vLLM, Ollama, LM Studio, …)
 * at run time with `intab.addRemote`. Its models join the picker, marked remote; the chat then works
 * with them as with local ones. The key goes to the engine worker and is cleared from the field: the
 * page keeps no copy, and intab never stores it.
 */
import type { IntabClient } from '../client';
import { el, errorMessage } from './dom';

/**
 * @example
 * const form = createRemoteForm(intab, async () => picker.setModels(await listModelIds(client)));
 * panel.append(form);
 */
export function createRemoteForm(
  intab: Pick<IntabClient, 'addRemote'>,
  onConnected: () => Promise<void>,
): HTMLFormElement {
  const url = el('input', {
    attrs: {
      id: 'remote-url',
      type: 'url',
      required: true,
      placeholder: 'http://127.0.0.1:8080/v1',
      'data-testid': 'remote-url',
    },
  }) as HTMLInputElement;
  const key = el('input', {
    attrs: { id: 'remote-key', type: 'password', autocomplete: 'off', 'data-testid': 'remote-key' },
  }) as HTMLInputElement;
  const button = el('button', {
    text: 'Connect',
    attrs: { type: 'submit', 'data-testid': 'remote-connect' },
  });
  const status = el('p', {
    className: 'picker__status',
    text: 'Models too big for this device can run on a server you trust; everything else stays in this tab.',
    attrs: { 'aria-live': 'polite', 'data-testid': 'remote-status' },
  });
  const form = el('form', { className: 'picker', attrs: { 'aria-labelledby': 'remote-title' } }, [
    el('h2', { className: 'picker__status', text: 'Connect a server', attrs: { id: 'remote-title' } }),
    el('label', { className: 'picker__label', text: 'Server URL', attrs: { for: 'remote-url' } }),
    url,
    el('label', { className: 'picker__label', text: 'API key', attrs: { for: 'remote-key' } }),
    key,
    button,
    status,
  ]);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const baseURL = url.value.trim();
    const apiKey = key.value || undefined;
    button.disabled = true;
    status.classList.remove('is-error');
    status.textContent = `Connecting to ${baseURL}…`;
    void (async () => {
      try {
        const models = await intab.addRemote({ baseURL, apiKey });
        key.value = '';
        await onConnected();
        status.textContent = `Connected: ${models.map((m) => m.id).join(', ') || 'no models listed'} (remote).`;
      } catch (err) {
        status.classList.add('is-error');
        status.textContent = `Could not connect: ${errorMessage(err)}`;
      } finally {
        button.disabled = false;
      }
    })();
  });
  return form;
}
