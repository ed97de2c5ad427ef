// Small helpers to build the page's elements and show times and people.

// el makes an element with attributes and children (strings become text,
// never HTML).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c !== undefined && c !== null && c !== false) e.append(c);
  }
  return e;
}

// personName is a person's name as the API writes it on a conversation
// (first, last) or on a user (firstName, lastName), else their e-mail.
export function personName(p) {
  if (!p) return '';
  const name = [p.first ?? p.firstName, p.last ?? p.lastName].filter(Boolean).join(' ');
  return name || p.email || '';
}

// when shows a time as the agent's locale writes it, in a <time> element.
export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return el('time', { datetime: iso, title: d.toISOString() }, d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }));
}

// conversationPath is a conversation's page, relative to Parley's root:
// the path of its `_links.web`.
export function conversationPath(c) {
  return `conversation/${c.id}/${c.number}`;
}
