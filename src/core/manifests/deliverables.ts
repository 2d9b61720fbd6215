/**
 * What a tool can hand over when a task asks for it in so many words: the vocabulary of a
 * manifest's `delivers` field. Retrieval knows how analysts phrase each kind (task-phrases.ts); a
 * catalog says which of its tools make it. A kind no tool of the catalog delivers says nothing.
 */
export const DELIVERABLE_KINDS = {
  preview: 'a picture to look at: a quicklook, thumbnail or map figure',
  polygons: 'vector outlines of a mask or class map (GeoJSON, Shapefile)',
  per_zone_table: 'a table of values per field, district or other zone',
  cog: 'a cloud-optimised GeoTIFF',
  mosaic: 'several scenes or tiles merged into one raster',
  classes: 'classes the analyst names, as breaks on a value',
  count: 'how many separate patches or objects a mask holds',
  coarser_grid: 'the raster on a coarser grid (a km grid, a resolution)',
  clip_to_boundary: 'the raster cut to a boundary, polygon or buffer',
  management_zones: 'clusters of an index inside a field (management, vigour zones)',
  anomaly: 'a departure from the same period of past years',
  break_date: 'when a change happened in a time series',
  land_cover_map: 'a land-cover map, for summaries by land-cover type',
  class_pick: 'one class picked out of a class map (cropland of a land-cover map)',
} as const;

export type DeliverableKind = keyof typeof DELIVERABLE_KINDS;

export function isDeliverableKind(k: string): k is DeliverableKind {
  return Object.prototype.hasOwnProperty.call(DELIVERABLE_KINDS, k);
}
