/** Summary sentences from streaming statistics: numbers that matter and where they are. */
import { StatsAccumulator, RasterStats, whereText, pct, num } from '../stats';

export interface Band { value: number; words: string }

/** Stats object for results plus the sentence fragments for `below`/`above` thresholds. */
export function describeContinuous(acc: StatsAccumulator, label: string, opts: { low?: Band; high?: Band; unit?: string } = {}): { stats: Record<string, unknown>; summary: string } {
  const r: RasterStats = acc.result();
  const unit = opts.unit ? ` ${opts.unit}` : '';
  const stats: Record<string, unknown> = { ...r };
  if (!r.valid) return { stats, summary: `No valid pixels: every pixel of the ${r.count} is nodata.` };
  const med = r.percentiles?.p50;
  const parts: string[] = [`Mean ${label} ${num(r.mean)}${unit} (median ${num(med)}, 5–95% range ${num(r.percentiles?.p5)} to ${num(r.percentiles?.p95)})`];
  const totals = acc.sampleCells();
  const clauses: string[] = [];
  if (opts.low) {
    const w = acc.where((v) => v < opts.low!.value);
    stats[`fraction_below_${opts.low.value}`] = round4(w.fraction);
    stats.where_low = whereText(w.cells, totals);
    if (w.fraction > 0) clauses.push(`${pct(w.fraction)} of valid pixels are ${opts.low.words}${w.fraction >= 0.005 ? `, ${stats.where_low}` : ''}`);
  }
  if (opts.high) {
    const w = acc.where((v) => v > opts.high!.value);
    stats[`fraction_above_${opts.high.value}`] = round4(w.fraction);
    stats.where_high = whereText(w.cells, totals);
    if (w.fraction > 0) clauses.push(`${pct(w.fraction)} ${clauses.length ? '' : 'of valid pixels '}are ${opts.high.words}${w.fraction >= 0.005 ? `, ${stats.where_high}` : ''}`.replace(/\s+/g, ' '));
    else clauses.push(`none are ${opts.high.words}`);
  }
  if (!opts.low && !opts.high) {
    const hi = r.grid.mean.map((m, i) => ({ m, i })).filter((c) => c.m !== null) as { m: number; i: number }[];
    hi.sort((a, b) => b.m - a.m);
    if (hi.length > 1 && hi[0].m !== hi[hi.length - 1].m) {
      const names = ['north-west', 'north', 'north-east', 'west', 'centre', 'east', 'south-west', 'south', 'south-east'];
      clauses.push(`highest in the ${names[hi[0].i]} (mean ${num(hi[0].m)}${unit}), lowest in the ${names[hi[hi.length - 1].i]} (mean ${num(hi[hi.length - 1].m)}${unit})`);
    }
  }
  let summary = parts[0] + (clauses.length ? `; ${clauses.join('; ')}.` : '.');
  const nodataFrac = r.nodata / r.count;
  if (nodataFrac >= 0.01) summary += ` ${pct(nodataFrac)} of pixels are nodata (masked, fill or zero denominator).`;
  return { stats, summary };
}

/** Mask summary: share of 1s and where. */
export function describeMask(acc: StatsAccumulator, what: string, pixelArea?: number, areaUnit = 'ha'): { stats: Record<string, unknown>; summary: string } {
  const r = acc.result();
  const stats: Record<string, unknown> = { ...r };
  if (!r.valid) return { stats, summary: `No valid pixels: every pixel of the ${r.count} is nodata.` };
  const ones = Math.round((r.mean ?? 0) * r.valid);
  const frac = ones / r.valid;
  const w = acc.where((v) => v === 1);
  stats.mask_pixels = ones; stats.mask_fraction = round4(frac); stats.where = whereText(w.cells, acc.sampleCells());
  let area = '';
  if (pixelArea && pixelArea > 0) {
    const ha = (ones * pixelArea) / 10_000;
    stats.mask_area_ha = Math.round(ha * 100) / 100;
    area = ` (${ha >= 100 ? `${num(ha / 100)} km²` : `${num(ha)} ${areaUnit}`})`;
  }
  const where = ones ? `, ${stats.where}` : '';
  let summary = `${pct(frac)} of valid pixels are ${what}${area}${where}; ${ones} of ${r.valid} pixels.`;
  if (r.nodata / r.count >= 0.01) summary += ` ${pct(r.nodata / r.count)} are nodata.`;
  return { stats, summary };
}

function round4(v: number): number { return Math.round(v * 10_000) / 10_000; }
