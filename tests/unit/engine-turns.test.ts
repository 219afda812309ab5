import { describe, expect, it } from 'vitest';
import { Turns } from '../../src/engine/turns';

describe('Turns (the engines’ one-at-a-time gate and its wait queue, together)', () => {
  it('counts the callers waiting for a turn, not the one holding it, and refuses one more past max', async () => {
    const turns = new Turns(2, 'one at a time');
    const first = await turns.awaitTurn();
    expect(turns.waiting).toBe(0);
    const aborted = new AbortController();
    const second = turns.awaitTurn(aborted.signal);
    const third = turns.awaitTurn();
    expect(turns.waiting).toBe(2);
    let refused: unknown;
    try {
      turns.refuseWhenFull('m');
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((refused as Error).message).toMatch(
      /Limit 2, Used 2, Requested 1\. one at a time; please try again in 1s/,
    );
    aborted.abort();
    expect(await second).toBeNull();
    expect(turns.waiting).toBe(1);
    expect(() => turns.refuseWhenFull('m')).not.toThrow();
    first?.();
    const release = await third;
    expect(turns.waiting).toBe(0);
    release?.();
  });

  it('lets a turn through only after the one before it is released, once, whatever the releases', async () => {
    const turns = new Turns();
    const first = await turns.acquire();
    let secondCame = false;
    const second = turns.acquire().then((r) => {
      secondCame = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(secondCame).toBe(false);
    first?.();
    first?.(); // a second release frees nothing more
    const next = await second;
    let thirdCame = false;
    void turns.acquire().then(() => {
      thirdCame = true;
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(thirdCame).toBe(false);
    next?.();
    await new Promise((r) => setTimeout(r, 0));
    expect(thirdCame).toBe(true);
  });

  it('counts max below 1 as 1', () => {
    expect(new Turns(0).max).toBe(1);
    expect(new Turns(2.7).max).toBe(2);
  });
});
