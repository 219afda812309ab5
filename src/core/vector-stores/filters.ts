import type { ComparisonFilter, CompoundFilter } from 'openai/resources/shared';
import { clip, invalidRequest } from '../../common/api-error';
import type { FileAttributes } from '../hosted/contracts';
import { MAX_FILTER_DEPTH, MAX_FILTER_NODES, MAX_FILTER_VALUES } from './budgets';

/** A checked `filters` tree: comparisons at the leaves, `and`/`or` above them. */
export type AttributeFilter =
  | ComparisonFilter
  | (Omit<CompoundFilter, 'filters'> & { filters: AttributeFilter[] });

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin']);
const COMPOUNDS = new Set(['and', 'or']);

/**
 * Checks a `filters` value (a ComparisonFilter or a CompoundFilter nested at most
 * {@link MAX_FILTER_DEPTH} deep, {@link MAX_FILTER_NODES} comparisons in all) and returns it typed.
 * Anything else is a 400 whose `param` is the path of the bad field under `param`.
 *
 * @example
 * parseFilters({ type: 'and', filters: [{ key: 'year', type: 'gte', value: 2020 }] }, 'filters');
 */
export function parseFilters(raw: unknown, param: string): AttributeFilter {
  const budget = { nodes: 0 };
  return parseNode(raw, param, 1, budget);
}

function parseNode(raw: unknown, param: string, depth: number, budget: { nodes: number }): AttributeFilter {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalidRequest(param, `Invalid type for '${param}': expected an object.`, 'invalid_type');
  const node = raw as Record<string, unknown>;
  const type = node.type;
  if (typeof type === 'string' && COMPOUNDS.has(type)) {
    if (depth > MAX_FILTER_DEPTH)
      throw invalidRequest(
        param,
        `Invalid '${param}': filters nest too deeply. At most ${MAX_FILTER_DEPTH} levels of compound filters are allowed.`,
        'invalid_value',
      );
    onlyKeys(node, ['type', 'filters'], param);
    const list = node.filters;
    if (!Array.isArray(list) || list.length === 0)
      throw invalidRequest(
        `${param}.filters`,
        `Invalid '${param}.filters': expected a non-empty array of filters.`,
        'invalid_value',
      );
    const filters = list.map((f, i) => parseNode(f, `${param}.filters[${i}]`, depth + 1, budget));
    return { type: type as 'and' | 'or', filters };
  }
  if (typeof type !== 'string' || !COMPARISONS.has(type))
    throw invalidRequest(
      `${param}.type`,
      `Invalid value: ${clip(JSON.stringify(type) ?? 'undefined')}. Supported values are: 'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'and' and 'or'.`,
      'invalid_value',
    );
  if (++budget.nodes > MAX_FILTER_NODES)
    throw invalidRequest(
      param,
      `Invalid '${param}': too many filters. At most ${MAX_FILTER_NODES} comparison filters are allowed in all.`,
      'invalid_value',
    );
  onlyKeys(node, ['type', 'key', 'value'], param);
  if (typeof node.key !== 'string' || node.key === '')
    throw invalidRequest(
      `${param}.key`,
      `Invalid '${param}.key': expected a non-empty string.`,
      'invalid_type',
    );
  return {
    type: type as ComparisonFilter['type'],
    key: node.key,
    value: parseValue(node.value, type, param),
  };
}

function parseValue(value: unknown, type: string, param: string): ComparisonFilter['value'] {
  const p = `${param}.value`;
  if (type === 'in' || type === 'nin') {
    if (!Array.isArray(value) || value.length > MAX_FILTER_VALUES)
      throw invalidRequest(
        p,
        `Invalid '${p}': '${type}' takes an array of at most ${MAX_FILTER_VALUES} strings or numbers.`,
        'invalid_value',
      );
    value.forEach((v, i) => {
      if (typeof v !== 'string' && !isFiniteNumber(v))
        throw invalidRequest(
          `${p}[${i}]`,
          `Invalid '${p}[${i}]': expected a string or a number.`,
          'invalid_type',
        );
    });
    return value as (string | number)[];
  }
  if (typeof value === 'string' || typeof value === 'boolean' || isFiniteNumber(value)) return value;
  throw invalidRequest(
    p,
    `Invalid '${p}': '${type}' compares with a string, a number or a boolean.`,
    value === undefined ? 'missing_required_parameter' : 'invalid_type',
  );
}

function onlyKeys(node: Record<string, unknown>, allowed: string[], param: string): void {
  const extra = Object.keys(node).find((k) => !allowed.includes(k));
  if (extra !== undefined)
    throw invalidRequest(
      `${param}.${clip(extra)}`,
      `Unknown parameter: '${param}.${clip(extra)}'.`,
      'unknown_parameter',
    );
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/**
 * Whether a file's attributes pass `filter`. A comparison on a key the file does not have is false,
 * whatever its operator (`ne` and `nin` too): as a SQL NULL, a missing value matches nothing. Order
 * comparisons (`gt`…) hold between two numbers or two strings (by code unit), never across types.
 *
 * @example
 * matchesFilter({ year: 2024 }, { key: 'year', type: 'gte', value: 2020 }) // → true
 */
export function matchesFilter(attributes: FileAttributes | null, filter: AttributeFilter): boolean {
  if (filter.type === 'and') return filter.filters.every((f) => matchesFilter(attributes, f));
  if (filter.type === 'or') return filter.filters.some((f) => matchesFilter(attributes, f));
  const { key, value } = filter as ComparisonFilter;
  if (!attributes || !Object.hasOwn(attributes, key)) return false;
  const actual = attributes[key] as string | number | boolean;
  switch (filter.type) {
    case 'eq':
      return actual === value;
    case 'ne':
      return actual !== value;
    case 'in':
      return Array.isArray(value) && (value as unknown[]).includes(actual);
    case 'nin':
      return Array.isArray(value) && !(value as unknown[]).includes(actual);
    default:
      return ordered(actual, value, filter.type);
  }
}

function ordered(actual: unknown, value: unknown, type: 'gt' | 'gte' | 'lt' | 'lte'): boolean {
  const comparable =
    (typeof actual === 'number' && typeof value === 'number') ||
    (typeof actual === 'string' && typeof value === 'string');
  if (!comparable) return false;
  const a = actual as number | string;
  const b = value as number | string;
  if (type === 'gt') return a > b;
  if (type === 'gte') return a >= b;
  if (type === 'lt') return a < b;
  return a <= b;
}
