// A conversation's custom fields: the mailbox's fields (GET
// /v2/mailboxes/{id}/fields), each an input of its type, saved together
// with PUT /v2/conversations/{id}/fields, which replaces them all. The
// API checks the values; its errors show next to the field they name.
import { get, call, APIError, SignInRequired } from './api.js';
import { el } from './format.js';

// fieldPath reads the index of the request's field an error names
// ("fields[2].value").
const fieldPath = /^fields\[(\d+)\]/;

export class CustomFields {
  constructor(form) {
    this.form = form;
    this.defs = [];
    // edited is set while the agent changes a value, so the page's
    // refresh does not overwrite what they typed.
    this.edited = false;
    form.addEventListener('input', () => { this.edited = true; });
    form.addEventListener('change', () => { this.edited = true; });
  }

  // show builds the inputs of the mailbox's fields and fills them from
  // the conversation; a mailbox without fields shows none.
  async show(conv) {
    const body = await get(`v2/mailboxes/${conv.mailboxId}/fields`);
    this.defs = [...(body?._embedded?.fields ?? [])].sort((a, b) => a.order - b.order || a.id - b.id);
    this.form.querySelector('.field-list').replaceChildren(...this.defs.map((def) => fieldInput(def)));
    this.form.hidden = this.defs.length === 0;
    this.fill(conv);
  }

  // fill sets the inputs to the conversation's values, unless the agent
  // is editing them.
  fill(conv) {
    if (this.edited) return;
    const values = new Map((conv.customFields ?? []).map((f) => [f.id, f.value]));
    for (const def of this.defs) this.input(def.id).value = values.get(def.id) ?? '';
  }

  input(id) {
    return this.form.querySelector(`[data-field="${id}"]`);
  }

  // save replaces the conversation's fields with the form's values: an
  // empty input clears its field. It answers whether the API took them.
  async save(conversationID) {
    this.clearErrors();
    const sent = this.defs.map((def) => ({ id: def.id, value: this.input(def.id).value.trim() })).filter((f) => f.value !== '');
    try {
      await call('PUT', `v2/conversations/${conversationID}/fields`, { body: { fields: sent } });
    } catch (e) {
      if (e instanceof SignInRequired) throw e;
      this.showErrors(e, sent);
      return false;
    }
    this.edited = false;
    this.form.querySelector('.saved').textContent = 'Custom fields saved.';
    return true;
  }

  clearErrors() {
    for (const def of this.defs) {
      const input = this.input(def.id);
      input.removeAttribute('aria-invalid');
      const error = document.getElementById(`field-${def.id}-error`);
      error.textContent = '';
      error.hidden = true;
    }
    this.form.querySelector('.error').hidden = true;
    this.form.querySelector('.saved').textContent = '';
  }

  // showErrors puts each of the API's errors next to the field it names;
  // the others (a required field left empty) under the form.
  showErrors(e, sent) {
    const others = [];
    const detailed = e instanceof APIError ? e.body?._embedded?.errors ?? [] : [];
    for (const detail of detailed) {
      const at = fieldPath.exec(detail.path ?? '');
      const def = at ? sent[Number(at[1])] : null;
      if (!def) {
        others.push(detail.message);
        continue;
      }
      this.input(def.id).setAttribute('aria-invalid', 'true');
      const error = document.getElementById(`field-${def.id}-error`);
      error.textContent = detail.message;
      error.hidden = false;
    }
    if (others.length > 0 || detailed.length === 0) {
      const error = this.form.querySelector('.error');
      error.textContent = detailed.length === 0 ? e.message : `${e.message}: ${others.join('; ')}`;
      error.hidden = false;
    }
    const invalid = this.form.querySelector('[aria-invalid=true]');
    if (invalid) invalid.focus();
  }
}

// fieldInput is a field's label, its input and the place of its error.
// A number is typed as text, so the API's own check of it shows.
function fieldInput(def) {
  const id = `field-${def.id}`;
  const attrs = { id, name: id, 'data-field': def.id, 'aria-describedby': `${id}-error`, 'aria-required': def.required ? 'true' : null };
  let input;
  switch (def.type) {
    case 'dropdown':
      input = el('select', attrs, el('option', { value: '' }, '—'),
        [...(def.options ?? [])].sort((a, b) => a.order - b.order).map((o) => el('option', { value: String(o.id) }, o.label)));
      break;
    case 'multiline':
      input = el('textarea', { ...attrs, rows: 3 });
      break;
    case 'number':
      input = el('input', { ...attrs, type: 'text', inputmode: 'decimal', autocomplete: 'off' });
      break;
    case 'date':
      input = el('input', { ...attrs, type: 'date' });
      break;
    default:
      input = el('input', { ...attrs, type: 'text', autocomplete: 'off' });
  }
  return el('div', { class: `field field-${def.type}` },
    el('label', { for: id }, def.name, def.required ? ' (required)' : ''),
    input,
    el('p', { id: `${id}-error`, class: 'error field-error', hidden: true }));
}
