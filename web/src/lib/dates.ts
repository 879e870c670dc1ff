/**
 * Dates and times as en-US writes them, in the browser's time zone, without Intl: the first
 * toLocale*String call loads the locale's data, 45 ms of a cold open's main thread when the
 * sessions list drew its first date (bench/ui-replay --profile).
 */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Dec 3". */
export function monthDay(date: Date): string {
  return `${MONTHS[date.getMonth()]} ${date.getDate()}`;
}

/** "Dec 3, 2026". */
export function fullDate(date: Date): string {
  return `${monthDay(date)}, ${date.getFullYear()}`;
}

/** "3:05 PM". */
export function clockTime(date: Date): string {
  const hours = date.getHours();
  return `${hours % 12 === 0 ? 12 : hours % 12}:${String(date.getMinutes()).padStart(2, '0')} ${hours < 12 ? 'AM' : 'PM'}`;
}

/** "Dec 3, 2026, 3:05 PM". */
export function dateTime(date: Date): string {
  return `${fullDate(date)}, ${clockTime(date)}`;
}
