/**
 * The interactive map of a cell output, on OpenLayers: pan and zoom in the raster's own CRS, tiles
 * of each layer read by the host from overviews or windows (never the whole file), colour ramps
 * with a colorbar and a live stretch, class legends, a pixel inspector (values read by the host at
 * full resolution, coordinates in the CRS and in lon/lat), a scale bar, a layer list, vectors over
 * the rasters, a swipe between two layers and an optional basemap.
 */
import OlMap from 'ol/Map';
import View from 'ol/View';
import TileLayer from 'ol/layer/Tile';
import ImageTileSource from 'ol/source/ImageTile';
import XYZ from 'ol/source/XYZ';
import TileGrid from 'ol/tilegrid/TileGrid';
import VectorLayer from 'ol/layer/Vector';
import VectorSource from 'ol/source/Vector';
import GeoJSON from 'ol/format/GeoJSON';
import { Fill, Stroke, Style } from 'ol/style';
import ScaleLine from 'ol/control/ScaleLine';
import Zoom from 'ol/control/Zoom';
import Attribution from 'ol/control/Attribution';
import Projection from 'ol/proj/Projection';
import { addCoordinateTransforms, addProjection, get as getProjection, transform, transformExtent } from 'ol/proj';
import { register } from 'ol/proj/proj4';
import { getRenderPixel } from 'ol/render';
import { extend as extendExtent, createEmpty, isEmpty, type Extent } from 'ol/extent';
import type RenderEvent from 'ol/render/Event';
import type BaseLayer from 'ol/layer/Base';
import proj4 from 'proj4';
import type { HostMessage, LayerInfo, LayerKind, LayerRef, MapClass, MapLayerSpec, MapSpec, MapVectorSpec, RendererMessage } from '../../shared/result-protocol';
import { TILE_SIZE } from '../../shared/result-protocol';
import { classColors, colorize, colorizeRgb, RAMPS, hex } from '../../core/results/palettes';
import { geojsonEpsg, projectionOf } from '../../core/results/crs';
import { el, formatCoordinate, formatNumber } from './dom';
import { fill, resultStrings, term, type ResultStrings } from '../../shared/result-strings';

/** Sends a request to the host and resolves with its answer. */
export type Request = <T extends HostMessage['type']>(msg: DistributiveOmit<RendererMessage, 'id'>) => Promise<Extract<HostMessage, { type: T }>>;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** Decoded tiles kept for re-colouring (live stretch) without asking the host again. */
const TILE_BYTES = 96 << 20;
const tileCache = new Map<string, Float32Array[]>();
let tileBytes = 0;

function cacheTile(key: string, data: Float32Array[]): void {
  tileCache.set(key, data);
  tileBytes += data.reduce((s, d) => s + d.byteLength, 0);
  for (const [k, v] of tileCache) {
    if (tileBytes <= TILE_BYTES) break;
    tileCache.delete(k);
    tileBytes -= v.reduce((s, d) => s + d.byteLength, 0);
  }
}

function decodeFloats(b64: string): Float32Array {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

/** One raster layer on the map: its spec, what the host says about its file, and its colouring. */
interface RasterLayer {
  spec: MapLayerSpec;
  info: LayerInfo;
  kind: LayerKind;
  ref: LayerRef;
  range: [number, number];
  dataRange: [number, number];
  rgbRanges: [number, number][];
  classes?: MapClass[];
  projection: string;
  /** A rotated grid's CRS (its tiles are in `projection`, the grid laid north-up, warped into it). */
  crs?: string;
  layer: TileLayer<ImageTileSource>;
  source: ImageTileSource;
}

let projections = 0;

/** The OpenLayers projection code of a layer's CRS, registered with proj4 when needed; a plain
 *  grid in the CRS's units when proj4 cannot read it (no lon/lat then). */
function projectionFor(info: LayerInfo, extent: Extent): string {
  const def = info.projection ?? projectionOf(info.epsg);
  const code = info.epsg ? `EPSG:${info.epsg}` : def ? `GW:crs-${++projections}` : '';
  if (code && getProjection(code) && (info.epsg === 4326 || info.epsg === 3857 || proj4.defs(code))) return code;
  if (code && def) {
    try {
      proj4.defs(code, def);
      register(proj4);
      if (getProjection(code)) return code;
    } catch { /* not a definition proj4 reads */ }
  }
  const grid = `GW:grid-${++projections}`;
  addProjection(new Projection({ code: grid, units: info.geographic ? 'degrees' : 'm', extent }));
  return grid;
}

/**
 * A grid whose geotransform turns it (rotation terms g[2], g[4]) is drawn in place: its tiles keep
 * the pixel grid laid north-up from its origin (x = g0 + col·g1, y = g3 + row·g5: the tile grid and
 * the inspector's col/row as for any grid), in a projection of its own whose coordinates OpenLayers
 * maps into the CRS by the full affine transform, warping the tiles as it reprojects any layer.
 */
let rotations = 0;
function rotatedProjection(info: LayerInfo, crs: string, extent: Extent): string | undefined {
  const g = info.geoTransform;
  if (!g[2] && !g[4]) return undefined;
  const det = g[1] * g[5] - g[2] * g[4];
  if (!det) return undefined;
  const code = `GW:rotated-${++rotations}`;
  addProjection(new Projection({ code, units: info.geographic ? 'degrees' : 'm', extent }));
  const forward = (c: number[]): number[] => {
    const col = (c[0] - g[0]) / g[1], row = (c[1] - g[3]) / g[5];
    return [g[0] + col * g[1] + row * g[2], g[3] + col * g[4] + row * g[5]];
  };
  const inverse = (c: number[]): number[] => {
    const dx = c[0] - g[0], dy = c[1] - g[3];
    const col = (g[5] * dx - g[2] * dy) / det, row = (g[1] * dy - g[4] * dx) / det;
    return [g[0] + col * g[1], g[3] + row * g[5]];
  };
  addCoordinateTransforms(code, crs, forward, inverse);
  rotatedLinks.set(code, { crs, forward, inverse });
  return code;
}
const rotatedLinks = new Map<string, { crs: string; forward: (c: number[]) => number[]; inverse: (c: number[]) => number[] }>();

/** Lets a rotated grid's own projection reach `view` (through its CRS) when the view is in another one. */
function linkRotated(code: string, view: string): void {
  const l = rotatedLinks.get(code);
  if (!l || l.crs === view) return;
  addCoordinateTransforms(code, view, (c) => transform(l.forward(c), l.crs, view), (c) => l.inverse(transform(c, view, l.crs)));
}

function layerExtent(info: LayerInfo): Extent {
  const g = info.geoTransform;
  const x1 = g[0] + g[1] * info.width, y1 = g[3] + g[5] * info.height;
  return [Math.min(g[0], x1), Math.min(g[3], y1), Math.max(g[0], x1), Math.max(g[3], y1)];
}

export interface MapHandle { dispose(): void }

/** Draws the map of `spec` into `box`; rejects when none of its files can be read. */
export async function renderMap(box: HTMLElement, spec: MapSpec, request: Request, S: ResultStrings = resultStrings('en')): Promise<MapHandle> {
  const refs: LayerRef[] = spec.layers.map((l) => ({ path: l.path, bands: l.bands, ...(l.auto ? { auto: true } : {}) }));
  const described = await request<'describe'>({ type: 'describe', layers: refs, vectors: spec.vectors.map((v) => v.path) });
  const existing = spec.layers.map((s, i) => ({ spec: s, info: described.layers[i] })).filter((x) => x.info?.exists);
  const vectorsThere = spec.vectors.filter((v, i) => described.vectors[i]?.exists);
  if (!existing.length && !vectorsThere.length) {
    throw new Error(described.layers.find((l) => l.error)?.error ?? 'the output files no longer exist');
  }

  const mapEl = el('div', 'gw-map');
  const side = el('div', 'gw-side');
  const frame = el('div', 'gw-mapbox');
  frame.append(mapEl, side);
  box.appendChild(frame);
  const loading = el('div', 'gw-loading', 'loading…');
  mapEl.appendChild(loading);

  // ---- raster layers ----
  const rasters: RasterLayer[] = existing.map(({ spec: s, info }) => {
    const extent = layerExtent(info);
    const crs = projectionFor(info, extent);
    const rotated = rotatedProjection(info, crs, extent);
    const projection = rotated ?? crs;
    const kind = info.kind ?? s.kind;
    const st = info.bandStats[0] ?? { p2: 0, p98: 1, min: 0, max: 1 };
    let range: [number, number] = s.range ? [...s.range] as [number, number] : st.p2 < st.p98 ? [st.p2, st.p98] : [st.min, st.max + 1e-9];
    // Differences are centred on zero: no change is the middle of the ramp.
    if (kind === 'diverging' && !s.range) { const m = Math.max(Math.abs(range[0]), Math.abs(range[1])) || 1; range = [-m, m]; }
    const classes = kind === 'class' || kind === 'mask' ? s.classes ?? info.classes ?? classColors(info.values ?? [], info.labels ?? {}, kind) : undefined;
    const px = Math.abs(info.geoTransform[1]), py = Math.abs(info.geoTransform[5]);
    const resolutions: number[] = [];
    for (let z = 0; z <= info.maxZoom; z++) resolutions.push(Math.max(px, py) * 2 ** (info.maxZoom - z));
    const tileGrid = new TileGrid({ origin: [info.geoTransform[0], info.geoTransform[3]], resolutions, tileSize: TILE_SIZE, extent });
    const ref: LayerRef = { path: info.path, bands: info.bands };
    const r = { spec: s, info, kind, ref, range, dataRange: [Math.min(st.min, range[0]), Math.max(st.max, range[1])], rgbRanges: info.bandStats.map((b) => [b.p2, b.p98 > b.p2 ? b.p98 : b.max]), classes, projection, ...(rotated ? { crs } : {}) } as RasterLayer;
    r.source = new ImageTileSource({
      projection, tileGrid, wrapX: false, interpolate: false, transition: 0,
      loader: async (z: number, x: number, y: number) => {
        // The file's version too: a cell run again over the same output path must not show the old tiles.
        const key = `${ref.path}|${info.version ?? ''}|${ref.bands.join(',')}|${z}/${x}/${y}`;
        let data = tileCache.get(key);
        if (!data) {
          const t = await request<'tile'>({ type: 'tile', layer: ref, z, x, y });
          data = t.bands.map(decodeFloats);
          cacheTile(key, data);
        }
        return paint(r, data);
      },
    });
    // A layer's extent is in the view's coordinates: a rotated grid's north-up one is not.
    r.layer = new TileLayer({ source: r.source, visible: s.visible, ...(rotated ? {} : { extent }), properties: { id: s.id } });
    return r;
  });

  // The view is in the CRS of the first shown output (else the first layer): rasters in it are drawn unresampled.
  const lead = rasters.find((r) => r.spec.visible && r.spec.role === 'output') ?? rasters.find((r) => r.spec.visible) ?? rasters[0];
  let viewProjection = lead?.crs ?? lead?.projection;
  const format = new GeoJSON();
  const vectorLayers: { spec: MapVectorSpec; layer: VectorLayer }[] = [];
  for (const v of vectorsThere) {
    const src = new VectorSource();
    const layer = new VectorLayer({
      source: src, visible: v.visible, properties: { id: v.id },
      style: new Style({ stroke: new Stroke({ color: v.color, width: 1.6 }), fill: new Fill({ color: `${v.color}26` }) }),
    });
    vectorLayers.push({ spec: v, layer });
  }
  const loadVectors = Promise.all(vectorLayers.map(async ({ spec: v, layer }) => {
    const { geojson } = await request<'vector'>({ type: 'vector', path: v.path });
    const obj = JSON.parse(geojson);
    const epsg = geojsonEpsg(obj?.crs?.properties?.name);
    let dataProjection = epsg ? `EPSG:${epsg}` : undefined;
    if (dataProjection && !getProjection(dataProjection)) {
      const def = projectionOf(epsg);
      if (def) { proj4.defs(dataProjection, def); register(proj4); }
    }
    if (!dataProjection) {
      // RFC 7946 GeoJSON is lon/lat; GeoWeave's own outputs without a crs member are in the raster's CRS.
      const first = JSON.stringify(obj?.features?.[0]?.geometry?.coordinates ?? []).match(/-?\d+(\.\d+)?/g)?.map(Number) ?? [];
      dataProjection = first.length >= 2 && Math.abs(first[0]) <= 180 && Math.abs(first[1]) <= 90 ? 'EPSG:4326' : viewProjection ?? 'EPSG:4326';
    }
    viewProjection ??= dataProjection;
    const features = format.readFeatures(obj, { dataProjection, featureProjection: viewProjection });
    layer.getSource()!.addFeatures(features);
    const counts = JSON.parse(mapEl.dataset.vectors || '{}');
    counts[v.id] = features.length;
    mapEl.dataset.vectors = JSON.stringify(counts);
  }));
  if (!viewProjection) await loadVectors.catch(() => undefined);
  viewProjection ??= 'EPSG:3857';

  const layers: BaseLayer[] = [];
  let basemap: TileLayer<XYZ> | undefined;
  if (described.basemap && viewProjection && !viewProjection.startsWith('GW:grid')) {
    basemap = new TileLayer({ source: new XYZ({ url: described.basemap, crossOrigin: 'anonymous', attributions: `Basemap: ${new URL(described.basemap.replace(/[{}]/g, '')).host}` }), properties: { id: 'basemap' } });
    layers.push(basemap);
  }
  // Inputs below outputs, vectors on top.
  const ordered = [...rasters.filter((r) => r.spec.role === 'input'), ...rasters.filter((r) => r.spec.role === 'output')];
  layers.push(...ordered.map((r) => r.layer), ...vectorLayers.map((v) => v.layer));

  for (const r of rasters) if (r.crs) linkRotated(r.projection, viewProjection);
  let full = createEmpty();
  for (const r of rasters) {
    const e = layerExtent(r.info);
    extendExtent(full, r.projection === viewProjection ? e : transformExtent(e, r.projection, viewProjection));
  }
  const pixel = lead ? Math.min(Math.abs(lead.info.geoTransform[1]), Math.abs(lead.info.geoTransform[5])) : 1;
  const view = new View({ projection: viewProjection, constrainResolution: false, showFullExtent: true, minResolution: pixel / 16, multiWorld: true });
  const map = new OlMap({
    target: mapEl, layers, view,
    controls: [new Zoom({ zoomInTipLabel: S.zoomIn, zoomOutTipLabel: S.zoomOut }), new ScaleLine({ units: viewProjection === 'EPSG:4326' ? 'degrees' : 'metric' }), new Attribution({ collapsible: false })],
  });
  const fit = () => {
    if (isEmpty(full)) for (const v of vectorLayers) extendExtent(full, v.layer.getSource()!.getExtent() ?? createEmpty());
    if (!isEmpty(full)) view.fit(full, { padding: [8, 8, 8, 8] });
  };
  fit();
  void loadVectors.then(() => { if (!rasters.length) { full = createEmpty(); fit(); } map.render(); }).catch((e) => { inspector.textContent = `vectors: ${(e as Error).message}`; });
  const fitButton = el('button', 'gw-fit', '⤢');
  fitButton.title = S.fitRaster;
  fitButton.setAttribute('aria-label', S.fitRaster);
  fitButton.addEventListener('click', fit);
  mapEl.appendChild(fitButton);

  // State the tests and screen readers can read.
  const publish = () => {
    const c = view.getCenter();
    mapEl.dataset.center = c ? c.map((v) => v.toFixed(2)).join(',') : '';
    mapEl.dataset.resolution = String(view.getResolution() ?? '');
    mapEl.dataset.projection = viewProjection!;
  };
  map.on('moveend', publish);
  let rendered = 0;
  map.on('rendercomplete', () => { mapEl.dataset.rendered = String(++rendered); loading.remove(); });
  publish();

  // ---- side panel: layers, legend with stretch, swipe, inspector ----
  const layerBox = el('fieldset', 'gw-layers');
  layerBox.appendChild(el('legend', undefined, S.layers));
  const legendBox = el('fieldset', 'gw-legend');
  const swipeBox = el('fieldset', 'gw-swipe');
  const inspectBox = el('fieldset', 'gw-inspect');
  inspectBox.appendChild(el('legend', undefined, S.pixel));
  const inspector = el('div', 'gw-inspector', S.pointAtMap);
  inspector.setAttribute('aria-live', 'polite');
  inspectBox.appendChild(inspector);
  side.append(layerBox, legendBox, swipeBox, inspectBox);

  const toggles: { id: string; layer: BaseLayer; input: HTMLInputElement }[] = [];
  const addToggle = (id: string, name: string, role: string, layer: BaseLayer) => {
    const label = el('label');
    const input = el('input');
    input.type = 'checkbox';
    input.checked = layer.getVisible();
    input.dataset.layer = id;
    input.addEventListener('change', () => { layer.setVisible(input.checked); refreshLegend(); });
    label.append(input, el('span', undefined, name), el('span', 'gw-role', role));
    layerBox.appendChild(label);
    toggles.push({ id, layer, input });
  };
  for (const r of [...ordered].reverse()) addToggle(r.spec.id, r.spec.name, r.spec.role === 'input' ? S.input : S.output_, r.layer);
  for (const v of vectorLayers) addToggle(v.spec.id, v.spec.name, v.spec.role === 'input' ? S.input : S.output_, v.layer);
  if (basemap) addToggle('basemap', S.basemap, '', basemap);
  const syncToggles = () => toggles.forEach((t) => { t.input.checked = t.layer.getVisible(); });

  /** The layer the legend explains: the top visible raster. */
  const activeRaster = () => [...ordered].reverse().find((r) => r.layer.getVisible());
  const refreshLegend = () => {
    legendBox.replaceChildren(el('legend', undefined, S.legend));
    const r = activeRaster();
    if (!r) { legendBox.appendChild(el('div', 'gw-note', S.noRasterLayer)); return; }
    legendBox.dataset.layer = r.spec.id;
    legendBox.appendChild(el('div', 'gw-note', r.spec.name));
    if (r.kind === 'class' || r.kind === 'mask') {
      const list = el('ul', 'gw-classes');
      for (const c of r.classes ?? []) {
        if (c.unlisted) continue;
        const li = el('li');
        const sw = el('span', 'gw-swatch');
        sw.style.background = c.color;
        li.append(sw, el('span', undefined, `${c.label}`));
        li.dataset.value = String(c.value);
        list.appendChild(li);
      }
      legendBox.appendChild(list);
      return;
    }
    if (r.kind === 'rgb') {
      legendBox.appendChild(el('div', undefined, fill(S.naturalColour, r.info.bands.join(', '))));
      return;
    }
    const stops = RAMPS[r.kind as keyof typeof RAMPS] ?? RAMPS.continuous;
    const bar = el('div', 'gw-colorbar');
    // The ramp's own stops at their own places: CSS then interpolates between them exactly as the
    // tiles are coloured (rampColor), where samples at other places would cut the ramp's corners.
    bar.style.background = `linear-gradient(to right, ${stops.map((c, i) => `${hex(c)} ${Number(((100 * i) / (stops.length - 1)).toFixed(4))}%`).join(', ')})`;
    const labels = el('div', 'gw-colorbar-labels');
    const lo = el('span', 'gw-lo'), hi = el('span', 'gw-hi');
    labels.append(lo, el('span', 'gw-unit', r.spec.unit ?? ''), hi);
    const stretch = el('div', 'gw-stretch');
    const slider = (which: 0 | 1) => {
      const input = el('input');
      input.type = 'range';
      const [a, b] = r.dataRange;
      input.min = String(a); input.max = String(b); input.step = String((b - a) / 200 || 0.001);
      input.value = String(r.range[which]);
      input.className = which ? 'gw-stretch-max' : 'gw-stretch-min';
      input.setAttribute('aria-label', which ? S.rangeMax : S.rangeMin);
      input.addEventListener('input', () => {
        const v = Number(input.value);
        if (which === 0) r.range = [Math.min(v, r.range[1]), r.range[1]];
        else r.range = [r.range[0], Math.max(v, r.range[0])];
        show();
        repaint(r);
      });
      return input;
    };
    const show = () => { lo.textContent = formatNumber(r.range[0]); hi.textContent = formatNumber(r.range[1]); };
    show();
    stretch.append(el('span', undefined, S.min), slider(0), el('span', undefined, S.max), slider(1));
    legendBox.append(bar, labels, stretch);
  };

  // Swipe: the right layer is drawn on top, clipped to the right of the divider.
  swipeBox.appendChild(el('legend', undefined, S.swipe));
  const swipe = { on: false, left: undefined as RasterLayer | undefined, right: undefined as RasterLayer | undefined, pos: 0.5 };
  let hidden: Map<RasterLayer, boolean> | undefined;
  const swipeLine = el('div', 'gw-swipe-line');
  const pick = (cls: string, init?: string) => {
    const s = el('select', cls);
    for (const r of rasters) { const o = el('option', undefined, r.spec.name); o.value = r.spec.id; s.appendChild(o); }
    if (init) s.value = init;
    return s;
  };
  const onLabel = el('label');
  const onBox = el('input');
  onBox.type = 'checkbox';
  onBox.className = 'gw-swipe-on';
  onLabel.append(onBox, el('span', undefined, S.compareTwo));
  const [c0, c1] = spec.compare ?? [rasters[0]?.spec.id, (rasters.find((r) => r.spec.role === 'output') ?? rasters[1])?.spec.id];
  const leftSel = pick('gw-swipe-left', c0), rightSel = pick('gw-swipe-right', c1 && c1 !== c0 ? c1 : rasters[1]?.spec.id);
  const range = el('input');
  range.type = 'range'; range.min = '0'; range.max = '1000'; range.value = '500';
  range.className = 'gw-swipe-pos';
  range.setAttribute('aria-label', S.swipePosition);
  const applySwipe = () => {
    swipe.on = onBox.checked && rasters.length >= 2;
    swipe.left = rasters.find((r) => r.spec.id === leftSel.value);
    swipe.right = rasters.find((r) => r.spec.id === rightSel.value);
    swipe.pos = Number(range.value) / 1000;
    for (const r of rasters) r.layer.setZIndex(swipe.on && r === swipe.right ? 20 : swipe.on && r === swipe.left ? 10 : 0);
    // While comparing, only the two compared rasters are drawn; the others come back afterwards.
    if (swipe.on) {
      hidden ??= new Map(rasters.map((r) => [r, r.layer.getVisible()]));
      for (const r of rasters) r.layer.setVisible(r === swipe.left || r === swipe.right);
    } else if (hidden) {
      for (const r of rasters) r.layer.setVisible(hidden.get(r) ?? false);
      hidden = undefined;
    }
    mapEl.dataset.swipe = swipe.on ? `${swipe.left?.spec.id}|${swipe.right?.spec.id}|${swipe.pos}` : '';
    swipeLine.style.left = `${swipe.pos * 100}%`;
    if (swipe.on) mapEl.appendChild(swipeLine); else swipeLine.remove();
    syncToggles();
    refreshLegend();
    map.render();
  };
  [onBox, leftSel, rightSel].forEach((x) => x.addEventListener('change', applySwipe));
  range.addEventListener('input', applySwipe);
  if (rasters.length >= 2) {
    const l = el('label', undefined); l.append(el('span', undefined, S.left), leftSel);
    const rr = el('label', undefined); rr.append(el('span', undefined, S.right), rightSel);
    swipeBox.append(onLabel, l, rr, range);
  } else swipeBox.appendChild(el('div', 'gw-note', S.oneLayer));
  for (const r of rasters) {
    r.layer.on('prerender', (e: RenderEvent) => {
      if (!swipe.on || r !== swipe.right) return;
      const ctx = e.context as CanvasRenderingContext2D;
      const size = map.getSize()!;
      const x = size[0] * swipe.pos;
      const tl = getRenderPixel(e, [x, 0]), tr = getRenderPixel(e, [size[0], 0]), bl = getRenderPixel(e, [x, size[1]]), br = getRenderPixel(e, size);
      ctx.save();
      ctx.beginPath();
      ctx.moveTo(tl[0], tl[1]); ctx.lineTo(bl[0], bl[1]); ctx.lineTo(br[0], br[1]); ctx.lineTo(tr[0], tr[1]);
      ctx.closePath();
      ctx.clip();
    });
    r.layer.on('postrender', (e: RenderEvent) => {
      if (swipe.on && r === swipe.right) (e.context as CanvasRenderingContext2D).restore();
    });
  }

  // Pixel inspector: the host reads the values at full resolution.
  let pending: ReturnType<typeof setTimeout> | undefined;
  let seq = 0;
  const inspect = (coord: number[]) => {
    const shown = rasters.filter((r) => r.layer.getVisible());
    const probes = shown.map((r) => {
      const c = r.projection === viewProjection ? coord : transform(coord, viewProjection!, r.projection);
      const g = r.info.geoTransform;
      return { layer: r.ref, col: Math.floor((c[0] - g[0]) / g[1]), row: Math.floor((c[1] - g[3]) / g[5]) };
    });
    const mine = ++seq;
    const lines: string[] = [];
    const crs = viewProjection!.startsWith('GW:') ? 'the raster\'s CRS' : viewProjection;
    const viewUnits = getProjection(viewProjection!)?.getUnits();
    lines.push(`x ${formatCoordinate(coord[0], viewUnits)}  y ${formatCoordinate(coord[1], viewUnits)}  (${crs})`);
    if (!viewProjection!.startsWith('GW:grid')) {
      try {
        const ll = transform(coord, viewProjection!, 'EPSG:4326');
        lines.push(`lon ${ll[0].toFixed(5)}  lat ${ll[1].toFixed(5)}`);
      } catch { /* no lon/lat for this CRS */ }
    }
    if (probes[0]) lines.push(`pixel col ${probes[0].col}, row ${probes[0].row}`);
    inspector.textContent = lines.join('\n');
    if (!probes.length) return;
    void request<'pixel'>({ type: 'pixel', probes }).then((reply) => {
      if (mine !== seq) return;
      shown.forEach((r, i) => {
        const vals = reply.values[i] ?? [];
        const text = vals.every((v) => v === null) ? 'no data'
          : r.classes && vals[0] !== null ? `${formatNumber(vals[0])} (${r.classes.find((c) => c.value === vals[0])?.label ?? 'class'})`
            : vals.map((v) => formatNumber(v)).join(', ') + (r.spec.unit ? ` ${r.spec.unit}` : '');
        lines.push(`${r.spec.name}: ${text}`);
      });
      inspector.textContent = lines.join('\n');
      // The values of the top output shown (else the first layer shown), for tests and copying.
      const k = Math.max(0, shown.map((r) => r.spec.role).lastIndexOf('output'));
      inspector.dataset.col = String(probes[k].col);
      inspector.dataset.row = String(probes[k].row);
      inspector.dataset.layer = shown[k].spec.id;
      inspector.dataset.values = JSON.stringify(reply.values[k] ?? []);
    }).catch(() => undefined);
  };
  map.on('pointermove', (e) => {
    if (e.dragging) return;
    clearTimeout(pending);
    const coord = e.coordinate;
    pending = setTimeout(() => inspect(coord), 60);
  });
  map.on('singleclick', (e) => inspect(e.coordinate));

  refreshLegend();
  const resize = new ResizeObserver(() => map.updateSize());
  resize.observe(mapEl);
  return {
    dispose() {
      resize.disconnect();
      clearTimeout(pending);
      map.setTarget(undefined);
    },
  };
}

/** Colours one tile's floats into a canvas. */
function paint(r: RasterLayer, data: Float32Array[]): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  canvas.width = TILE_SIZE;
  canvas.height = TILE_SIZE;
  const ctx = canvas.getContext('2d')!;
  const img = ctx.createImageData(TILE_SIZE, TILE_SIZE);
  if (r.kind === 'rgb' && data.length >= 3) colorizeRgb(data, r.rgbRanges, img.data);
  else colorize(data[0], r.kind === 'rgb' ? 'continuous' : r.kind, r.range, r.classes, img.data);
  ctx.putImageData(img, 0, 0);
  return canvas;
}

/** Re-colours a layer from the decoded tiles it keeps (the live stretch), without asking the host. */
function repaint(r: RasterLayer): void {
  r.source.refresh();
}
