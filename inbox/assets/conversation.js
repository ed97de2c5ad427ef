// A conversation's page, at its web link: its threads in order, the
// customer beside them, and the actions. The page reads the conversation
// again every few seconds while it is in sight, so what another agent
// changes shows without a reload; it draws again only when the answer
// differs. A hidden tab does not poll: the company's rate limit is shared.
import { get, call, every, download, pageURL, APIError, SignInRequired } from './api.js';
import { el, personName, when, conversationPath } from './format.js';
import { pageLink } from './search.js';
import { conversationDrawn } from './marks.js';
import { CustomFields } from './fields.js';
import { MergeForm } from './merge.js';

const pollInterval = 4000;

const threadLabels = {
  customer: 'Customer', message: 'Reply', note: 'Note', lineitem: 'Activity', chat: 'Chat', phone: 'Phone',
  forwardparent: 'Forwarded', forwardchild: 'Forward', beaconchat: 'Chat',
};

export class ConversationPage {
  constructor(id) {
    this.id = id;
    this.shown = '';
    this.form = document.getElementById('actions');
    this.composer = document.getElementById('composer');
    this.fields = new CustomFields(document.getElementById('fields'));
    this.merging = new MergeForm(document.getElementById('merge'), () => this.conv);
    this.wire();
  }

  async start() {
    document.getElementById('conversation').hidden = false;
    const users = every('v2/users', 'users').catch(() => []);
    if (!(await this.load())) return;
    this.fillAssignees(await users);
    this.showCustomer();
    this.fields.show(this.conv).catch((e) => this.fail(e));
    document.getElementById('subject').focus();
    this.timer = setInterval(() => { if (!document.hidden) this.load().catch(() => {}); }, pollInterval);
  }

  // load reads the conversation and draws it when it changed; it answers
  // false when the agent may not see it (or it does not exist: the API,
  // and so the page, cannot tell the two apart).
  async load() {
    let conv;
    try {
      conv = await get(`v2/conversations/${encodeURIComponent(this.id)}`, { embed: 'threads' });
    } catch (error) {
      if (error instanceof SignInRequired) throw error;
      if (error instanceof APIError && error.status >= 400 && error.status < 500) {
        this.missing();
        return false;
      }
      throw error;
    }
    if (String(conv.id) !== String(this.id)) {
      // The API answered the conversation this one was merged into (its
      // 301 is followed): the page is that conversation's now.
      this.id = conv.id;
      history.replaceState(null, '', pageURL(conversationPath(conv)));
    }
    const text = JSON.stringify(conv);
    if (text !== this.shown) {
      const first = this.shown === '';
      this.shown = text;
      this.conv = conv;
      this.draw();
      if (first) conversationDrawn();
    }
    return true;
  }

  // move focuses the next (1) or previous (-1) thread, for j and k; from
  // elsewhere on the page, j starts at the first and k at the last.
  move(step) {
    const threads = [...document.querySelectorAll('#threads .thread article')];
    if (threads.length === 0) return;
    const at = threads.indexOf(document.activeElement);
    const next = at < 0 ? (step > 0 ? 0 : threads.length - 1) : Math.min(threads.length - 1, Math.max(0, at + step));
    threads[next].focus();
    threads[next].scrollIntoView({ block: 'nearest' });
  }

  missing() {
    clearInterval(this.timer);
    document.getElementById('conversation-body').hidden = true;
    document.getElementById('customer').hidden = true;
    document.getElementById('conversation-missing').hidden = false;
    document.body.dataset.conversation = 'missing';
    document.title = 'Conversation not available · Parley';
  }

  draw() {
    const c = this.conv;
    document.getElementById('conversation-body').hidden = false;
    document.title = `${c.subject || '(no subject)'} · Parley`;
    document.getElementById('subject').textContent = c.subject || '(no subject)';
    const meta = document.querySelector('#conversation-body > header .meta');
    meta.replaceChildren(...[`#${c.number} · `, el('span', { class: `status status-${c.status}`, 'data-status': c.status }, c.status),
      ' · ', c.assignee ? `assigned to ${personName(c.assignee)}` : 'unassigned',
      ' · created ', when(c.createdAt),
      c.snooze?.snoozedUntil ? [' · snoozed until ', when(c.snooze.snoozedUntil)] : []].flat());
    const f = this.form.elements;
    if (document.activeElement !== f.status) f.status.value = c.status;
    if (document.activeElement !== f.assignee) f.assignee.value = c.assignee ? String(c.assignee.id) : '';
    if (document.activeElement !== f.tags) f.tags.value = (c.tags ?? []).map((t) => t.tag ?? t.name).join(', ');
    this.fields.fill(c);
    const threads = [...(c._embedded?.threads ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
    document.getElementById('threads').replaceChildren(...threads.map((t) => this.thread(t)));
    document.body.dataset.conversation = 'ready';
    document.body.dataset.status = c.status;
  }

  thread(t) {
    const author = personName(t.createdBy);
    const text = t.type === 'lineitem' ? (t.action?.text ?? `Status ${t.status}`) : (t.body ?? '');
    const attachments = t._embedded?.attachments ?? [];
    return el('li', { class: `thread thread-${t.type}`, 'data-thread': t.id, 'data-type': t.type },
      el('article', { tabindex: '-1', 'aria-label': `${threadLabels[t.type] ?? t.type} by ${author}` },
        el('header', {}, el('strong', {}, threadLabels[t.type] ?? t.type), ' · ', author, ' · ', when(t.createdAt)),
        el('div', { class: 'body' }, text),
        attachments.length ? el('ul', { class: 'attachments', 'aria-label': 'Attachments' }, attachments.map((a) => el('li', {},
          el('button', { type: 'button', class: 'link', onclick: () => this.open(a) }, a.filename ?? `attachment ${a.id}`),
          ` (${a.mimeType ?? ''}${a.size ? `, ${a.size} bytes` : ''})`))) : null));
  }

  async open(attachment) {
    try {
      const url = await download(`v2/conversations/${this.conv.id}/attachments/${attachment.id}/download`);
      const a = el('a', { href: url, download: attachment.filename ?? '' });
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    } catch (error) {
      this.fail(error);
    }
  }

  fillAssignees(users) {
    const select = this.form.elements.assignee;
    select.replaceChildren(el('option', { value: '' }, 'nobody'), ...users.map((u) => el('option', { value: u.id }, personName(u))));
    select.value = this.conv.assignee ? String(this.conv.assignee.id) : '';
  }

  wire() {
    const f = this.form.elements;
    const patch = (op, path, value) => call('PATCH', `v2/conversations/${this.conv.id}`, { body: { op, path, value } });
    f.status.addEventListener('change', () => this.act(() => patch('replace', '/status', f.status.value)));
    f.assignee.addEventListener('change', () => this.act(() => (f.assignee.value
      ? patch('replace', '/assignTo', Number(f.assignee.value)) : patch('remove', '/assignTo'))));
    this.form.querySelector('[data-action=tags]').addEventListener('click', () => this.act(() =>
      call('PUT', `v2/conversations/${this.conv.id}/tags`, { body: { tags: f.tags.value.split(',').map((t) => t.trim()).filter(Boolean) } })));
    this.form.querySelector('[data-action=snooze]').addEventListener('click', () => this.act(() =>
      call('PUT', `v2/conversations/${this.conv.id}/snooze`, { body: { snoozedUntil: f.snooze.value ? new Date(f.snooze.value).toISOString().replace(/\.\d+Z$/, 'Z') : '' } })));
    this.form.querySelector('[data-action=unsnooze]').addEventListener('click', () => this.act(() =>
      call('DELETE', `v2/conversations/${this.conv.id}/snooze`)));
    this.form.addEventListener('submit', (e) => e.preventDefault());
    this.fields.form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (await this.fields.save(this.conv.id)) await this.load();
    });
    this.composer.addEventListener('submit', (e) => {
      e.preventDefault();
      this.send();
    });
  }

  // act runs one action, shows its error, and reads the conversation again.
  async act(work) {
    const error = document.getElementById('action-error');
    error.hidden = true;
    try {
      await work();
    } catch (e) {
      this.fail(e, error);
    }
    await this.load();
  }

  fail(e, where = document.getElementById('action-error')) {
    if (e instanceof SignInRequired) throw e;
    where.textContent = e.message;
    where.hidden = false;
  }

  // compose picks reply or note and puts the cursor in the text, for r and n.
  compose(kind) {
    this.composer.elements.kind.value = kind;
    document.getElementById('composer-text').focus();
  }

  async send() {
    const error = this.composer.querySelector('.error');
    error.hidden = true;
    const text = this.composer.elements.text.value;
    const kind = this.composer.elements.kind.value;
    const customer = this.conv.primaryCustomer ?? this.conv.customer;
    const body = kind === 'reply' ? { text, customer: { id: customer?.id } } : { text };
    try {
      await call('POST', `v2/conversations/${this.conv.id}/${kind === 'reply' ? 'reply' : 'notes'}`, { body });
    } catch (e) {
      this.fail(e, error);
      return;
    }
    this.composer.elements.text.value = '';
    await this.load();
  }

  async showCustomer() {
    const aside = document.getElementById('customer');
    const id = (this.conv.primaryCustomer ?? this.conv.customer)?.id;
    if (!id) return;
    try {
      const [customer, others] = await Promise.all([
        get(`v2/customers/${id}`),
        get('v2/conversations', { query: `customerIds:${id}`, status: 'all', sortField: 'createdAt', sortOrder: 'desc' }),
      ]);
      const organization = customer.organizationId
        ? await get(`v2/organizations/${customer.organizationId}`).catch(() => null) : null;
      aside.replaceChildren(...customerSidebar(customer, organization, others, this.conv.id).filter(Boolean));
      aside.hidden = false;
    } catch (e) {
      if (e instanceof SignInRequired) throw e;
      aside.replaceChildren(el('p', { class: 'error', role: 'alert' }, e.message));
      aside.hidden = false;
    }
  }
}

function customerSidebar(customer, organization, others, currentID) {
  const e = customer._embedded ?? {};
  const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ') || '(no name)';
  const entries = [
    ['E-mail', e.emails], ['Phone', e.phones], ['Website', e.websites], ['Social', e.social_profiles],
  ].flatMap(([label, list]) => (list ?? []).map((x) => [label, x.value]));
  const address = e.address && [...(e.address.lines ?? []), e.address.city, e.address.state, e.address.postalCode, e.address.country].filter(Boolean).join(', ');
  const facts = [
    ['Job title', customer.jobTitle], ['Location', customer.location], ['Address', address],
    ...entries,
    ...(e.properties ?? []).map((p) => [p.name ?? p.slug, p.text ?? p.value]),
  ].filter(([, v]) => v !== undefined && v !== null && v !== '');
  const orgName = organization?.name ?? customer.organization;
  const conversations = (others._embedded?.conversations ?? []).filter((c) => c.id !== currentID);
  return [
    el('h2', {}, name),
    el('dl', { class: 'facts' }, facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, String(v))])),
    orgName ? el('section', { class: 'organization' }, el('h3', {}, 'Organization'), el('p', {}, orgName),
      organization?.website ? el('p', {}, organization.website) : null) : null,
    el('section', { class: 'others' }, el('h3', {}, 'Other conversations'),
      conversations.length ? el('ul', {}, conversations.map((c) => el('li', {},
        el('a', { href: pageLink(conversationPath(c)) }, c.subject || '(no subject)'), ' ', el('span', { class: `status status-${c.status}` }, c.status))))
        : el('p', { class: 'hint' }, 'None.')),
  ];
}
