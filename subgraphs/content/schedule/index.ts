/**
 * Schedules: a page's `data.schedule` items expanded into occurrences (repeats `none`, `daily`,
 * `weekly`; `start_date`; `all_day` in the item's time zone or UTC), what plays now, the countdown before
 * a show, the checks of page writes, and what a schedule panel lists between two times.
 */
export { countdownOf, type Countdown } from './countdown';
export { REPEATS, readItem, scheduleOf, type Repeat, type ScheduleItem } from './items';
export { nextStartAfter, occurrencesBetween, occurrencesFrom, playingNow, type Occurrence, type Playing } from './occurrences';
export { checkWindow, MAX_ENTRIES, MAX_WINDOW_MS, panelSchedule, type PanelSchedule, type ScheduleEntry } from './panel';
export { checkScheduleData, MAX_SCHEDULE_ITEMS } from './validation';
