/** All builtin raster tools. One import line and one array entry per tool (kept flat so additions merge easily). */
import type { BuiltinTool } from './types';
import { ndviTool, eviTool, saviTool, ndwiTool, mndwiTool, ndbiTool, nbrTool, ndmiTool, ndsiTool, ndciTool } from './spectral-tools';
import { bandMathTool, thresholdTool, cloudMaskTool, applyMaskTool } from './mask-tools';
import { rasterInfoTool, rasterStatsTool, quicklookTool } from './info-tools';
import { clipBboxTool, resampleTool } from './spatial-tools';
import { areaByClassTool } from './area_by_class';
import { aspectTool } from './aspect';
import { burnSeverityTool } from './burn_severity';
import { changeDifferenceTool } from './change_difference';
import { changeVectorAnalysisTool } from './change_vector_analysis';
import { connectedPatchesTool } from './connected_patches';
import { distanceToTool } from './distance_to';
import { dnbrTool } from './dnbr';
import { hillshadeTool } from './hillshade';
import { kmeansClassifyTool } from './kmeans_classify';
import { landSurfaceTemperatureTool } from './land_surface_temperature';
import { morphologyTool } from './morphology';
import { otsuThresholdTool } from './otsu_threshold';
import { reclassifyTool } from './reclassify';
import { slopeTool } from './slope';
import { timeSeriesTrendTool } from './time_series_trend';
import { vectorizeMaskTool } from './vectorize_mask';
import { zonalStatsTool } from './zonal_stats';
import { reprojectTool } from './reproject';
import { alignTool } from './align';
import { clipToVectorTool } from './clip_to_vector';
import { sarFloodThresholdTool } from './sar_flood_threshold';
import { ndviAnomalyTool } from './ndvi_anomaly';
import { medianCompositeTool } from './median_composite';
import { accuracyAssessmentTool } from './accuracy_assessment';
import { randomForestClassifyTool } from './random_forest_classify';
import { stacSearchTool } from './stac_search';
import { mosaicVrtTool } from './mosaic_vrt';

export const BUILTIN_TOOLS: BuiltinTool[] = [
  ndviTool,
  eviTool,
  saviTool,
  ndwiTool,
  mndwiTool,
  ndbiTool,
  nbrTool,
  ndmiTool,
  ndsiTool,
  ndciTool,
  bandMathTool,
  thresholdTool,
  cloudMaskTool,
  applyMaskTool,
  rasterInfoTool,
  rasterStatsTool,
  clipBboxTool,
  resampleTool,
  quicklookTool,
  areaByClassTool,
  aspectTool,
  burnSeverityTool,
  changeDifferenceTool,
  changeVectorAnalysisTool,
  connectedPatchesTool,
  distanceToTool,
  dnbrTool,
  hillshadeTool,
  kmeansClassifyTool,
  landSurfaceTemperatureTool,
  morphologyTool,
  otsuThresholdTool,
  reclassifyTool,
  slopeTool,
  timeSeriesTrendTool,
  vectorizeMaskTool,
  zonalStatsTool,
  reprojectTool,
  alignTool,
  clipToVectorTool,
  sarFloodThresholdTool,
  ndviAnomalyTool,
  medianCompositeTool,
  accuracyAssessmentTool,
  randomForestClassifyTool,
  stacSearchTool,
  mosaicVrtTool,
];
