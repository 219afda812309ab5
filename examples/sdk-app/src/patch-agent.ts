import { Agent, applyDiff, applyPatchTool, type Editor, run } from '@openai/agents';
import OpenAI from 'openai';

// The app's files, in memory here: a real app writes them to OPFS, IndexedDB or its own server.
export const files = new Map<string, string>();

// The Agents SDK runs the `apply_patch` calls the model makes with this editor, and sends each
// result back to the model; `applyDiff` is the SDK's own reader of OpenAI's V4A diff format.
const editor: Editor = {
  async createFile({ path, diff }) {
    files.set(path, applyDiff('', diff, 'create'));
    return { status: 'completed', output: `Created ${path}` };
  },
  async updateFile({ path, diff }) {
    files.set(path, applyDiff(files.get(path) ?? '', diff));
    return { status: 'completed', output: `Updated ${path}` };
  },
  async deleteFile({ path }) {
    files.delete(path);
    return { status: 'completed' };
  },
};

const coder = new Agent({
  name: 'coder',
  instructions: 'Edit the files with apply_patch.',
  model: 'scripted',
  tools: [applyPatchTool({ editor })],
});

// A `custom` tool whose input the sampler holds to a regex: whatever the model writes, the call's
// input is a version number, so the app can use it without parsing free text.
const VERSION = /^\d+\.\d+\.\d+$/;
const setVersion = {
  type: 'custom',
  name: 'set_version',
  description: 'The release version, as MAJOR.MINOR.PATCH.',
  format: { type: 'grammar', syntax: 'regex', definition: VERSION.source.slice(1, -1) },
} as const;

/**
 * The agent writes CHANGELOG.md with `apply_patch`; then the model, made to call `set_version`,
 * gives the version the app checks and puts in place of the file's `VERSION`. (`scripted` writes
 * the simplest input the regex allows, `0.0.0`; a real model writes its answer within it.)
 */
export async function releaseNotes(task: string): Promise<string> {
  await run(coder, task);
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'local',
    dangerouslyAllowBrowser: true,
  });
  const response = await client.responses.create({
    model: 'scripted',
    input: 'Which version is this release?',
    tools: [setVersion],
    tool_choice: { type: 'custom', name: 'set_version' },
  });
  const call = response.output.find((item) => item.type === 'custom_tool_call');
  if (!call || !VERSION.test(call.input)) throw new Error('The model gave no version.');
  const notes = files.get('CHANGELOG.md') ?? '';
  files.set('CHANGELOG.md', notes.replace('VERSION', call.input));
  return files.get('CHANGELOG.md') as string;
}
