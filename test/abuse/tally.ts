/**
 * Tally of an abuse run: every hostile input is one trial with one outcome. A suite records its
 * trials here and prints one line per area; the test fails on any outcome but `handled`.
 *
 * Outcomes:
 * - handled: a clear error (or a correct result), nothing left behind;
 * - crashed: the process died, or an error without the file/field/argument it concerns;
 * - partial: an output, temp file or half-written state was left after a failure;
 * - hang: it ran past its time bound;
 * - escape: something was read or written outside where it may go (a path, a secret, a shell).
 */
export type Outcome = 'handled' | 'crashed' | 'partial' | 'hang' | 'escape';

export interface Trial { area: string; input: string; outcome: Outcome; detail?: string }

export class Tally {
  readonly trials: Trial[] = [];

  add(area: string, input: string, outcome: Outcome, detail?: string): void {
    this.trials.push({ area, input, outcome, ...(detail ? { detail } : {}) });
  }

  /** Trials that were not handled, for the assertion message. */
  failures(): Trial[] {
    return this.trials.filter((t) => t.outcome !== 'handled');
  }

  /** "rasters: tried 120, crashed 0, partial 0, hangs 0, escapes 0" per area. */
  summary(): string {
    const areas = [...new Set(this.trials.map((t) => t.area))];
    return areas.map((a) => {
      const ts = this.trials.filter((t) => t.area === a);
      const n = (o: Outcome) => ts.filter((t) => t.outcome === o).length;
      return `${a}: tried ${ts.length}, crashed ${n('crashed')}, partial ${n('partial')}, hangs ${n('hang')}, escapes ${n('escape')}`;
    }).join('\n');
  }
}
