import { tokenize } from './tokenize';

/**
 * Geospatial concept lexicon: concept id -> surface phrases (English words, abbreviations, Chinese
 * words). Phrases are tokenized with the shared tokenizer, so plural/verb forms and Chinese
 * translations (see cjk-dictionary.ts) match too. A phrase listed under several concepts fires all.
 */
export const CONCEPT_LEXICON: Readonly<Record<string, readonly string[]>> = {
  vegetation_index: [
    'ndvi', 'evi', 'savi', 'msavi', 'gndvi', 'osavi', 'vegetation index',
    'normalized difference vegetation index', 'enhanced vegetation index', 'soil adjusted vegetation index',
    'greenness', 'plant health', 'vegetation health', 'crop health', 'vigor', 'vigour', 'crop vigor',
    'leaf area', 'lai', 'canopy', 'green biomass', 'biomass', 'photosynthetic', '植被指数', 'stressed vegetation',
    'crop stress', 'unhealthy', 'sick plants',
  ],
  vegetation: [
    'vegetation', 'vegetated', 'plant', 'greenery', 'green cover', 'canopy', 'grassland', 'grass', 'shrub',
    'leaf', 'foliage', 'ndvi', 'evi', 'savi', 'greenness', 'plant health', 'biomass', '植被', 'mangrove',
    'mangroves', 'orchard', 'vineyard', 'green space', 'park', 'parks', 'forest', 'trees', 'meadow', 'pasture',
    'rangeland', 'bare', 'fallow', 'sick', 'stressed', 'unhealthy', 'stress', 'vigour', 'green',
  ],
  soil_adjusted: [
    'savi', 'msavi', 'osavi', 'soil adjusted', 'bare soil', 'soil background', 'sparse vegetation',
  ],
  water_index: [
    'ndwi', 'mndwi', 'awei', 'water index', 'normalized difference water index', 'modified water index',
    'water mask', 'water detection',
  ],
  water: [
    'water', 'open water', 'surface water', 'water body', 'waterbody', 'lake', 'river', 'reservoir', 'pond',
    'wetland', 'shoreline', 'coastline', 'ndwi', 'mndwi', 'flood', 'inundation', 'inundated', '水体', 'fish pond',
    'aquaculture', 'estuary', 'bay', 'coast', 'coastal', 'sea', 'ocean', 'dam', 'canal', 'water pixels',
    'water surface', 'dry season', 'low water', 'water level',
  ],
  flood: [
    'flood', 'flooding', 'flooded', 'inundation', 'inundated', 'flood extent', 'flood mapping', 'submerged',
    'waterlogging', 'high water', 'deluge', '洪水', '淹没', 'storm', 'typhoon', 'hurricane', 'monsoon', 'cyclone',
  ],
  sar: ['sar', 'radar', 'sentinel 1', 's1', 'sentinel1', 'grd', 'slc', 'backscatter', 'vv', 'vh', 'sigma0', 'gamma0', 'beta0', 'synthetic aperture'],
  burn: [
    'nbr', 'dnbr', 'rdnbr', 'normalized burn ratio', 'burn', 'burned', 'burnt', 'burn scar', 'fire scar',
    'scar', 'wildfire', 'fire', 'bushfire', 'forest fire', 'charred', 'post fire', 'pre fire', '火灾', '过火',
    'fire season', 'fire perimeter', 'fuel',
  ],
  burn_severity: [
    'burn severity', 'fire severity', 'severity', 'dnbr', 'rdnbr', 'usgs severity', 'how badly burned',
  ],
  urban_index: ['ndbi', 'built up index', 'normalized difference built up index', 'ui index', 'ibi'],
  urban: [
    'urban', 'city', 'cities', 'town', 'built up', 'builtup', 'built environment', 'impervious',
    'impervious surface', 'settlement', 'building', 'buildings', 'construction', 'urban sprawl', 'sprawl',
    'urbanization', 'ndbi', 'concrete', 'pavement', 'city growth', 'urban expansion', '城市', '建成区', 'factory',
    'factories', 'industrial', 'airport', 'road', 'roads', 'paved', 'village', 'villages', 'settlements',
    'housing', 'residential', 'suburb', 'suburbs', 'neighbourhood', 'neighborhoods', 'development',
    'solar farm',
  ],
  terrain: [
    'dem', 'dtm', 'dsm', 'elevation', 'terrain', 'topography', 'topographic', 'relief', 'altitude', 'height',
    'srtm', 'copernicus dem', 'digital elevation model', 'mountain', 'hill', 'ridge', 'valley', 'landform',
    '高程', '地形',
  ],
  slope: ['slope', 'steepness', 'steep', 'gradient', 'incline', 'inclination', 'degrees of slope', '坡度'],
  aspect: [
    'aspect', 'facing', 'orientation', 'north facing', 'south facing', 'exposure', 'compass direction', '坡向',
  ],
  hillshade: [
    'hillshade', 'hill shade', 'shaded relief', 'shading', 'relief map', 'illumination', 'sun angle', 'azimuth',
    '山体阴影',
  ],
  contour: ['contour', 'contours', 'contour lines', 'isoline', 'isolines', 'isohypse'],
  hydrology: [
    'flow accumulation', 'flow direction', 'd8', 'stream network', 'drainage', 'watershed', 'catchment',
    'hydrology', 'runoff', 'basin',
  ],
  viewshed: ['viewshed', 'visibility', 'line of sight', 'visible area', 'observer'],
  cloud: [
    'cloud', 'clouds', 'cloudy', 'cloud cover', 'cloud shadow', 'cirrus', 'haze', 'scl', 'scene classification',
    'qa pixel', 'qa_pixel', 'fmask', 'cloud free', 'cloudless', 'clear sky', '云',
  ],
  mask: [
    'mask', 'masking', 'masked', 'cloud mask', 'nodata mask', 'exclude', 'remove pixels', 'apply mask', '掩膜',
  ],
  area: [
    'area', 'areas', 'hectare', 'hectares', 'ha', 'km2', 'square kilometer', 'square kilometre', 'square meter',
    'm2', 'acre', 'acres', 'how much', 'extent', 'coverage', 'percent', 'percentage', 'proportion', 'fraction',
    'area by class', 'area per class', '面积',
  ],
  count: ['how many', 'count', 'number of', 'patches', 'objects', 'clusters of pixels', 'tally'],
  statistics: [
    'statistics', 'stats', 'mean', 'average', 'median', 'min', 'max', 'minimum', 'maximum', 'std',
    'standard deviation', 'percentile', 'percentiles', 'histogram', 'distribution', 'summary', 'summarize',
    'summarise', '统计',
  ],
  zonal: [
    'zonal', 'zonal statistics', 'zonal stats', 'per field', 'per polygon', 'per parcel', 'per zone', 'parcel',
    'parcels', 'field boundaries', 'zones', 'district', 'districts', 'administrative', '区域统计', 'overlay',
    'per village', 'per district', 'for every field', 'inside the polygons', 'neighbourhoods',
  ],
  field: [
    'field', 'fields', 'parcel', 'parcels', 'plot', 'plots', 'farm', 'farms', 'paddock', 'geojson polygons',
    'blocks', 'sugarcane blocks', 'paddocks', 'orchard blocks',
  ],
  change: [
    'change', 'changes', 'changed', 'change detection', 'before after', 'before and after', 'difference',
    'differencing', 'delta', 'compare', 'comparison', 'between two dates', 'two dates', 'bi temporal',
    'bitemporal', 'multi temporal', 'growth', 'loss', 'gain', 'expansion', 'decline', 'increase', 'decrease',
    'disturbance', '变化', 'lost', 'since', 'shrink', 'shrank', 'shrinking', 'paved over', 'converted',
    'conversion', 'appeared', 'disappeared', 'new development', 'compare dates', 'first date', 'second date',
    'last image', 'declining', 'warmer than', 'cooler than', 'mine', 'mining', 'open pit', 'quarry', 'recovery',
    'regrowth', 'reclamation',
  ],
  change_vector: [
    'change vector', 'change vector analysis', 'cva', 'magnitude and direction', 'spectral change',
  ],
  growth: ['growth', 'expansion', 'grew', 'expand', 'expanded', 'sprawl', 'increase', 'gain'],
  loss: ['loss', 'lost', 'decline', 'decrease', 'removal', 'cleared', 'clearing', 'destroyed', 'degradation'],
  temperature: [
    'lst', 'land surface temperature', 'surface temperature', 'temperature', 'heat', 'hot', 'thermal',
    'thermal infrared', 'tir', 'brightness temperature', 'emissivity', 'urban heat island', 'heat island',
    'uhi', 'celsius', 'kelvin', '温度', 'hottest', 'warmer', 'cooler', 'cool', 'warm', 'degrees celsius', '°c',
    'thermal discharge',
  ],
  chlorophyll: [
    'chlorophyll', 'chlorophyll a', 'chl a', 'ndci', 'algae', 'algal', 'algal bloom', 'bloom', 'cyanobacteria',
    'eutrophication', 'phytoplankton', 'red edge', 'rededge', '叶绿素', 'green tide', 'scum',
    'chlorophyll concentration',
  ],
  water_quality: [
    'water quality', 'turbidity', 'ndti', 'sediment', 'suspended sediment', 'murky', 'clarity', 'chlorophyll',
    'algae', 'bloom', 'ndci', 'pollution',
  ],
  snow: ['snow', 'snow cover', 'ndsi', 'snowpack', 'ice', 'glacier', 'snowline', '雪'],
  moisture: [
    'moisture', 'ndmi', 'soil moisture', 'vegetation moisture', 'water content', 'wetness', 'dryness', 'dry',
    'drought', 'water stress', 'humidity', '湿度', '水分', 'fuel moisture', 'dry vegetation', 'wet',
  ],
  drought: ['drought', 'dry spell', 'water stress', 'arid', 'dryness', 'vci', 'anomaly', '干旱'],
  anomaly: [
    'anomaly', 'anomalies', 'departure', 'deviation from normal', 'baseline', 'long term mean', 'unusual',
    'worse than usual', 'than usual', 'normal year', 'compared to normal', 'unusually',
  ],
  clustering: [
    'kmeans', 'k means', 'k-means', 'unsupervised', 'unsupervised classification', 'cluster', 'clusters',
    'clustering', 'isodata', 'segmentation', 'group similar pixels', 'management zones', 'vigour zones',
    'zoning', 'natural groups',
  ],
  classification: [
    'classification', 'classify', 'classified', 'classes', 'class map', 'land cover map', 'categorize',
    'categorise', 'label pixels', 'thematic map', 'kmeans', 'random forest', 'supervised', 'unsupervised', '分类',
  ],
  supervised: [
    'random forest', 'rf', 'supervised', 'supervised classification', 'training', 'training data',
    'training samples', 'training polygons', 'labelled samples', 'labeled samples', 'svm', 'classifier',
    'machine learning', 'labelled', 'labeled', 'labelled polygons', 'labeled polygons',
  ],
  accuracy: [
    'accuracy', 'accuracy assessment', 'confusion matrix', 'kappa', 'overall accuracy', 'validation',
    'reference points', 'ground truth', 'error matrix', 'precision', 'recall',
  ],
  land_cover: [
    'land cover', 'landcover', 'land use', 'lulc', 'worldcover', 'esa worldcover', 'cover types',
    'cover classes', '土地覆盖', 'farmland', 'cropland', 'bare land', 'land cover classes',
  ],
  threshold: [
    'threshold', 'thresholding', 'cutoff', 'binarize', 'binary mask', 'greater than', 'less than', 'above',
    'below', 'otsu', 'automatic threshold', '阈值', 'more than', 'exceed', 'exceeds', 'exceeding', 'greater',
    'higher than', 'lower than', 'steeper than', 'at least', 'at most', 'hotspot', 'hotspots', 'critically',
    'flag pixels', 'cut off value',
  ],
  reclassify: [
    'reclassify', 'reclass', 'bin', 'bins', 'breaks', 'class breaks', 'categories', 'recode', '重分类',
    'intervals', 'interval', 'elevation bands', 'class ranges', 'grading', 'levels',
  ],
  band_math: [
    'band math', 'band maths', 'raster calculator', 'expression', 'formula', 'ratio', 'band ratio',
    'arithmetic', 'custom index', 'map algebra',
  ],
  morphology: [
    'morphology', 'morphological', 'opening', 'closing', 'dilate', 'dilation', 'erode', 'erosion', 'clean mask',
    'remove noise', 'speckle', 'small holes', 'denoise', 'smooth mask',
  ],
  patches: [
    'connected', 'connected components', 'patches', 'patch', 'regions', 'blobs', 'objects', 'clumps',
    'minimum mapping unit', 'mmu', 'sieve', '斑块',
  ],
  distance: [
    'distance', 'proximity', 'how far', 'nearest', 'euclidean distance', 'distance to', 'far from', 'away from',
    'closest',
  ],
  buffer: [
    'buffer', 'buffers', 'buffer zone', 'around', 'within meters', 'setback', '缓冲区', 'corridor', 'along the',
    'either side', 'both sides',
  ],
  reproject: [
    'reproject', 'reprojection', 'projection', 'project', 'crs', 'epsg', 'warp', 'gdalwarp', 'utm', 'wgs84',
    'coordinate system', 'coordinate reference system', 'transform coordinates', 'lonlat', 'lat lon', 'srs',
    '重投影', '投影', 'web mercator', 'mercator', '3857', '4326', 'same projection', 'same crs',
  ],
  clip: [
    'clip', 'clipping', 'crop', 'cut', 'subset', 'aoi', 'area of interest', 'study area', 'bbox',
    'bounding box', 'extent', 'window', 'cutline', 'trim', 'extract region', '裁剪',
  ],
  mosaic: [
    'mosaic', 'mosaicking', 'merge', 'merging', 'stitch', 'combine tiles', 'tiles', 'vrt', 'gdalbuildvrt', '镶嵌',
  ],
  vectorize: [
    'polygonize', 'polygonise', 'vectorize', 'vectorise', 'raster to vector', 'outline', 'outlines', 'boundary',
    'boundaries', 'footprint', 'shapefile', 'geojson', 'polygons', 'features', '矢量化',
  ],
  vector: [
    'vector', 'shapefile', 'shp', 'geojson', 'geopackage', 'gpkg', 'kml', 'polygon', 'polygons', 'points',
    'lines', 'features', 'ogr', 'ogr2ogr', '矢量', 'well points', 'point layer', 'sample points',
  ],
  rasterize: ['rasterize', 'rasterise', 'burn polygons', 'vector to raster', 'gdal_rasterize', '栅格化'],
  raster: [
    'raster', 'geotiff', 'tif', 'tiff', 'grid', 'image', 'imagery', 'pixel', 'pixels', 'band', 'bands', '栅格',
  ],
  export: [
    'export', 'save', 'write', 'output', 'cog', 'cloud optimized geotiff', 'cloud optimised geotiff', 'convert',
    'format', 'translate', 'gdal_translate', 'share', 'publish', '导出',
  ],
  visualize: [
    'png', 'quicklook', 'preview', 'quick map', 'map image', 'visualize', 'visualise', 'visualization',
    'display', 'plot', 'render', 'colormap', 'colour map', 'color map', 'picture', 'figure', 'thumbnail', '可视化',
    '地图', 'web map',
  ],
  stac_search: [
    'stac', 'search', 'find imagery', 'find scenes', 'find images', 'catalog', 'catalogue', 'scene search',
    'query scenes', 'acquisition', 'acquisitions', 'available imagery',
    'cloud cover filter', '搜索', 'look for', 'whatever scenes', 'which scenes', 'what imagery',
    'imagery available', 'scenes exist',
  ],
  download: ['download', 'fetch', 'retrieve', 'acquire', 'obtain', '下载'],
  time_series: [
    'time series', 'timeseries', 'temporal', 'over time', 'multi year', 'multiyear', 'monthly', 'yearly',
    'annual', 'seasonal', 'stack of scenes', 'image stack', 'dates', 'trend', '时间序列', 'week by week', 'weekly',
    'each year', 'every year', 'improving', 'getting worse', 'over the year', 'through the winter',
    'through the season', 'year by year', 'since',
  ],
  trend: [
    'trend', 'trends', 'slope over time', 'linear trend', 'regression', 'greening', 'browning', 'long term',
    '趋势', 'recovery', 'regrowth', 'improving', 'getting better',
  ],
  phenology: [
    'phenology', 'phenological', 'start of season', 'end of season', 'peak of season', 'growing season',
    'green up', 'senescence', 'sos', 'eos', 'seasonal cycle', '物候',
  ],
  breakpoint: ['bfast', 'breakpoint', 'breakpoints', 'break detection', 'abrupt change', 'disturbance date'],
  composite: [
    'composite', 'compositing', 'median composite', 'mosaic of scenes', 'cloud free composite', 'best pixel',
    'temporal median', '合成',
  ],
  atmospheric_correction: [
    'atmospheric correction', 'dos', 'dark object subtraction', 'surface reflectance', 'top of atmosphere',
    'toa', 'radiometric correction', 'haze removal', '大气校正',
  ],
  resample: [
    'resample', 'resampling', 'downsample', 'upsample', 'aggregate pixels', 'coarser', 'finer', 'resolution',
    'pixel size', 'cell size', '重采样', 'grid cells', 'coarser grid', 'km grid', 'same grid', 'align grids',
    'aggregate to',
  ],
  fill_nodata: [
    'fill nodata', 'fill gaps', 'gap filling', 'holes', 'missing data', 'interpolate gaps', 'nodata', 'void',
  ],
  pansharpen: [
    'pansharpen', 'pansharpening', 'pan sharpen', 'panchromatic', 'fusion', 'sharpen', 'higher resolution',
  ],
  forest: [
    'forest', 'forests', 'tree', 'trees', 'woodland', 'tree cover', 'canopy cover', 'logging', 'timber',
    'plantation', '森林', 'mangrove', 'mangroves', 'orchard', 'clear cut', 'harvest blocks',
  ],
  deforestation: [
    'deforestation', 'forest loss', 'tree loss', 'clear cut', 'clearcut', 'logging', 'forest clearing',
    'forest disturbance', 'canopy loss', '砍伐', 'harvest blocks', 'forest cut',
  ],
  cropland: [
    'crop', 'crops', 'cropland', 'agriculture', 'agricultural', 'farm', 'farmland', 'field', 'fields',
    'harvest', 'yield', 'rice', 'wheat', 'maize', 'corn', 'soybean', 'paddy', 'irrigation', '耕地', '农田',
  ],
  tasseled_cap: ['tasseled cap', 'tasselled cap', 'kauth thomas', 'brightness greenness wetness', 'tct'],
  metadata: [
    'info', 'information', 'metadata', 'gdalinfo', 'inspect', 'describe', 'band count', 'resolution',
    'properties', 'header',
  ],
  sensor: [
    'sentinel', 'sentinel 2', 's2', 'landsat', 'landsat 8', 'landsat 9', 'naip', 'planetscope', 'planet',
    'modis', 'satellite', 'multispectral',
  ],
  // What remote sensing is applied to: the words of teams who bring their own catalogs (insurers,
  // carbon projects, municipalities, disaster response), written from the domain, not from a test set.
  insurance: [
    'insurance', 'insured', 'insurer', 'insurers', 'policyholder', 'policyholders', 'policy holders', 'portfolio',
    'book of business', 'tiv', 'total insured value', 'sum insured', 'insured value', 'claims', 'claim',
    'underwriting', 'underwriter', 'reinsurance', 'reinsurer', 'premium', 'deductible', 'deductibles',
    'cat model', 'catastrophe model', '保险', '保单', '理赔', '承保', '投保',
  ],
  damage: [
    'damage', 'damaged', 'destroyed', 'destruction', 'losses', 'loss estimate', 'economic loss', 'cost',
    'costs', 'repair cost', 'depth damage', 'damage function', 'damage curve', 'vulnerability curve',
    'ground up loss', '损失', '损毁', '受灾', '灾损',
  ],
  population: [
    'population', 'people', 'residents', 'inhabitants', 'households', 'census', 'worldpop', 'population density',
    'demographic', 'demographics', 'affected people', 'persons', '人口', '居民', '常住人口',
  ],
  buildings: [
    'building', 'buildings', 'footprint', 'footprints', 'building footprints', 'house', 'houses', 'homes',
    'property', 'properties', 'structures', 'dwellings', 'rooftops', 'roofs', '建筑', '建筑物', '房屋', '住宅',
  ],
  transport: [
    'road', 'roads', 'street', 'streets', 'highway', 'highways', 'railway', 'railways', 'rail', 'route', 'routes',
    'routing', 'accessibility', 'travel time', 'bridge', 'bridges', 'infrastructure', 'osm', 'openstreetmap',
    'road network', '道路', '公路', '铁路', '交通', '基础设施',
  ],
  admin_area: [
    'district', 'districts', 'county', 'counties', 'municipality', 'municipalities', 'province', 'provinces',
    'administrative', 'admin boundary', 'admin boundaries', 'administrative boundaries', 'commune', 'parish',
    'ward', 'wards', 'gadm', 'nuts region', 'area of interest', 'aoi', 'bounding box', 'bbox', '行政区', '行政区划',
    '乡镇', '街道办',
  ],
  geocode: [
    'geocode', 'geocoding', 'geocoded', 'address', 'addresses', 'postcode', 'postcodes', 'zip code', 'zip codes',
    'street address', 'street addresses', '地理编码', '地址',
  ],
  carbon: [
    'carbon', 'carbon stock', 'carbon stocks', 'biomass', 'agb', 'above ground biomass', 'aboveground biomass',
    'emissions', 'co2', 'sequestration', 'sequestered', 'mrv', 'redd', 'carbon credits', 'tonnes of carbon',
    'allometric', 'allometry', '碳', '碳储量', '生物量', '碳汇', '碳排放',
  ],
  lidar: [
    'lidar', 'point cloud', 'point clouds', 'las', 'laz', 'canopy height', 'chm', 'tree height', 'tree heights',
    'canopy height model', 'dsm', 'ndsm', 'gedi', 'icesat', '激光雷达', '点云', '树高', '冠层高度',
  ],
  weather: [
    'rainfall', 'rain', 'precipitation', 'gpm', 'imerg', 'chirps', 'era5', 'weather', 'storm total',
    'accumulated rainfall', 'river gauge', 'gauge', 'gauges', 'discharge', 'streamflow', 'forecast',
    '降雨', '降水', '降雨量', '径流', '气象',
  ],
  coastal_surge: [
    'storm surge', 'surge', 'sea level', 'sea level rise', 'tide', 'tides', 'tidal', 'coastal flooding',
    'water level', '风暴潮', '潮位', '海平面',
  ],
  water_depth: [
    'depth', 'water depth', 'flood depth', 'inundation depth', 'how deep', 'deep', '水深', '淹没深度',
  ],
};

interface LexiconIndex {
  phrases: Map<string, string[]>;
  /** Proper prefixes of multi-token phrases: lets matching stop as soon as no phrase can continue. */
  prefixes: Set<string>;
}

let built: LexiconIndex | undefined;

function lexiconIndex(): LexiconIndex {
  if (built) return built;
  const phrases = new Map<string, string[]>();
  const prefixes = new Set<string>();
  for (const [concept, surfaces] of Object.entries(CONCEPT_LEXICON)) {
    for (const s of surfaces) {
      const toks = tokenize(s);
      if (toks.length === 0) continue;
      // a Chinese surface word is matched by its own token (dictionary word or bigram), not its n-grams
      const han = /\p{Script=Han}/u.test(s);
      const key = han ? s : toks.join(' ');
      if (!han) for (let n = 1; n < toks.length; n++) prefixes.add(toks.slice(0, n).join(' '));
      const list = phrases.get(key) ?? [];
      if (!list.includes(concept)) list.push(concept);
      phrases.set(key, list);
    }
  }
  built = { phrases, prefixes };
  return built;
}

/**
 * Concept ids found in a token sequence (output of `tokenize`), one entry per occurrence, in text
 * order. Matching is greedy longest-phrase-first; a phrase may fire several concepts.
 */
export function expandConcepts(tokens: string[]): string[] {
  const { phrases, prefixes } = lexiconIndex();
  const out: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    let key = tokens[i];
    let best = phrases.get(key);
    let bestLen = best ? 1 : 0;
    for (let j = i + 1; j < tokens.length && prefixes.has(key); j++) {
      key += ' ' + tokens[j];
      const c = phrases.get(key);
      if (c) {
        best = c;
        bestLen = j - i + 1;
      }
    }
    if (best) for (const x of best) out.push(x);
    i += bestLen > 0 ? bestLen : 1;
  }
  return out;
}

/** All concept ids of the lexicon. */
export function conceptIds(): string[] {
  return Object.keys(CONCEPT_LEXICON);
}
