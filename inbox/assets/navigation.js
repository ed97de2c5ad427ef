// The navigation: the agent's mailboxes with their folders, and the
// agent's saved views, each with its count, read again every little while
// so the counts stay live.
import { get, every } from './api.js';
import { el } from './format.js';
import { pageLink, queryString } from './search.js';

// folderCount is the count a folder shows: its open conversations, or all
// of them for the folders that hold only finished ones.
function folderCount(f) {
  return f.type === 'closed' || f.type === 'spam' ? f.totalCount : f.activeCount;
}

function link(title, params, count, attrs = {}) {
  const state = { ...params, title };
  const href = pageLink('inbox') + queryString(state);
  const current = new URLSearchParams(location.search).get('folder') === String(params.folder) && location.pathname.endsWith('/inbox');
  return el('a', { href, ...attrs, ...(current ? { 'aria-current': 'page' } : {}) },
    el('span', { class: 'name' }, title.split(': ').pop()), ' ', el('span', { class: 'count', 'aria-label': `${count} conversations` }, String(count)));
}

export async function renderNavigation() {
  const nav = document.getElementById('navigation');
  const [mailboxes, views] = await Promise.all([every('v2/mailboxes', 'mailboxes'), every('v2/views', 'views')]);
  const folders = await Promise.all(mailboxes.map((m) => every(`v2/mailboxes/${m.id}/folders`, 'folders')));
  // A view's count is the list its link opens: in its mailbox, when it
  // has one.
  const viewParams = (v) => ({ folder: v.id, mailbox: v.mailboxId ?? '' });
  const viewCounts = await Promise.all(views.map(async (v) => (await get('v2/conversations', viewParams(v))).page?.totalElements ?? 0));
  const mailboxItems = mailboxes.map((m, i) => el('li', { 'data-mailbox': m.id },
    el('h3', {}, m.name),
    el('ul', {}, folders[i].filter((f) => f.type !== 'view').map((f) => el('li', { 'data-folder': f.id },
      link(`${m.name}: ${f.name}`, { mailbox: m.id, folder: f.id }, folderCount(f)))))));
  const viewItems = views.map((v, i) => el('li', { 'data-view': v.id, 'data-count': viewCounts[i] },
    link(v.name, viewParams(v), viewCounts[i])));
  if (nav.contains(document.activeElement)) return; // keep the agent's place; the next refresh catches up
  nav.replaceChildren(
    el('h2', {}, 'Mailboxes'), el('ul', { class: 'mailboxes' }, mailboxItems),
    el('h2', {}, 'Views'), viewItems.length ? el('ul', { class: 'views' }, viewItems) : el('p', { class: 'hint' }, 'No saved views yet.'));
  nav.dataset.state = 'ready';
}
