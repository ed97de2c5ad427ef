// The drill-down panel: the conversations behind a clicked bar, a page at
// a time, from the drill-down endpoint that matches the chart. Each
// conversation links to its API resource; following the link shows the
// resource, fetched with the user's token (a plain navigation has none).
import { get, apiURL } from './api.js';
import { el, day } from './format.js';

const panel = () => document.getElementById('drilldown');
let current = null; // {title, path, params, shape, page}

// The two shapes of drill-down answers: conversation pages
// ({conversations: {pages, page, count, results}}) and the happiness
// ratings list ({results, page, pages, count}).
const shapes = {
  conversations: {
    page: (body) => body.conversations,
    columns: ['Conversation', 'Subject', 'Customer', 'Type', 'Status', 'Created'],
    row: (c) => [conversationLink(c.id, c.number), c.subject, c.customerName || c.customerEmail, c.type, c.status, day(c.createdAt)],
  },
  ratings: {
    page: (body) => body,
    columns: ['Conversation', 'Rating', 'Customer', 'User', 'Comments', 'Rated'],
    row: (r) => [conversationLink(r.id, r.number), r.rating, r.ratingCustomerName, r.ratingUserName, r.ratingComments, day(r.ratingCreatedAt)],
  },
};

function conversationLink(id, number) {
  return el('a', { href: apiURL(`v2/conversations/${id}`).pathname, 'data-conversation': id }, `#${number}`);
}

// drillDown shows the first page of a drill-down.
export function drillDown(title, path, params, shape = 'conversations') {
  current = { title, path, params, shape, page: 1 };
  return load();
}

async function load() {
  const p = panel();
  const { title, path, params, shape, page } = current;
  p.hidden = false;
  p.dataset.state = 'loading';
  p.querySelector('h2').textContent = title;
  const table = p.querySelector('.table');
  try {
    const body = await get(path, { ...params, page });
    const s = shapes[shape];
    const pg = s.page(body);
    p.querySelector('.count').textContent = `${pg.count} conversation${pg.count === 1 ? '' : 's'}`;
    p.dataset.count = pg.count;
    table.replaceChildren(el('table', {},
      el('thead', {}, el('tr', {}, ...s.columns.map((c) => el('th', {}, c)))),
      el('tbody', {}, ...pg.results.map((r) => el('tr', {}, ...s.row(r).map((v) => el('td', {}, v ?? '')))))));
    p.querySelector('.where').textContent = `page ${pg.page} of ${Math.max(pg.pages, 1)}`;
    p.querySelector('[data-page=previous]').disabled = pg.page <= 1;
    p.querySelector('[data-page=next]').disabled = pg.page >= pg.pages;
    p.dataset.state = 'ready';
  } catch (error) {
    table.replaceChildren(el('p', { class: 'error', role: 'alert' }, error.message));
    p.dataset.state = 'error';
  }
  p.querySelector('h2').focus();
  p.scrollIntoView({ block: 'start' });
}

async function showResource(link) {
  const dialog = document.getElementById('resource');
  dialog.querySelector('h2').textContent = link.getAttribute('href');
  dialog.querySelector('pre').textContent = 'Loading…';
  dialog.showModal();
  try {
    const body = await get(link.getAttribute('href'));
    dialog.querySelector('pre').textContent = JSON.stringify(body, null, 2);
  } catch (error) {
    dialog.querySelector('pre').textContent = error.message;
  }
}

export function wireDrillDown() {
  const p = panel();
  p.querySelector('[data-page=previous]').addEventListener('click', () => { current.page--; load(); });
  p.querySelector('[data-page=next]').addEventListener('click', () => { current.page++; load(); });
  p.addEventListener('click', (event) => {
    const link = event.target.closest('a[data-conversation]');
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    showResource(link);
  });
}
