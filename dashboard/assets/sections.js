// The dashboard's sections, one per report family. Each draws the answer
// of its endpoint as the API gave it; clicking a bar opens the drill-down
// endpoint that lists the conversations counted in it.
import { get, every, pooled, APIError } from './api.js';
import { barChart, colors } from './charts.js';
import { drillDown } from './drilldown.js';
import { count, number, duration, delta, day, el } from './format.js';
import { period, filters, reportParams } from './view.js';

// The time ranges of the productivity distributions, by id (README
// "Productivity": the API answers ids only).
const timeRanges = ['<15 min', '15-30 min', '30-60 min', '1-2 h', '2-3 h', '3-6 h', '6-12 h', '12-24 h', '1-2 days', '>2 days'];
const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const channels = ['email', 'chat', 'phone'];

// The summary cards: [report, figure, title, format, lower is better].
const cards = [
  ['conversations', 'totalConversations', 'Conversations', count],
  ['conversations', 'newConversations', 'New conversations', count],
  ['conversations', 'customers', 'Customers', count],
  ['productivity', 'repliesSent', 'Replies sent', count],
  ['productivity', 'firstResponseTime', 'First response time', duration, true],
  ['productivity', 'resolved', 'Resolved', count],
  ['productivity', 'resolutionTime', 'Resolution time', duration, true],
  ['company', 'customersHelped', 'Customers helped', count],
  ['happiness', 'happinessScore', 'Happiness score', number],
];

function deltaBadge(value, lowerIsBetter) {
  const better = lowerIsBetter ? value < 0 : value > 0;
  const cls = value === null || value === undefined || value === 0 ? 'delta' : `delta ${better ? 'better' : 'worse'}`;
  return el('span', { class: cls }, delta(value));
}

// summaryCards draws the cards of one report's figures, with the previous
// period's value and the API's delta.
export function summaryCards(report, body) {
  const box = document.getElementById('summary');
  for (const [name, figure, title, format, lowerIsBetter] of cards) {
    if (name !== report) continue;
    const [cur, prev, d] = [body.current?.[figure], body.previous?.[figure], body.deltas?.[figure]];
    const card = el('article', {
      class: 'card', 'data-report': report, 'data-figure': figure,
      'data-current': JSON.stringify(cur ?? null), 'data-previous': JSON.stringify(prev ?? null), 'data-delta': JSON.stringify(d ?? null),
    },
    el('h3', {}, title),
    el('div', { class: 'value' }, format(cur)),
    el('div', { class: 'previous' }, `previous: ${format(prev)}`, deltaBadge(d, lowerIsBetter)));
    const old = box.querySelector(`[data-report="${report}"][data-figure="${figure}"]`);
    if (old) old.replaceWith(card); else box.append(card);
  }
  const order = cards.map(([r, f]) => `${r}.${f}`);
  const sorted = [...box.children].sort((a, b) =>
    order.indexOf(`${a.dataset.report}.${a.dataset.figure}`) - order.indexOf(`${b.dataset.report}.${b.dataset.figure}`));
  box.append(...sorted);
}

// stepOf is the half-open interval of point i of a series.
function stepOf(points, i, periodEnd) {
  return { start: points[i].start, end: points[i + 1]?.start ?? periodEnd };
}

function drillStep(view, points, i, previous, extra, what) {
  const { start, end } = stepOf(points, i, period(view, previous).end);
  return drillDown(`${what} from ${day(start)} to ${day(end)}`, 'v2/reports/conversations/new-drilldown',
    { ...filters(view), start, end, ...extra });
}

// volume draws new conversations (current and previous period, bars) and
// received messages (a line); a bar lists the new conversations of its step.
export function volume(view, created, received) {
  const labels = created.current.map((p) => day(p.start));
  barChart(document.getElementById('chart-volume'), {
    labels,
    datasets: [
      { label: 'New conversations', data: created.current.map((p) => p.count), backgroundColor: colors.current },
      { label: 'New conversations, previous period', data: (created.previous ?? []).map((p) => p.count), backgroundColor: colors.previous },
      { type: 'line', label: 'Received messages', data: received.current.map((p) => p.count), borderColor: colors.line, backgroundColor: colors.line },
    ],
    tooltipTitle: (item) => (item.datasetIndex === 1 ? `previous: ${day(created.previous[item.dataIndex].start)}` : item.label),
    onBar: (dataset, i) => {
      if (dataset === 2) return null;
      const previous = dataset === 1;
      return drillStep(view, previous ? created.previous : created.current, i, previous, {}, 'New conversations');
    },
  });
}

// channelVolume draws new conversations by channel, stacked per step.
export function channelVolume(view, series) {
  barChart(document.getElementById('chart-channels'), {
    labels: series.current.map((p) => day(p.start)),
    stacked: true,
    datasets: channels.map((ch) => ({ label: ch, data: series.current.map((p) => p[ch]), backgroundColor: colors[ch] })),
    onBar: (dataset, i) => drillStep(view, series.current, i, false, { types: channels[dataset] }, `New ${channels[dataset]} conversations`),
  });
}

// distribution draws one of the productivity report's time distributions;
// a bar lists the conversations of its range (company drill-down).
export function distribution(view, canvasID, dist, range, what) {
  barChart(document.getElementById(canvasID), {
    labels: dist.ranges.map((r) => timeRanges[r.id - 1]),
    datasets: [
      { label: 'Current period', data: dist.ranges.map((r) => r.count), backgroundColor: colors.current },
      { label: 'Previous period', data: dist.ranges.map((r) => r.previousCount), backgroundColor: colors.previous },
    ],
    onBar: (dataset, i) => {
      const r = dist.ranges[i];
      const previous = dataset === 1;
      return drillDown(`${what} ${timeRanges[r.id - 1]}${previous ? ', previous period' : ''}`, 'v2/reports/company/drilldown',
        { ...filters(view), ...period(view, previous), range, rangeId: r.id });
    },
  });
}

// busyTimes draws the new conversations of each hour of the day, a
// stacked segment per weekday. The API has no hour-of-week filter, so
// these bars do not drill down.
export function busyTimes(hours) {
  const byDay = weekdays.map(() => new Array(24).fill(0));
  for (const h of hours) byDay[h.day - 1][h.hour] = h.count;
  barChart(document.getElementById('chart-busy'), {
    labels: Array.from({ length: 24 }, (_, h) => `${h}h`),
    stacked: true,
    datasets: weekdays.map((name, d) => ({ label: name, data: byDay[d], backgroundColor: colors.weekdays[d] })),
  });
}

// happiness draws the ratings by kind, current and previous period; a bar
// lists its ratings (happiness ratings list).
export function happiness(view, report) {
  const box = document.getElementById('happiness');
  box.querySelector('.empty')?.remove();
  if (!report.current.ratingsCount && !report.previous?.ratingsCount) {
    box.querySelector('.hint').after(el('p', { class: 'empty' }, 'No ratings in either period.'));
  }
  const kinds = [['great', 'Great', 'greatCount'], ['okay', 'Okay', 'okayCount'], ['not-good', 'Not good', 'notGoodCount']];
  barChart(document.getElementById('chart-happiness'), {
    labels: kinds.map(([, label]) => label),
    datasets: [
      { label: 'Current period', data: kinds.map(([, , f]) => report.current[f]), backgroundColor: [colors.great, colors.okay, colors.notGood] },
      { label: 'Previous period', data: kinds.map(([, , f]) => report.previous?.[f] ?? 0), backgroundColor: colors.previous },
    ],
    onBar: (dataset, i) => {
      const previous = dataset === 1;
      return drillDown(`${kinds[i][1]} ratings${previous ? ', previous period' : ''}`, 'v2/reports/happiness/ratings',
        { ...filters(view), ...period(view, previous), rating: kinds[i][0] }, 'ratings');
    },
  });
}

// The per-user table's columns: [figure, title, format, lower is better],
// figures of GET /v2/reports/user.
const userColumns = [
  ['totalReplies', 'Replies', count],
  ['customersHelped', 'Customers helped', count],
  ['resolved', 'Resolved', count],
  ['responseTime', 'Response time', duration, true],
  ['happinessScore', 'Happiness score', number],
];

// users draws a row per user of the company, each from the user report.
export async function users(view) {
  const box = document.querySelector('#users .table');
  const params = reportParams(view);
  const people = await every('v2/users', 'users');
  const report = (u) => get('v2/reports/user', { ...params, user: u.id });
  const first = people.length ? await report(people[0]).then((value) => ({ value }), (error) => ({ error })) : null;
  if (first?.error instanceof APIError && first.error.status === 404) {
    box.replaceChildren(el('p', { class: 'error', role: 'alert', 'data-unavailable': 'user-report' },
      'This server does not answer the user report (GET /v2/reports/user), so the table cannot be drawn.'));
    return;
  }
  if (first?.error) throw first.error;
  const rest = await pooled(people.slice(1).map((u) => () => report(u)));
  const results = first ? [first, ...rest] : [];
  const rows = people.map((u, i) => {
    const { value, error } = results[i];
    const name = `${u.firstName} ${u.lastName}`.trim() || u.email;
    if (error) throw error;
    return el('tr', { 'data-user': u.id }, el('td', {}, name), ...userColumns.map(([f, , format, lower]) =>
      el('td', { class: 'number', 'data-figure': f, 'data-current': JSON.stringify(value.current?.[f] ?? null) },
        format(value.current?.[f]), value.deltas ? deltaBadge(value.deltas[f], lower) : null)));
  });
  box.replaceChildren(el('table', {},
    el('thead', {}, el('tr', {}, el('th', {}, 'User'), ...userColumns.map(([, t]) => el('th', { class: 'number' }, t)))),
    el('tbody', {}, ...rows)));
}
