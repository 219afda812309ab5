/**
 * The Files API and the Vector Stores API joined (issue 22): uploads indexed through the SDK's
 * `fileBatches.uploadAndPoll`, a PDF's text layer indexed page by page, and a deleted file taken
 * out of every vector store that held it.
 */
import { NotFoundError, toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/pdf';
import { makeRig } from '../helpers/server';

const FAST = { pollIntervalMs: 5 };
const text = (s: string) => new TextEncoder().encode(s);

describe('files in vector stores', () => {
  it('fileBatches.uploadAndPoll uploads through /v1/files and indexes every file', async () => {
    const { client } = makeRig();
    const vs = await client.vectorStores.create({ name: 'notes' });
    const batch = await client.vectorStores.fileBatches.uploadAndPoll(
      vs.id,
      {
        files: [
          await toFile(text('Otters hold hands while they sleep in kelp.'), 'otters.txt'),
          await toFile(text('Sourdough needs a starter fed with flour and water.'), 'bread.txt'),
        ],
      },
      FAST,
    );
    expect(batch.status).toBe('completed');
    expect(batch.file_counts).toMatchObject({ completed: 2, failed: 0, total: 2 });
    const uploaded = await client.files.list();
    expect(uploaded.data.map((f) => f.filename).sort()).toEqual(['bread.txt', 'otters.txt']);
    const page = await client.vectorStores.search(vs.id, { query: 'otters sleep kelp' });
    expect(page.data[0]?.filename).toBe('otters.txt');
  });

  it('a PDF is indexed from its text layer; a scanned one fails unsupported_file', async () => {
    const { client } = makeRig();
    const pdf = await client.files.create({
      file: await toFile(makePdf(['Volcanoes vent magma', 'Glaciers carve valleys']), 'geo.pdf', {
        type: 'application/pdf',
      }),
      purpose: 'assistants',
    });
    const scanned = await client.files.create({
      file: await toFile(makePdf([null]), 'scan.pdf', { type: 'application/pdf' }),
      purpose: 'assistants',
    });
    const vs = await client.vectorStores.create({ name: 'geo' });
    const ok = await client.vectorStores.files.createAndPoll(vs.id, { file_id: pdf.id }, FAST);
    expect(ok.status).toBe('completed');
    const bad = await client.vectorStores.files.createAndPoll(vs.id, { file_id: scanned.id }, FAST);
    expect(bad.status).toBe('failed');
    expect(bad.last_error?.code).toBe('unsupported_file');
    const page = await client.vectorStores.search(vs.id, { query: 'glaciers valleys' });
    expect(page.data[0]?.file_id).toBe(pdf.id);
    expect(page.data[0]?.content[0]?.text).toContain('Glaciers carve valleys');
  });

  it('deleting a file removes it from every vector store that held it', async () => {
    const { client } = makeRig();
    const file = await client.files.create({
      file: await toFile(text('Comets grow tails near the sun.'), 'comets.txt'),
      purpose: 'assistants',
    });
    const keep = await client.files.create({
      file: await toFile(text('Moons circle planets.'), 'moons.txt'),
      purpose: 'assistants',
    });
    const a = await client.vectorStores.create({ name: 'a', file_ids: [file.id, keep.id] });
    const b = await client.vectorStores.create({ name: 'b', file_ids: [file.id] });
    for (const vs of [a, b]) {
      for (const id of vs.id === a.id ? [file.id, keep.id] : [file.id]) {
        await client.vectorStores.files.poll(vs.id, id, FAST);
      }
    }
    await client.files.delete(file.id);
    for (const vs of [a, b]) {
      await expect(
        client.vectorStores.files.retrieve(file.id, { vector_store_id: vs.id }),
      ).rejects.toBeInstanceOf(NotFoundError);
      const hits = await client.vectorStores.search(vs.id, { query: 'comets tails sun' });
      expect(hits.data.map((h) => h.file_id)).not.toContain(file.id);
    }
    expect((await client.vectorStores.retrieve(a.id)).file_counts).toMatchObject({ completed: 1, total: 1 });
    expect((await client.vectorStores.retrieve(b.id)).file_counts).toMatchObject({ total: 0 });
  });

  it('file_search in responses.create searches the built-in vector stores and cites the file', async () => {
    const { client } = makeRig();
    const vs = await client.vectorStores.create({ name: 'zoo' });
    await client.vectorStores.fileBatches.uploadAndPoll(
      vs.id,
      {
        files: [
          await toFile(
            text('Penguins huddle together to keep warm in the Antarctic winter.'),
            'penguins.txt',
          ),
          await toFile(text('Camels store fat in their humps for long desert walks.'), 'camels.txt'),
        ],
      },
      FAST,
    );
    const res = await client.responses.create({
      model: 'scripted',
      input: '!file_search penguins huddle warm',
      tools: [{ type: 'file_search', vector_store_ids: [vs.id], max_num_results: 1 }],
      include: ['file_search_call.results'],
    });
    const call = res.output.find((o) => o.type === 'file_search_call');
    expect(call?.status).toBe('completed');
    expect(call?.results?.map((r) => r.filename)).toEqual(['penguins.txt']);
    const message = res.output.find((o) => o.type === 'message');
    const part = message?.type === 'message' ? message.content[0] : undefined;
    const cited = part?.type === 'output_text' ? part.annotations : [];
    expect(cited.map((a) => (a.type === 'file_citation' ? a.filename : a.type))).toContain('penguins.txt');
  });
});
