// The conversation list of /inbox: the search box's query with the
// toolbar's status and sort, a folder or view when one is chosen, the
// list's facets beside the results, paging, and "save as view". The
// state lives in the address (?query=&status=&sortField=&sortOrder=&page=
// &mailbox=&folder=), so Back, Forward and bookmarks work.
import { get, call, APIError, SignInRequired } from './api.js';
import { el, personName, when, conversationPath } from './format.js';
import { searchDrawn } from './marks.js';

// facetFields maps the list's facets to the query field each refines.
const facetFields = { status: 'status', tag: 'tag', assignee: 'assigned', mailbox: 'mailbox' };
const facetTitles = { status: 'Status', tag: 'Tags', assignee: 'Assignee', mailbox: 'Mailbox' };

export function readState(search) {
  const q = new URLSearchParams(search);
  return {
    query: q.get('query') ?? '',
    status: q.get('status') ?? (q.get('folder') ? '' : 'all'),
    sortField: q.get('sortField') ?? 'createdAt',
    sortOrder: q.get('sortOrder') ?? 'desc',
    page: Math.max(1, Number(q.get('page')) || 1),
    mailbox: q.get('mailbox') ?? '',
    folder: q.get('folder') ?? '',
    title: q.get('title') ?? '',
  };
}

export function queryString(state) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(state)) {
    if (v !== '' && v !== undefined && !(k === 'page' && v === 1)) q.set(k, v);
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

// quoted writes a value as the query language reads it back: bare when it
// is one plain word, in double quotes otherwise.
export function quoted(value) {
  return /^[\p{L}\p{N}_.@-]+$/u.test(value) ? value : `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

// refine adds one condition to a query, keeping what the query meant.
export function refine(query, field, value) {
  const term = `${field}:${quoted(value)}`;
  const q = query.trim();
  if (!q) return term;
  return /\bOR\b/.test(q) ? `(${q}) AND ${term}` : `${q} AND ${term}`;
}

// withoutCondition is the query with one condition that refine added taken
// out again, or null when the query does not hold it as refine writes it.
export function withoutCondition(query, field, value) {
  const term = `${field}:${quoted(value)}`;
  const q = query.trim();
  if (q === term) return '';
  if (!q.endsWith(` AND ${term}`)) return null;
  const rest = q.slice(0, -` AND ${term}`.length);
  const unwrapped = /^\((.*)\)$/s.exec(rest)?.[1];
  for (const before of [unwrapped, rest]) {
    if (before !== undefined && refine(before, field, value) === q) return before;
  }
  return null;
}

// toggle is what a click on a facet does: it adds the facet's condition,
// or, when the query already ends with it (a second click), takes it out.
export function toggle(query, field, value) {
  return withoutCondition(query, field, value) ?? refine(query, field, value);
}

// queryColumn reads the column an invalid query's message names.
function queryColumn(message) {
  const m = /at column (\d+)/.exec(message ?? '');
  return m ? Number(m[1]) : 0;
}

export class ConversationList {
  constructor({ onNavigate, onViewSaved }) {
    this.state = readState(location.search);
    this.onNavigate = onNavigate;
    this.onViewSaved = onViewSaved;
    this.input = document.getElementById('query');
    this.results = document.getElementById('results');
    this.wire();
  }

  wire() {
    document.getElementById('status').addEventListener('change', (e) => this.go({ status: e.target.value, page: 1 }));
    document.getElementById('sort-field').addEventListener('change', (e) => this.go({ sortField: e.target.value, page: 1 }));
    document.getElementById('sort-order').addEventListener('change', (e) => this.go({ sortOrder: e.target.value, page: 1 }));
    const pager = document.querySelector('#list .pager');
    pager.querySelector('[data-page=previous]').addEventListener('click', () => this.go({ page: this.state.page - 1 }));
    pager.querySelector('[data-page=next]').addEventListener('click', () => this.go({ page: this.state.page + 1 }));
    const form = document.getElementById('save-view-form');
    const inMailbox = form.elements['in-mailbox'];
    // A shared view is shared with its mailbox's users, so it keeps to
    // that mailbox.
    form.querySelectorAll('[name=visibility]').forEach((radio) => radio.addEventListener('change', () => {
      const shared = form.elements.visibility.value === 'shared';
      inMailbox.disabled = shared;
      if (shared) inMailbox.checked = true;
    }));
    document.getElementById('save-view').addEventListener('click', () => {
      const mailbox = this.state.mailbox;
      const name = document.querySelector(`#navigation [data-mailbox="${CSS.escape(mailbox)}"] h3`)?.textContent ?? 'this mailbox';
      form.querySelectorAll('[data-needs-mailbox]').forEach((e) => { e.hidden = !mailbox; });
      form.querySelectorAll('.mailbox-name').forEach((e) => { e.textContent = name; });
      form.elements.visibility.value = 'private';
      inMailbox.checked = true;
      inMailbox.disabled = false;
      form.hidden = false;
      form.elements.name.value = this.state.query;
      form.elements.name.focus();
      form.elements.name.select();
    });
    form.querySelector('[data-action=cancel]').addEventListener('click', () => { form.hidden = true; });
    form.addEventListener('submit', (e) => { e.preventDefault(); this.saveView(form); });
  }

  // search runs the box's query from the first page, out of any folder.
  search(query) {
    this.go({ query, page: 1, folder: '', mailbox: '', title: '', status: this.state.folder ? 'all' : this.state.status || 'all' });
  }

  go(change) {
    this.state = { ...this.state, ...change };
    history.pushState(null, '', location.pathname + queryString(this.state));
    return this.render();
  }

  popped() {
    this.state = readState(location.search);
    return this.render();
  }

  params() {
    const s = this.state;
    return { query: s.query, status: s.status, sortField: s.sortField, sortOrder: s.sortOrder, page: s.page,
      mailbox: s.mailbox, folder: s.folder, facets: Object.keys(facetFields).join(',') };
  }

  setControls() {
    this.input.value = this.state.query;
    const status = document.getElementById('status');
    status.value = this.state.status || 'all';
    if (!this.state.status) status.selectedIndex = -1; // the folder's own
    document.getElementById('sort-field').value = this.state.sortField;
    document.getElementById('sort-order').value = this.state.sortOrder;
    document.getElementById('list-title').textContent = this.state.title || (this.state.query ? 'Search results' : 'Conversations');
  }

  async render() {
    const list = document.getElementById('list');
    list.dataset.state = 'loading';
    this.setControls();
    clearQueryFeedback();
    const listError = document.getElementById('list-error');
    listError.hidden = true;
    let body;
    try {
      body = await get('v2/conversations', this.params());
    } catch (error) {
      if (error instanceof SignInRequired) throw error;
      this.showFailure(error);
      this.results.replaceChildren();
      document.getElementById('facets').replaceChildren();
      document.getElementById('result-count').textContent = '';
      list.dataset.state = 'error';
      searchDrawn();
      return;
    }
    const conversations = body._embedded?.conversations ?? [];
    this.results.replaceChildren(...conversations.map((c) => resultRow(c)));
    const total = body.page?.totalElements ?? conversations.length;
    const count = document.getElementById('result-count');
    count.textContent = `${total} conversation${total === 1 ? '' : 's'}`;
    list.dataset.count = total;
    showSuggestions(body.suggestions ?? [], (word) => this.search(word));
    this.renderFacets(body.facets ?? {});
    this.renderPager(body.page);
    this.selected = -1;
    list.dataset.state = 'ready';
    searchDrawn();
  }

  showFailure(error) {
    if (error instanceof APIError && error.status === 400 && error.detail?.path === 'query') {
      showQueryError(this.state.query, error.detail.message);
      return;
    }
    const p = document.getElementById('list-error');
    p.textContent = error.message;
    p.hidden = false;
  }

  renderFacets(facets) {
    const aside = document.getElementById('facets');
    const groups = Object.keys(facetFields).filter((name) => Object.keys(facets[name] ?? {}).length > 0).map((name) => {
      const entries = Object.entries(facets[name]).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      return el('section', { class: 'facet', 'data-facet': name },
        el('h2', {}, facetTitles[name]),
        el('ul', {}, entries.map(([value, n]) => el('li', {},
          el('button', { type: 'button', 'data-value': value, 'aria-label': `${facetTitles[name]}: ${value}, ${n} conversations`,
            'aria-pressed': String(withoutCondition(this.state.query, facetFields[name], value) !== null),
            onclick: () => this.search(toggle(this.state.query, facetFields[name], value)) },
          el('span', { class: 'value' }, value), el('span', { class: 'count' }, String(n)))))));
    });
    aside.replaceChildren(el('h2', { class: 'visually-hidden' }, 'Refine'), ...groups);
    aside.hidden = groups.length === 0;
  }

  renderPager(page) {
    const pager = document.querySelector('#list .pager');
    const total = page?.totalPages ?? 1;
    pager.querySelector('.where').textContent = `Page ${this.state.page} of ${total}`;
    pager.querySelector('[data-page=previous]').disabled = this.state.page <= 1;
    pager.querySelector('[data-page=next]').disabled = this.state.page >= total;
  }

  async saveView(form) {
    const error = form.querySelector('.error');
    error.hidden = true;
    const s = this.state;
    const visibility = s.mailbox ? form.elements.visibility.value : 'private';
    const view = { name: form.elements.name.value.trim(), visibility, query: s.query,
      sortField: s.sortField, sortOrder: s.sortOrder, filters: {} };
    if (s.status && s.status !== 'all') view.filters.status = s.status;
    if (s.mailbox && (visibility === 'shared' || form.elements['in-mailbox'].checked)) view.filters.mailbox = [Number(s.mailbox)];
    if (visibility === 'shared') view.mailboxId = Number(s.mailbox);
    try {
      await call('POST', 'v2/views', { body: view });
    } catch (e) {
      if (e instanceof SignInRequired) throw e;
      error.textContent = e.message;
      error.hidden = false;
      return;
    }
    form.hidden = true;
    await this.onViewSaved(view.name);
  }

  // move selects the next (1) or previous (-1) conversation, for j and k.
  move(step) {
    const rows = [...this.results.children];
    if (rows.length === 0) return;
    this.selected = Math.min(rows.length - 1, Math.max(0, (this.selected ?? -1) + step));
    rows.forEach((r, i) => r.classList.toggle('selected', i === this.selected));
    rows[this.selected].querySelector('a').focus();
  }
}

function resultRow(c) {
  const customer = c.primaryCustomer ?? c.customer;
  const assignee = c.assignee ? personName(c.assignee) : 'Unassigned';
  return el('li', { class: 'result', 'data-conversation': c.id, 'data-status': c.status },
    el('a', { class: 'subject', href: pageLink(conversationPath(c)) }, c.subject || '(no subject)'),
    el('span', { class: 'customer' }, personName(customer)),
    el('span', { class: `status status-${c.status}` }, c.status),
    el('span', { class: 'assignee' }, assignee),
    el('p', { class: 'preview' }, c.preview ?? ''),
    el('ul', { class: 'tags', 'aria-label': 'Tags' }, (c.tags ?? []).map((t) => el('li', {}, t.tag ?? t.name ?? String(t)))),
    el('span', { class: 'times' }, '#', String(c.number), ' · created ', when(c.createdAt),
      c.userUpdatedAt ? [' · updated ', when(c.userUpdatedAt)] : []));
}

// pageLink is a path of Parley's pages as a link from this page.
export function pageLink(path) {
  return (document.documentElement.dataset.root ?? '') + path;
}

export function clearQueryFeedback() {
  document.getElementById('query-error').hidden = true;
  document.getElementById('suggestions').hidden = true;
  document.getElementById('query').removeAttribute('aria-invalid');
}

// showQueryError shows the API's message under the box, and the query
// with a caret under the column the message names.
export function showQueryError(query, message) {
  const box = document.getElementById('query-error');
  const column = queryColumn(message);
  box.querySelector('.message').textContent = message;
  box.querySelector('.marked').textContent = column > 0 ? `${query}\n${' '.repeat(column - 1)}^` : query;
  box.dataset.column = column;
  box.hidden = false;
  document.getElementById('query').setAttribute('aria-invalid', 'true');
}

// showSuggestions offers the list's did-you-mean words, each a search.
function showSuggestions(words, search) {
  const p = document.getElementById('suggestions');
  if (words.length === 0) {
    p.hidden = true;
    return;
  }
  p.replaceChildren('Did you mean ', ...words.flatMap((w, i) => [i > 0 ? ' or ' : '',
    el('button', { type: 'button', class: 'link', 'data-suggestion': w, onclick: () => search(w) }, w)]), '?');
  p.hidden = false;
}
