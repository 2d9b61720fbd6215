/** How a service's or a server's answer reads in a run's summary (http-runner.ts, mcp-runner.ts). */
import * as path from 'path';

/** ": uhi_intensity 3.4, hottest_district Navigli" for the answer's first few numbers and short words (never an address or a path). */
export function scalarWords(stats: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(stats)) {
    if (typeof v === 'number' && Number.isFinite(v)) parts.push(`${k} ${Number.isInteger(v) ? v : Number(v.toPrecision(4))}`);
    else if (typeof v === 'string' && v.length <= 40 && !/^(https?|file):/.test(v) && !path.isAbsolute(v)) parts.push(`${k} ${v}`);
    if (parts.length === 4) break;
  }
  return parts.length ? `: ${parts.join(', ')}` : '';
}

/** "409 ms", "3.2 s". */
export function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
