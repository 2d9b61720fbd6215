/** Argument names that mean the same input across tools: the raster a tool works on is `image` in
 *  most tools and `dem` in the terrain ones; the two dates are `before`/`after` or `pre`/`post`.
 *  A cell or command line may use either name; the tool's own name is what it receives. */
const GROUPS: readonly (readonly string[])[] = [
  ['image', 'dem', 'raster', 'input'],
  ['before', 'pre'],
  ['after', 'post'],
];

/** The tool's parameter `name` stands for, when `name` is not one of `params` but an alias of exactly one. */
export function aliasOf(name: string, params: readonly string[]): string | undefined {
  if (params.includes(name)) return undefined;
  const group = GROUPS.find((g) => g.includes(name));
  const hits = group ? params.filter((p) => group.includes(p)) : [];
  return hits.length === 1 ? hits[0] : undefined;
}

/** The closest of `options` by edit distance, when close enough to be a typo (underscores ignored). */
export function closestName(word: string, options: readonly string[]): string | undefined {
  const bare = (s: string) => s.toLowerCase().replace(/[_\-\s]/g, '');
  let best: string | undefined;
  let bestD = Infinity;
  for (const o of options) {
    // "sentinel2" for "sentinel2_l2a": a clear start of one option is as good as a typo.
    const d = bare(o) === bare(word) ? 0.5 : word.length >= 4 && bare(o).startsWith(bare(word)) ? 1 : editDistance(word.toLowerCase(), o.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = o;
    }
  }
  return bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}
