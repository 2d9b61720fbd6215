/**
 * A string without the padding at its end (NULs; GeoTIFF's "|" too). A loop, not /\0+$/: a regex
 * anchored at the end backtracks quadratically over a long run of padding followed by anything else
 * (40 000 NULs and a letter: 1.3 s), and a file's header may hold megabytes of it.
 */
export function trimEnd(s: string, pad: string = '\0'): string {
  let end = s.length;
  while (end > 0 && pad.includes(s[end - 1])) end--;
  return s.slice(0, end);
}
