/** What a trend summary adds when its dates are only two (raster/tools/time_series_trend.ts writes it,
 *  results/summary-zh-tools.ts says it in Chinese). Kept apart so neither pulls in the other. */
export const TWO_DATES = 'Two dates give a difference per year, not a trend: noise alone makes a pixel rise or decline, so the shares above count unchanged ground too; change_difference separates change from noise.';
export const TWO_DATES_ZH = '只有两个日期时得到的是每年的差值而非趋势：仅噪声就会让像元上升或下降，上面的比例也包含了未变化的地表；要区分变化与噪声，请用 change_difference。';
