/**
 * QGIS layer styles (`.qml`) for raster outputs, in the colours of the quicklook beside them:
 * continuous values as a single-band pseudocolor ramp stretched over the quicklook's range, class
 * rasters and masks as a paletted renderer with one labelled entry per class, and a process tool's
 * output of three or more bands as a multiband colour composite (qmlMultiband). Opening the GeoTIFF
 * in QGIS then shows it as GeoWeave did (QGIS loads `<name>.qml` next to `<name>.tif` by itself).
 */
import type { QuicklookPalette, RGB } from '../raster/quicklook';

function hex(c: RGB): string {
  return '#' + c.map((v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0')).join('');
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}

/** Shortest decimal that reads back as the same double. */
function num(v: number): string {
  return Number.isFinite(v) ? String(v) : '0';
}

const HEAD = [
  `<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>`,
  `<qgis version="3.28.0" styleCategories="AllStyleCategories">`,
  `  <pipe>`,
];

const TAIL = [
  `    <brightnesscontrast brightness="0" contrast="0" gamma="1"/>`,
  `    <huesaturation saturation="0" grayscaleMode="0" colorizeOn="0" colorizeRed="255" colorizeGreen="128" colorizeBlue="128" colorizeStrength="100" invertColors="0"/>`,
  `    <rasterresampler maxOversampling="2"/>`,
  `  </pipe>`,
  `  <blendMode>0</blendMode>`,
  `</qgis>`,
  '',
];

/** One channel of a colour composite: the band and the values stretched from black to full colour. */
export interface CompositeChannel { band: number; min: number; max: number }

/**
 * The QML document for a raster of three or more bands shown as a colour composite, as QGIS writes
 * a multiband colour renderer (QgsMultiBandColorRenderer::writeXml): red, green and blue bands,
 * each with a linear stretch (StretchToMinimumMaximum) between its own min and max, here the 2–98 %
 * range GeoWeave estimated (hence limits None: QGIS keeps the values instead of recomputing them).
 */
export function qmlMultiband(rgb: [CompositeChannel, CompositeChannel, CompositeChannel]): string {
  const [r, g, b] = rgb;
  const enhancement = (tag: string, c: CompositeChannel) => [
    `      <${tag}>`,
    `        <minValue>${num(c.min)}</minValue>`,
    `        <maxValue>${num(c.max)}</maxValue>`,
    `        <algorithm>StretchToMinimumMaximum</algorithm>`,
    `      </${tag}>`,
  ];
  const body = [
    `    <rasterrenderer type="multibandcolor" redBand="${r.band}" greenBand="${g.band}" blueBand="${b.band}" opacity="1" alphaBand="-1" nodataColor="">`,
    `      <rasterTransparency/>`,
    `      <minMaxOrigin><limits>None</limits><extent>WholeRaster</extent><statAccuracy>Estimated</statAccuracy><cumulativeCutLower>0.02</cumulativeCutLower><cumulativeCutUpper>0.98</cumulativeCutUpper><stdDevFactor>2</stdDevFactor></minMaxOrigin>`,
    ...enhancement('redContrastEnhancement', r),
    ...enhancement('greenContrastEnhancement', g),
    ...enhancement('blueContrastEnhancement', b),
    `    </rasterrenderer>`,
  ];
  return [...HEAD, ...body, ...TAIL].join('\n');
}


/** The QML document for a one-band raster coloured as `palette` says (a colour table's other used
 *  entries, `palette.extra`, are listed with the quicklook's classes, in value order). */
export function qmlStyle(palette: QuicklookPalette): string {
  const head = HEAD, tail = TAIL;
  let body: string[];
  if (palette.classes) {
    body = [
      `    <rasterrenderer type="paletted" band="1" opacity="1" alphaBand="-1" nodataColor="">`,
      `      <rasterTransparency/>`,
      `      <colorPalette>`,
      ...[...palette.classes, ...(palette.extra ?? [])].sort((a, b) => a.value - b.value).map((c) => `        <paletteEntry value="${num(c.value)}" color="${hex(c.color)}" alpha="255" label="${attr(c.label)}"/>`),
      `      </colorPalette>`,
      `    </rasterrenderer>`,
    ];
  } else {
    const stops = palette.stops ?? [[0, 0, 0], [255, 255, 255]];
    const [lo, hi] = palette.range;
    const items = stops.map((c, i) => {
      const v = Number((lo + ((hi - lo) * i) / (stops.length - 1)).toPrecision(12));
      return `          <item alpha="255" value="${num(v)}" label="${attr(label(v))}" color="${hex(c)}"/>`;
    });
    body = [
      `    <rasterrenderer type="singlebandpseudocolor" band="1" opacity="1" alphaBand="-1" classificationMin="${num(lo)}" classificationMax="${num(hi)}" nodataColor="">`,
      `      <rasterTransparency/>`,
      `      <minMaxOrigin><limits>None</limits><extent>WholeRaster</extent><statAccuracy>Estimated</statAccuracy><cumulativeCutLower>0.02</cumulativeCutLower><cumulativeCutUpper>0.98</cumulativeCutUpper><stdDevFactor>2</stdDevFactor></minMaxOrigin>`,
      `      <rastershader>`,
      `        <colorrampshader colorRampType="INTERPOLATED" classificationMode="1" clip="0" minimumValue="${num(lo)}" maximumValue="${num(hi)}" labelPrecision="4">`,
      ...sourceRamp(stops),
      ...items,
      `        </colorrampshader>`,
      `      </rastershader>`,
      `    </rasterrenderer>`,
    ];
  }
  return [...head, ...body, ...tail].join('\n');
}

/** The ramp the items were made from, as QGIS saves it (QgsSymbolLayerUtils::saveColorRamp, the
 *  `prop` form every QGIS 3 reads). Without it QGIS shows its default ramp in the layer properties
 *  and, when the analyst changes min/max there, reclassifies with that ramp: the colours are lost. */
function sourceRamp(stops: RGB[]): string[] {
  const rgba = (c: RGB) => `${c.map((v) => Math.max(0, Math.min(255, Math.round(v)))).join(',')},255`;
  const inner = stops.slice(1, -1).map((c, i) => `${Number(((i + 1) / (stops.length - 1)).toPrecision(6))};${rgba(c)}`).join(':');
  return [
    `          <colorramp type="gradient" name="[source]">`,
    `            <prop k="color1" v="${rgba(stops[0])}"/>`,
    `            <prop k="color2" v="${rgba(stops[stops.length - 1])}"/>`,
    `            <prop k="discrete" v="0"/>`,
    `            <prop k="rampType" v="gradient"/>`,
    ...(inner ? [`            <prop k="stops" v="${inner}"/>`] : []),
    `          </colorramp>`,
  ];
}

function label(v: number): string {
  return String(Number(v.toPrecision(4)));
}
