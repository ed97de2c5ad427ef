// Merging a conversation into another (POST
// /v2/conversations/{id}/merge): the agent names the other by its number
// or its id, the page shows which conversation that is and asks to
// confirm, and after the merge goes to the surviving conversation, which
// now holds the threads of both.
import { get, call, pageURL, APIError, SignInRequired } from './api.js';
import { el, personName, conversationPath } from './format.js';

export class MergeForm {
  constructor(form, current) {
    this.form = form;
    this.current = current; // () => the conversation on the page
    this.confirm = form.querySelector('.confirm');
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.find();
    });
    form.querySelector('[data-action=merge]').addEventListener('click', () => this.merge());
    form.querySelector('[data-action=cancel]').addEventListener('click', () => this.reset());
  }

  reset() {
    this.target = null;
    this.confirm.hidden = true;
    this.error(null);
    this.form.elements.target.focus();
  }

  error(message) {
    const p = this.form.querySelector('.error');
    p.textContent = message ?? '';
    p.hidden = !message;
    this.form.elements.target.toggleAttribute('aria-invalid', Boolean(message));
  }

  // find looks the conversation up by number (the list's number=) or by
  // id, and asks the agent to confirm.
  async find() {
    this.target = null;
    this.confirm.hidden = true;
    this.error(null);
    const value = this.form.elements.target.value.trim().replace(/^#/, '');
    const by = this.form.elements.by.value;
    if (!/^\d+$/.test(value)) {
      this.error(`Type the conversation's ${by}: digits only.`);
      return;
    }
    let target;
    try {
      target = by === 'number'
        ? (await get('v2/conversations', { number: value, status: 'all' }))?._embedded?.conversations?.[0]
        : await get(`v2/conversations/${value}`);
    } catch (e) {
      if (e instanceof SignInRequired) throw e;
      if (!(e instanceof APIError && e.status === 404)) {
        this.error(e.message);
        return;
      }
    }
    if (!target) {
      this.error(`No conversation you can see has the ${by} ${value}.`);
      return;
    }
    const conv = this.current();
    if (target.id === conv.id) {
      this.error('That is this conversation: choose another one to merge it into.');
      return;
    }
    this.target = target;
    const customer = personName(target.primaryCustomer ?? target.customer);
    this.confirm.querySelector('.summary').textContent = `Merge #${conv.number} “${conv.subject || '(no subject)'}” into #${target.number}`
      + ` “${target.subject || '(no subject)'}” (${target.status}${customer ? `, ${customer}` : ''})? Its threads move there,`
      + ` and its link then opens #${target.number}. A merge cannot be undone.`;
    this.form.querySelector('[data-action=merge]').textContent = `Merge into #${target.number}`;
    this.confirm.hidden = false;
    this.form.querySelector('[data-action=merge]').focus();
  }

  async merge() {
    const target = this.target;
    if (!target) return;
    try {
      await call('POST', `v2/conversations/${this.current().id}/merge`, { body: { targetId: target.id } });
    } catch (e) {
      if (e instanceof SignInRequired) throw e;
      this.error(e.message);
      return;
    }
    location.assign(pageURL(conversationPath(target)));
  }
}
