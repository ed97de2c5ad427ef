// The view the user chose: the period, the period it is compared with,
// mailboxes, tags and viewBy. It lives in the page's query string, so a
// view can be bookmarked and shared, and becomes the reports' parameters.
// Days are whole UTC days, both ends included on the page; the API's `end`
// is exclusive, so it is the next day's midnight.

const dayMs = 86400000;

export function isoDay(date) {
  return date.toISOString().slice(0, 10);
}

function parseDay(text) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text ?? '')) return null;
  const date = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

function ids(text) {
  return (text ?? '').split(',').filter((s) => /^\d+$/.test(s));
}

function addDays(date, days) {
  return new Date(date.getTime() + days * dayMs);
}

// days counts the days of a period, both ends included.
export function days(start, end) {
  return Math.round((end - start) / dayMs) + 1;
}

// preceding is the period of the same length that ends the day before start.
export function preceding(start, end) {
  const previousEnd = addDays(start, -1);
  return { previousStart: addDays(previousEnd, 1 - days(start, end)), previousEnd };
}

// readView reads a view from a query string; what is missing or malformed
// takes its default: the 30 days to today, compared with the 30 before.
export function readView(search, today) {
  const q = new URLSearchParams(search);
  const todayUTC = parseDay(isoDay(today));
  const end = parseDay(q.get('end')) ?? todayUTC;
  let start = parseDay(q.get('start')) ?? addDays(end, -29);
  if (start > end) start = end;
  let { previousStart, previousEnd } = preceding(start, end);
  const ps = parseDay(q.get('previousStart'));
  const pe = parseDay(q.get('previousEnd'));
  if (ps && pe && ps <= pe) [previousStart, previousEnd] = [ps, pe];
  const viewBy = ['day', 'week', 'month'].includes(q.get('viewBy')) ? q.get('viewBy') : '';
  return { start, end, previousStart, previousEnd, mailboxes: ids(q.get('mailboxes')), tags: ids(q.get('tags')), viewBy };
}

// queryOf is the query string of a view.
export function queryOf(view) {
  const q = new URLSearchParams({
    start: isoDay(view.start), end: isoDay(view.end),
    previousStart: isoDay(view.previousStart), previousEnd: isoDay(view.previousEnd),
  });
  if (view.mailboxes.length) q.set('mailboxes', view.mailboxes.join(','));
  if (view.tags.length) q.set('tags', view.tags.join(','));
  if (view.viewBy) q.set('viewBy', view.viewBy);
  return `?${q}`;
}

// at is the API's form of an instant.
export function at(date) {
  return date.toISOString().replace('.000Z', 'Z');
}

// period is the current (or, with previous, the compared) period as the
// API's half-open interval.
export function period(view, previous = false) {
  const [start, end] = previous ? [view.previousStart, view.previousEnd] : [view.start, view.end];
  return { start: at(start), end: at(addDays(end, 1)) };
}

// filters are the parameters every report and drill-down of the view takes.
export function filters(view) {
  return { mailboxes: view.mailboxes.join(','), tags: view.tags.join(',') };
}

// reportParams are a report's parameters: both periods and the filters.
export function reportParams(view) {
  const previous = period(view, true);
  return { ...period(view), previousStart: previous.start, previousEnd: previous.end, ...filters(view) };
}
