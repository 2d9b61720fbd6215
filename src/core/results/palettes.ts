/** Colours of results: continuous ramps per kind of quantity and class colours in the convention of
 *  each field (burn severity, land cover, change, masks). Pure and browser-safe: the notebook
 *  renderer colours map tiles, legends and table swatches with the same functions. */
import type { LayerKind, MapClass } from '../../shared/result-protocol';

export type RGB = [number, number, number];

/** Colour stops, low to high. */
export const RAMPS: Record<Exclude<LayerKind, 'class' | 'mask' | 'rgb'>, RGB[]> = {
  // RdYlGn: bare and water low, dense vegetation high.
  index: [[165, 0, 38], [244, 109, 67], [254, 224, 139], [217, 239, 139], [102, 189, 99], [0, 104, 55]],
  // RdBu reversed: decrease blue, no change white, increase red.
  diverging: [[33, 102, 172], [146, 197, 222], [247, 247, 247], [244, 165, 130], [178, 24, 43]],
  // viridis
  continuous: [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]],
  hillshade: [[0, 0, 0], [255, 255, 255]],
};

export function rampColor(stops: RGB[], t: number): RGB {
  const x = (t === t ? Math.max(0, Math.min(1, t)) : 0) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const a = stops[i], b = stops[i + 1];
  return [Math.round(a[0] + (b[0] - a[0]) * f), Math.round(a[1] + (b[1] - a[1]) * f), Math.round(a[2] + (b[2] - a[2]) * f)];
}

export function hex(c: RGB): string {
  return '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('');
}

export function parseHex(s: string): RGB {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(s.trim());
  return m ? [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)] : [128, 128, 128];
}

/** A class colour scheme: keyword patterns (English and Chinese) → colour, first match wins. */
interface Scheme { name: string; test: RegExp; colors: [RegExp, string][] }

const SCHEMES: Scheme[] = [
  {
    // dNBR classes as USGS/Key & Benson tabulate them (UN-SPIDER colours): regrowth greens,
    // unburned green, low yellow, moderate orange to red, high purple.
    name: 'burn severity',
    test: /severity|regrowth|unburn|烧|火/i,
    colors: [
      [/high regrowth|enhanced regrowth.*high|高.*再生/i, '#7a8737'],
      [/regrowth|再生/i, '#acbe4d'],
      [/unburn|未/i, '#0ae042'],
      [/moderate[- ]high|中高/i, '#ff641b'],
      [/moderate[- ]low|中低/i, '#ffaf38'],
      [/moderate|中/i, '#ff8c28'],
      [/high|高/i, '#a41fd6'],
      [/low|低/i, '#fff70b'],
    ],
  },
  {
    name: 'change',
    test: /change|loss|gain|decrease|increase|变化|减少|增加/i,
    colors: [
      [/no change|unchanged|stable|不变|无变化/i, '#bdbdbd'],
      [/loss|decrease|declin|减少|损失/i, '#d7301f'],
      [/gain|increase|grow|增加|增长/i, '#1a9850'],
    ],
  },
  {
    // ESA WorldCover colours.
    name: 'land cover',
    test: /water|forest|tree|crop|urban|built|grass|shrub|bare|wetland|snow|mangrove|水|林|耕|建|草|灌|裸|湿地|雪/i,
    colors: [
      [/mangrove|红树/i, '#00cf75'],
      [/wetland|marsh|湿地/i, '#0096a0'],
      [/water|river|lake|水/i, '#0064c8'],
      [/tree|forest|林/i, '#006400'],
      [/shrub|灌/i, '#ffbb22'],
      [/grass|pasture|草/i, '#ffff4c'],
      [/crop|farm|agri|耕|农/i, '#f096ff'],
      [/urban|built|city|town|建|城/i, '#fa0000'],
      [/bare|sparse|soil|sand|裸|沙/i, '#b4b4b4'],
      [/snow|ice|雪|冰/i, '#f0f0f0'],
      [/moss|lichen|苔/i, '#fae6a0'],
    ],
  },
];

/** Colours for classes without a field convention (distinct, readable on light and dark). */
export const CATEGORICAL = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#aec7e8', '#ffbb78'];

/** Mask colours: 1 set, 0 not set. */
export const MASK_ON = '#e6550d';
export const MASK_OFF = '#9e9e9e';

/**
 * Classes with colours in their field's convention, from the values present and their labels.
 * Values are sorted; a scheme applies when most labels match it, so a land-cover map with one
 * "burnt" class keeps land-cover colours.
 */
export function classColors(values: number[], labels: Record<string, string> = {}, kind: 'class' | 'mask' = 'class'): MapClass[] {
  const sorted = [...new Set(values.filter((v) => Number.isFinite(v)))].sort((a, b) => a - b);
  if (kind === 'mask') {
    const vs = sorted.length ? sorted : [0, 1];
    return vs.map((v) => ({ value: v, label: labels[String(v)] ?? (v ? 'set (1)' : 'not set (0)'), color: v ? MASK_ON : MASK_OFF }));
  }
  const labelled = sorted.map((v) => labels[String(v)] ?? '');
  const scheme = SCHEMES.find((s) => {
    const named = labelled.filter((l) => l);
    return named.length > 0 && named.filter((l) => s.test.test(l)).length >= Math.ceil(named.length / 2);
  });
  let next = 0;
  return sorted.map((v, i) => {
    const label = labelled[i] || `class ${v}`;
    const hit = scheme?.colors.find(([re]) => re.test(labelled[i]));
    return { value: v, label, color: hit ? hit[1] : CATEGORICAL[next++ % CATEGORICAL.length] };
  });
}

/** `code=label` pairs of a band description such as "severity: 1=high regrowth;2=low regrowth". */
export function labelsFromText(desc: string | null | undefined): Record<string, string> | undefined {
  if (!desc) return undefined;
  const body = desc.includes(':') ? desc.slice(desc.indexOf(':') + 1) : desc;
  const out: Record<string, string> = {};
  let n = 0;
  for (const part of body.split(';')) {
    const m = /^\s*(-?\d+)\s*=\s*(.+?)\s*$/.exec(part);
    if (m) { out[String(Number(m[1]))] = m[2]; n++; }
  }
  return n ? out : undefined;
}

/**
 * Colours `data` (w×h floats, NaN transparent) into RGBA for a layer kind. `range` stretches
 * continuous kinds; `classes` colours class and mask values (others transparent).
 */
export function colorize(data: Float32Array, kind: LayerKind, range: [number, number], classes?: MapClass[], out = new Uint8ClampedArray(data.length * 4)): Uint8ClampedArray {
  if (kind === 'class' || kind === 'mask') {
    const lut = new Map<number, RGB>((classes ?? []).map((c) => [c.value, parseHex(c.color)]));
    for (let i = 0; i < data.length; i++) {
      const v = data[i];
      const c = v === v ? lut.get(v) : undefined;
      const o = i * 4;
      if (!c) { out[o + 3] = 0; continue; }
      out[o] = c[0]; out[o + 1] = c[1]; out[o + 2] = c[2]; out[o + 3] = 255;
    }
    return out;
  }
  const stops = RAMPS[kind === 'rgb' ? 'continuous' : kind];
  // A 256-entry table: colouring a tile is then one lookup per pixel.
  const lut = new Uint8Array(256 * 3);
  for (let k = 0; k < 256; k++) { const c = rampColor(stops, k / 255); lut[k * 3] = c[0]; lut[k * 3 + 1] = c[1]; lut[k * 3 + 2] = c[2]; }
  const [lo, hi] = range;
  const span = hi - lo || 1;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    const o = i * 4;
    if (v !== v) { out[o + 3] = 0; continue; }
    const k = Math.max(0, Math.min(255, Math.round(((v - lo) / span) * 255))) * 3;
    out[o] = lut[k]; out[o + 1] = lut[k + 1]; out[o + 2] = lut[k + 2]; out[o + 3] = 255;
  }
  return out;
}

/** Three bands stretched each to its own range into RGBA (natural-colour composites). */
export function colorizeRgb(bands: Float32Array[], ranges: [number, number][], out = new Uint8ClampedArray(bands[0].length * 4)): Uint8ClampedArray {
  const n = bands[0].length;
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    let ok = true;
    for (let b = 0; b < 3; b++) {
      const v = bands[Math.min(b, bands.length - 1)][i];
      if (v !== v) { ok = false; break; }
      const [lo, hi] = ranges[Math.min(b, ranges.length - 1)];
      out[o + b] = Math.max(0, Math.min(255, Math.round(((v - lo) / (hi - lo || 1)) * 255)));
    }
    out[o + 3] = ok ? 255 : 0;
  }
  return out;
}

/** 2 % and 98 % values, min and max of the finite values (for the first stretch). */
export function valueStats(data: ArrayLike<number>): { p2: number; p98: number; min: number; max: number } {
  const step = Math.max(1, Math.floor(data.length / 100_000));
  const s: number[] = [];
  for (let i = 0; i < data.length; i += step) { const v = data[i]; if (v === v && Number.isFinite(v)) s.push(v); }
  if (!s.length) return { p2: 0, p98: 1, min: 0, max: 1 };
  s.sort((a, b) => a - b);
  return { p2: s[Math.floor(0.02 * (s.length - 1))], p98: s[Math.ceil(0.98 * (s.length - 1))], min: s[0], max: s[s.length - 1] };
}
