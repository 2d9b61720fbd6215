/** README written next to the sample files. */
export const SAMPLE_README = `# GeoWeave sample workspace

Synthetic but realistic data, generated deterministically by \`geoweave sample\` (same bytes every
time). All rasters cover the same 6 x 6 km in WGS 84 / UTM zone 50N (EPSG:32650), upper-left corner
(500000, 4430000): 600 x 600 pixels of 10 m, except the Landsat scene (200 x 200 pixels of 30 m).

| file | what it is |
|---|---|
| \`s2_scene.tif\` | Sentinel-2 L2A-like scene, 8 uint16 bands described blue, green, red, rededge, nir, swir1, swir2, scl. DN = reflectance x 10000, nodata 0 (a swath gap in the north-west corner). A meandering river running north-south, a lake in the south-west, forest on the western hills, cropland fields in the south-east, a town with a street grid in the north-east, three cloud groups with shadows (SCL 8/9/10 clouds, 3 shadows, 6 water, 4 vegetation, 5 not vegetated). |
| \`fire_pre.tif\`, \`fire_post.tif\` | Cloud-free scenes before and after a wildfire, 7 bands blue..swir2 (same scaling). The post-fire scene has a burn scar on the western hills with graded severity: NIR drops, SWIR2 rises. |
| \`urban_2018.tif\`, \`urban_2024.tif\` | Before/after pair (7 bands): the town grows south and east over farmland. |
| \`dem.tif\` | Elevation in metres (float32, nodata -9999): hills to the west, a valley along the river, a flat lake surface. |
| \`thermal_landsat.tif\` | Landsat 8/9 Collection 2 Level-2-like summer scene of the same landscape, 30 m, 9 uint16 bands described SR_B1..SR_B7, ST_B10, QA_PIXEL (the \`landsat89_c2l2\` stack). Reflectance = DN x 0.0000275 - 0.2; surface temperature = DN x 0.00341802 + 149.0 K (ST_B10 is already emissivity-corrected land surface temperature). DN 0 is fill (QA_PIXEL 1) in a small north-east corner. Clear ground is about 23-46 C: town, roads, bare soil and fallow fields hottest, lake, river and the forested western hills coolest; the same three cloud groups (cold cloud tops, about 6-15 C) and shadows are flagged in QA_PIXEL bits (1 dilated cloud, 2 cirrus, 3 cloud, 4 shadow, 6 clear, 7 water). |
| \`fields.geojson\` | 12 field polygons over the south-east cropland, in EPSG:32650 coordinates (\`crs\` member), with \`id\` and \`crop\`. |

Try: \`geoweave run ndvi --arg image=s2_scene.tif --out out\`, the burn severity workflow on
\`fire_pre.tif\`/\`fire_post.tif\`, or \`geoweave run land_surface_temperature --arg image=thermal_landsat.tif --out out\`.
`;
