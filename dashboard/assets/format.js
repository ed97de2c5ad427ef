// How figures read on the page. The API's numbers are shown as they are,
// rounded only for display; the raw values stay in data- attributes.

const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });

export function count(n) {
  return n === null || n === undefined ? '—' : integer.format(n);
}

export function number(n) {
  return n === null || n === undefined ? '—' : decimal.format(n);
}

// duration reads seconds as the two largest units.
export function duration(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  const s = Math.round(seconds);
  const units = [['d', 86400], ['h', 3600], ['min', 60], ['s', 1]];
  const parts = [];
  let rest = s;
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || (parts.length === 0 && size === 1)) parts.push(`${n} ${name}`);
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

// delta reads a percentage change as the API gives it (`deltas`).
export function delta(percent) {
  if (percent === null || percent === undefined) return '—';
  const sign = percent > 0 ? '+' : '';
  return `${sign}${decimal.format(percent)}%`;
}

export function day(iso) {
  return iso.slice(0, 10);
}

// el builds an element: el('td', {class: 'number'}, '12').
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) node.setAttribute(k, v);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}
