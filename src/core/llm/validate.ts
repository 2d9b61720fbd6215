/** Shape checks for model replies: models drift, so every field is normalised and bounded. */

/** Trimmed, de-duplicated (case-insensitive) strings; a single string is split on commas. */
export function stringList(value: unknown, max: number, maxLength = 80): string[] {
  const raw = typeof value === 'string' ? value.split(/[,;，；、]/) : Array.isArray(value) ? value : [];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const item of raw) {
    if (typeof item !== 'string' && typeof item !== 'number') continue;
    const s = String(item).replace(/\s+/g, ' ').trim();
    if (!s || s.length > maxLength) continue;
    const k = s.toLowerCase();
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(s);
    if (out.length >= max) break;
  }
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Shortens text for a prompt, marking the cut. */
export function clip(text: string, max: number): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
