/**
 * The demo page. Loading it installs the runtime (service worker + engine worker); after that, the page
 * is just an ordinary app using the official `openai` SDK against `location.origin + '/v1'`.
 */
import OpenAI from 'openai';
import { type IntabClient, startIntab } from '../client';
import { createCatalogPanel, outsideCatalog } from './catalog-panel';
import { ChatSession } from './chat-session';
import { createChatView } from './chat-view';
import { byId, el, errorMessage } from './dom';
import { createFilesPanel } from './files';
import { showGpuStatus } from './gpu-status';
import { createHints } from './hints';
import { createToolsForm } from './hosted';
import { createModelPicker, listModelIds } from './model-picker';
import { createRemoteForm } from './remote-form';
import { replyCap } from './reply-cap';
import { createStoragePanel, rememberedResponse, restoreChat } from './stored';
import { estimatedDownloadBytes } from './webllm-progress';
import './style.css';

declare global {
  interface Window {
    /** The SDK class, for end-to-end tests and for visitors trying the API from the console. */
    OpenAI: typeof OpenAI;
    /** The runtime's handle (`loadModel`, `cancelLoad`…), for the console and end-to-end tests. */
    intab: IntabClient;
  }
}

/** Set by the demo's Vite config: where the tiny test GGUF is served, when it has been built. */
declare const __INTAB_TEST_MODEL__: string | null;
const TEST_MODEL_ID = 'tiny-random';
const testModel = typeof __INTAB_TEST_MODEL__ === 'string' ? __INTAB_TEST_MODEL__ : null;

// First thing: a visitor's first load must install the runtime even if the UI below throws.
const intab = startIntab({
  ...(testModel ? { wllama: { models: [{ id: TEST_MODEL_ID, url: testModel, contextSize: 2048 }] } } : {}),
  // The demo's vector stores embed with `scripted`'s hashed bag of words: no download and no WebGPU,
  // so file_search works in any browser. An app names a real embedding model here.
  fileSearch: { embeddingModel: 'scripted' },
});
window.OpenAI = OpenAI;
window.intab = intab;

// The key is never checked in-tab; the SDK just refuses to run without one.
const client = new OpenAI({
  baseURL: `${location.origin}/v1`,
  apiKey: 'intab-local',
  dangerouslyAllowBrowser: true,
  // A local runtime's errors are final; retrying them only delays the message.
  maxRetries: 0,
});

const runtimeStatus = el('p', {
  className: 'status',
  text: 'Runtime: starting…',
  attrs: { role: 'status', 'data-testid': 'runtime-status' },
});
const gpuStatus = el('p', { className: 'status', attrs: { 'data-testid': 'gpu-status' } });

const picker = createModelPicker(intab, {
  labels: { [TEST_MODEL_ID]: 'tiny random model (real llama.cpp, gibberish output)' },
  refresh: async () => outsideCatalog(await listModelIds(client)),
  estimatedBytes: estimatedDownloadBytes,
});
// The catalog's models (web-llm's builds, curated GGUFs) are chosen in their own panel, by family.
const catalog = createCatalogPanel(intab, client, picker);
const tools = createToolsForm();
// file_search runs only on the store the visitor picks there, never on every store of the origin.
const files = createFilesPanel(client, () => void storage.refresh());
// The handlers only run after a click, by which time `session` exists.
const chat = createChatView({
  // A finished turn is stored (completed, cancelled or failed): the storage panel shows it at once.
  send: (text, instructions) => void session.send(text, instructions).then(() => storage.refresh()),
  stop: () => session.stop(),
  newChat: () => session.reset(),
});
// Replies of real models are capped (reply-cap.ts): the random test model's at 48 tokens.
const session = new ChatSession(
  client,
  chat,
  () => picker.model,
  (model) => replyCap(model, TEST_MODEL_ID),
  async () => files.pickedStores(),
  () => tools.current(),
);
const storage = createStoragePanel(client, (id) => void openChat(id));

/** Shows the stored chat that ends with response `id` and continues it (a reload, or Open in the storage panel). */
async function openChat(id: string): Promise<void> {
  try {
    if (await restoreChat(client, chat, id)) session.continueFrom(id);
  } catch (err) {
    chat.addError(`Could not restore the chat: ${errorMessage(err)}`);
  }
}

byId('app').replaceChildren(
  el('header', { className: 'masthead' }, [
    el('h1', { text: 'intab' }),
    el('p', {
      className: 'tagline',
      text: "OpenAI's Responses API, answered inside this tab by a local model. Nothing leaves your browser.",
    }),
    el('div', { className: 'statuses' }, [runtimeStatus, gpuStatus]),
  ]),
  el('div', { className: 'layout' }, [
    el('div', { className: 'main-column' }, [
      el('section', { className: 'panel' }, [picker.root]),
      el('section', { className: 'panel' }, [
        createRemoteForm(intab, async () => picker.setModels(await listModelIds(client))),
      ]),
      tools.root,
      chat.root,
      files.root,
      el('div', { className: 'panel' }, [catalog.root]),
    ]),
    el('aside', { className: 'side-column' }, [
      createHints((text) => chat.setDraft(text)),
      storage.root,
      el('section', { className: 'panel console-hint', attrs: { 'aria-labelledby': 'console-title' } }, [
        el('h2', { text: 'From the console', attrs: { id: 'console-title' } }),
        el('pre', {}, [
          el('code', {
            text: [
              'const client = new OpenAI({',
              "  baseURL: location.origin + '/v1',",
              "  apiKey: 'x',",
              '  dangerouslyAllowBrowser: true,',
              '});',
              'await client.responses.create({',
              "  model: 'scripted',",
              "  input: 'hi',",
              '});',
            ].join('\n'),
          }),
        ]),
      ]),
    ]),
  ]),
);

void showGpuStatus(intab, gpuStatus);

intab.ready.then(
  async () => {
    runtimeStatus.textContent = 'Runtime: ready';
    runtimeStatus.classList.add('is-ok');
    chat.setReady(true);
    void storage.refresh();
    void files.refresh();
    // The chat of the last visit, read back from the store.
    const last = rememberedResponse();
    if (last) void openChat(last);
    try {
      // `ready` waits for web-llm's model list (bounded), so one look finds every model there is.
      picker.setModels(outsideCatalog(await listModelIds(client)));
      await catalog.refresh();
    } catch (err) {
      // The chat still works with `scripted`; only the list of downloadable models is missing.
      runtimeStatus.textContent = `Runtime: ready (could not list models: ${errorMessage(err)})`;
    }
  },
  (err: unknown) => {
    runtimeStatus.textContent = `Runtime: failed to start — ${errorMessage(err)}`;
    runtimeStatus.classList.add('is-error');
  },
);
