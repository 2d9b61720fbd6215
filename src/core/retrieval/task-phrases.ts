/**
 * What a task's wording says about the steps it needs, as analysts phrase it in English and
 * Chinese: time comparisons, the deliverable to hand over, a land-cover class to pick out. Read
 * by backward retrieval. Patterns are chosen by cross-validation on the practice flows, and since
 * 2026-11-30 checked on the blind validation set too (bench/README.md).
 */
import type { DeliverableKind } from '../manifests/deliverables';

/** The task asks about time: a comparison, a trend, a change since a date, two seasons. */
export const TEMPORAL = /\b(compar\w*|before and after|versus|vs|trend\w*|over time|since|change[sd]?|increas\w*|decreas\w*|grow\w*|expan\w*|shrink\w*|loss|lost|gain\w*|recover\w*|regrowth|(coming|come|bounc\w*) back|time series|series|dates|anomal\w*|baseline|(wet|dry) season|(summer|winter|spring|autumn)( season)? (and|versus|vs\.?|against) (summer|winter|spring|autumn))\b|变化|对比|温差|两期|(夏|冬|春|秋)季(和|与|跟|对比)(夏|冬|春|秋)季|比较|前后|趋势|以来|扩大|缩小|减少|增加|多年|逐年|退化|恢复/i;
/** The task follows many dates (a yearly series, a decade, a whole season), not a before/after pair. */
export const SERIES = /\b(every|each) (year|month|season|summer|acquisition)|\b(yearly|annual(ly)?|monthly|year[- ]by[- ]year|year after year|summer after summer|time[- ]series|series|over the (last|past) (decade|\d+ years|(two|three|four|five|ten|twenty) years)|keep(s|ing)? (improving|declining|getting)|still (recovering|declining)|how fast|through(out)? the (season|summer|year))\b|逐年|每年|历年|多年|近(十|二十|\d+)年|时间序列|持续|逐月|每月/i;
/** Time slots that span dates ("since 2016", "between 2015 and 2020"), not a single date ("in 2023"). */
export const TIME_SPAN = /since|after|before|from|between|until|以来|之后|以前/i;

/**
 * What the task asks to hand over, or an operation it names outright (classes, counting, management
 * zones, a baseline, the year of a break): the kind of deliverable, which the tools of a catalog
 * declare in their manifests (`delivers`). Analysts often say how they want the answer ("as
 * polygons", "per field", "a thumbnail"); that names a closing step the chain of products alone
 * cannot predict.
 */
export const DELIVERABLES: { re: RegExp; kind: DeliverableKind }[] = [
  { re: /\b(show|showing|display|visuali[sz]e|preview|thumbnail|quick[- ]?(look|map|view)|png|figure|picture|a map (i|we) can|(as a|as one|a single) map|one map (with|showing|of)|for the (annual )?report)\b|缩略图|预览|出(个|张|一张|幅)?图|出一?(张|幅|个)[^，。,；]{1,10}图|看看.{0,6}(分布|哪里|在哪)|专题图|展示|可视化/i, kind: 'preview' },
  { re: /\b(polygons?|outlines?|shapefile|geojson|vector layer|boundar(y|ies) of)\b|矢量|多边形|面要素|边界线/i, kind: 'polygons' },
  { re: /\b(per|each|every|by|for each) ([\w-]+ ){0,2}(field|parcel|plot|paddock|farm|stand|unit|block|district|county|township|village|neighbou?rhood|ward|municipality|province|state|zone|polygon|feature|site|reach|reservoir|lake|pond|watershed|catchment|basin|region|tract|estate|compartment|city|cities|counties|municipalities|properties)s?\b|每(个|块|条|座|片)|各(个|街道|乡镇|区|县|村|地块|流域)|逐个|按.{0,4}(地块|区|县|乡|镇|村|街道|流域|作物)|按.{0,6}(边界|范围)(统计|汇总)|\bwhich (of the |of our )?([\w-]+ )?(fields|parcels|plots|paddocks|farms|orchards|stands|districts|counties|townships|villages|neighbou?rhoods|wards|zones|sites|reaches|reservoirs|lakes|watersheds|catchments)\b|哪(几|些)(个|块|座|片|条)?.{0,4}(地块|果园|田|村|乡镇|街道|区|县|湖|水库|流域)/i, kind: 'per_zone_table' },
  { re: /\b(cog|cloud[- ]optimi[sz]ed)\b|导出为?COG/i, kind: 'cog' },
  { re: /\bmosaic\w*|\bstitch\w*|\badjacent (paths|rows|tiles|scenes)\b|\bmerg\w* (them |the tiles |the scenes )?into one\b|镶嵌|拼接|拼成一(幅|张|景)/i, kind: 'mosaic' },
  // Classes the analyst names ("into bare, sparse and dense", "(mild, moderate, severe)", 分成初级、中级、高级) are breaks on a value.
  { re: /\b(classif\w*|group\w*|split|divid\w*|bin|sort|break|merg\w*|reclass\w*)\b[^.;:]{0,40}\binto\s+[\w-]+( [\w-]+)?(, [\w-]+( [\w-]+)?)+(,? (and|or) [\w-]+)?|\bclasses \([\w-]+(, [\w-]+)+\)|分(成|为)[^，。,；]{0,8}(档|等级|级别)|分(成|为)[^，。,；]{1,8}、[^，。,；]{1,8}、|分级/i, kind: 'classes' },
  // Counting separate things in a mask is labelling connected patches.
  { re: /\bhow many (separate |distinct |individual )?([\w-]+ ){0,2}(patches|fragments|ponds|lakes|wetlands|sites|blocks|clearings|hot ?spots|spots|objects|scars|clusters|buildings)\b|\bcount (the |how many )?([\w-]+ ){0,2}(patches|fragments|ponds|lakes|wetlands|sites|blocks|clearings|hot ?spots|spots|objects|scars|clusters|buildings)\b|有几(处|个|块|片|段)|多少(处|个|块|片)|数一下/i, kind: 'count' },
  { re: /\b\d+(\.\d+)?\s?(k?m|kilomet\w+|met\w+) (grid|cells?|resolution|pixels)\b|\bcoarser (grid|resolution|pixels)\b|\d+\s?(米|公里|千米)(格网|网格|分辨率)/i, kind: 'coarser_grid' },
  { re: /\b(inside|within|only in|limited to|restricted to|clip(ped)? to|crop(ped)? to|cut (out )?to) (the |my |our |a |this )?([\w-]+ ){0,3}(boundary|boundaries|limits?|perimeter|polygons?|outline|footprint|buffer|ring|area of interest|aoi)\b|\b(field|parcel|plot|block) \d+ only\b|(边界|范围|轮廓|缓冲区)(内|以内|之内)|只保留.{0,12}(范围|边界)|裁剪到|裁切到/i, kind: 'clip_to_boundary' },
  // Management zones in a field are clusters of the index (k-means), not zones to summarise by.
  { re: /\b(management|vigou?r|prescription|productivity|yield|variable[- ]rate) zones?\b|管理分区|施肥分区|变量施肥|长势分区/i, kind: 'management_zones' },
  // A season or month set against the same time in past years is an anomaly from a baseline, not a two-date difference.
  { re: /\b(same (period|time|month|season|weeks?) (of|in|last) |(vs\.?|versus|against|than|compared (with|to)) (the )?(last|past|previous|preceding) (\d+|two|three|four|five|ten) years|than (usual|normal)|long[- ]term (mean|average|normal)|(vegetation|greenness|ndvi) anomal\w*|below normal|above normal)|同期|往年|历年|距平/i, kind: 'anomaly' },
  // "When did it happen" over a series is the date of a break, not a two-date difference.
  { re: /\b(when did(?![^.?]{0,40}\b(green|leaf|leaves|bloom|flower|emerge|harvest|peak|sow|plant|season))|what year|which year|in which year|year of (the )?(clearing|disturbance|logging|fire|break)|break (year|date)s?)\b|哪一?年(被|开始|发生|砍|烧|建)?|什么时候(开始)?(被)?(砍|枯|死|开发|建|毁|烧|退化|消失)|具体年份|从何时/i, kind: 'break_date' },
  // Land-cover types as the zones of a summary need a land-cover map first.
  { re: /\b(by|per|each|across|for each|between) (\w+ )?land[- ]?(cover|use) (class|type|categor)\w*|\bland[- ]cover (class|type)s? (is|are)\b|\bforest types\b|按(土地覆盖|土地利用|地类)|(土地覆盖|土地利用|地类)类型|主要是.{1,4}还是/i, kind: 'land_cover_map' },
];

/** Land-cover classes as analysts name them: one of them named over a class map is a class to pick out. */
export const COVER_CLASSES: [string, RegExp][] = [
  ['crop', /\b(crop ?land|farm ?land|arable|cultivated)\b|耕地|农田/i],
  ['water', /\b(water|open water|water bodies)\b|水体|水域/i],
  ['tree', /\b(tree cover|forest|woodland)\b|林地|森林|树木覆盖/i],
  ['built', /\b(built[- ]up|urban|settlements?|impervious)\b|建设用地|建成区|不透水/i],
  ['grass', /\b(grass ?land|pasture)\b|草地/i],
  ['wetland', /\b(wetlands?|mangroves?)\b|湿地|红树林/i],
  ['bare', /\bbare\b|裸地/i],
];

