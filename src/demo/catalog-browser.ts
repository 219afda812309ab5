/**
 * The catalog panel of the demo's picker: the models grouped by family, one row per model with its
 * builds in a select, the size and memory of each, what fits this device (a build that cannot run
 * is a disabled option, and a model none of whose builds can run has its Load button disabled with
 * the reason beside it), the recommended model first, cached models marked, and a search box.
 * Loading goes through `choose`, which the page wires to the model picker.
 */
import type { CatalogModel, DeviceFacts } from '../catalog';
import { type BuildChoice, groupCatalog, levelText, type ModelEntry } from './catalog-groups';
import { el, errorMessage } from './dom';
import './catalog.css';

/** The handle `main.ts` uses. */
export interface CatalogBrowser {
  root: HTMLElement;
  /** Redraws with the models this runtime serves, the device's facts and the cached ids. */
  update(models: readonly CatalogModel[], facts: DeviceFacts, cached: ReadonlySet<string>): void;
}

/**
 * @example
 * const browser = createCatalogBrowser((m) => picker.choose(m.id));
 * browser.update(models, await readDeviceFacts(), new Set());
 */
export function createCatalogBrowser(choose: (model: CatalogModel) => Promise<void>): CatalogBrowser {
  let state: { models: readonly CatalogModel[]; facts: DeviceFacts; cached: ReadonlySet<string> } | null =
    null;
  let busy = false;
  const search = el('input', {
    attrs: {
      id: 'catalog-search',
      type: 'search',
      placeholder: 'qwen, 1b, q4f32, cpu…',
      'data-testid': 'catalog-search',
      'aria-controls': 'catalog-families',
    },
  }) as HTMLInputElement;
  const summary = el('p', {
    className: 'catalog__summary',
    attrs: { 'aria-live': 'polite', 'data-testid': 'catalog-summary' },
  });
  const families = el('div', { className: 'catalog__families', attrs: { id: 'catalog-families' } });
  let rowCount = 0;

  const draw = (): void => {
    if (!state) return;
    const groups = groupCatalog(state.models, state.facts, state.cached, search.value);
    rowCount = 0;
    families.replaceChildren(
      ...groups.map((g) => {
        const headingId = `family-${slug(g.family)}`;
        return el(
          'section',
          {
            className: 'catalog__family',
            attrs: { 'aria-labelledby': headingId, 'data-testid': 'catalog-family', 'data-family': g.family },
          },
          [
            el('h3', { text: g.family, attrs: { id: headingId } }),
            el('ul', { className: 'catalog__models' }, g.models.map(row)),
          ],
        );
      }),
    );
    const count = groups.reduce((n, g) => n + g.models.length, 0);
    summary.textContent =
      count === 0
        ? `No model matches “${search.value}”.`
        : `${count} ${count === 1 ? 'model' : 'models'} in ${groups.length} ${groups.length === 1 ? 'family' : 'families'}.`;
  };

  const row = (entry: ModelEntry): HTMLElement => {
    const n = rowCount++;
    const fitId = `catalog-fit-${n}`;
    const selectId = `catalog-build-${n}`;
    const select = el(
      'select',
      { attrs: { id: selectId, 'data-testid': 'catalog-build' } },
      entry.builds.map((b, i) =>
        el('option', {
          text: b.label,
          attrs: {
            value: b.model.id,
            ...(b.fit.level === 'cannot-run' ? { disabled: true } : {}),
            ...(i === entry.initial ? { selected: true } : {}),
          },
        }),
      ),
    ) as HTMLSelectElement;
    const fit = el('p', { className: 'catalog__fit', attrs: { id: fitId, 'data-testid': 'catalog-fit' } });
    const load = el('button', {
      text: 'Load',
      attrs: { type: 'button', 'data-testid': 'catalog-load', 'aria-describedby': fitId },
    }) as HTMLButtonElement;
    const current = (): BuildChoice | undefined => entry.builds.find((b) => b.model.id === select.value);
    const show = (): void => {
      const b = current() ?? entry.builds[entry.initial];
      if (!b) return;
      fit.textContent = `${capitalise(levelText(b.fit.level))}: ${b.fit.reason}`;
      fit.dataset.level = b.fit.level;
      load.disabled = busy || b.fit.level === 'cannot-run';
      load.setAttribute('aria-label', `Load ${b.model.id}`);
    };
    select.addEventListener('change', show);
    load.addEventListener('click', () => {
      const b = current();
      if (!b || b.fit.level === 'cannot-run' || busy) return;
      busy = true;
      for (const button of families.querySelectorAll('button')) (button as HTMLButtonElement).disabled = true;
      void choose(b.model)
        .catch((err: unknown) => {
          summary.textContent = `Could not load ${b.model.id}: ${errorMessage(err)}`;
        })
        .finally(() => {
          busy = false;
          draw();
        });
    });
    show();
    const params = entry.parameters ? `${formatParameters(entry.parameters)} parameters` : '';
    return el(
      'li',
      {
        className: 'catalog__model',
        attrs: { 'data-testid': 'catalog-model', 'data-model': entry.name },
      },
      [
        el('div', { className: 'catalog__head' }, [
          el('strong', { text: entry.name }),
          ...(params ? [el('span', { className: 'catalog__params', text: params })] : []),
          ...(entry.recommended
            ? [el('span', { className: 'badge badge--recommended', text: 'Recommended for this device' })]
            : []),
          ...(entry.cached ? [el('span', { className: 'badge badge--cached', text: 'Cached' })] : []),
        ]),
        ...(entry.why
          ? [el('p', { className: 'catalog__why', text: entry.why, attrs: { 'data-testid': 'catalog-why' } })]
          : []),
        el('label', { className: 'catalog__build-label', text: 'Build', attrs: { for: selectId } }),
        select,
        load,
        fit,
      ],
    );
  };

  search.addEventListener('input', draw);
  const root = el(
    'section',
    { className: 'catalog', attrs: { 'aria-labelledby': 'catalog-title', 'data-testid': 'catalog' } },
    [
      el('h2', { text: 'Models you can download', attrs: { id: 'catalog-title' } }),
      el('label', { text: 'Search models', attrs: { for: 'catalog-search' } }),
      search,
      summary,
      families,
    ],
  );
  return {
    root,
    update(models, facts, cached) {
      state = { models, facts, cached };
      draw();
    },
  };
}

/** 1.5e9 → "1.5B", 360e6 → "360M". */
function formatParameters(n: number): string {
  return n >= 1e9 ? `${Number((n / 1e9).toFixed(2))}B` : `${Math.round(n / 1e6)}M`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}
