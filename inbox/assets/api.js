// The inbox's API client. The agent's access token lives in this tab's
// session storage: the sign-in's hand-off page (handoff.js) puts it there,
// and it goes when the tab closes, when the agent signs out, or when the
// API answers 401. Everything the inbox shows is an answer of these calls.

const tokenKey = 'parley.inbox.token';
const returnKey = 'parley.inbox.return';

// root is the way from this page back to Parley's root ("" on /inbox,
// "../../" on a conversation's page), set by the server in <html data-root>.
const root = document.documentElement.dataset.root ?? '';

// SignInRequired is thrown when there is no usable token.
export class SignInRequired extends Error {
  constructor() { super('sign-in required'); }
}

// APIError is an error answer: its status, its body and the first of the
// body's detailed errors (Help Scout's error format: a message and
// _embedded.errors with path, message and rejectedValue).
export class APIError extends Error {
  constructor(status, body) {
    const detail = body?._embedded?.errors?.[0];
    super([body?.message ?? `HTTP ${status}`, detail?.message].filter(Boolean).join(': '));
    this.status = status;
    this.body = body;
    this.detail = detail;
  }
}

export function signedIn() {
  return sessionStorage.getItem(tokenKey) !== null;
}

export function signOut() {
  sessionStorage.removeItem(tokenKey);
}

// pageURL resolves a path of Parley's own pages ("inbox",
// "conversation/1/2") against this page.
export function pageURL(path) {
  return new URL(root + path, location.href);
}

// startSignIn remembers where the agent is, so the hand-off can come back
// to it, and goes to the sign-in.
export function startSignIn() {
  sessionStorage.setItem(returnKey, location.href);
  location.assign(pageURL('inbox/signin'));
}

// finishSignIn keeps the token the callback handed over and returns the
// address the agent left, when it is on this origin, or the inbox.
export function finishSignIn(token) {
  sessionStorage.setItem(tokenKey, token);
  const back = sessionStorage.getItem(returnKey);
  sessionStorage.removeItem(returnKey);
  const url = back ? new URL(back, location.href) : null;
  return url && url.origin === location.origin ? url : new URL('../inbox', location.href);
}

// apiURL resolves an API path against Parley's root.
export function apiURL(path, params = {}) {
  const url = pageURL(path);
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  }
  return url;
}

// call sends one request with the agent's token and answers the decoded
// body (null for an empty one).
export async function call(method, path, { params, body } = {}) {
  const token = sessionStorage.getItem(tokenKey);
  if (token === null) throw new SignInRequired();
  const headers = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(apiURL(path, params), {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    signOut();
    throw new SignInRequired();
  }
  const text = await res.text();
  let decoded = null;
  try { decoded = text ? JSON.parse(text) : null; } catch { decoded = null; }
  if (!res.ok) throw new APIError(res.status, decoded);
  return decoded;
}

export const get = (path, params) => call('GET', path, { params });

// every reads all the pages of a HAL list and answers its items.
export async function every(path, key, params = {}) {
  const items = [];
  for (let page = 1; ; page++) {
    const body = await get(path, { ...params, page });
    items.push(...(body?._embedded?.[key] ?? []));
    if (!body?.page || page >= body.page.totalPages) return items;
  }
}

// download fetches a file with the agent's token and answers a local
// address for it: a plain link could not send the token.
export async function download(path) {
  const token = sessionStorage.getItem(tokenKey);
  if (token === null) throw new SignInRequired();
  const res = await fetch(apiURL(path), { headers: { Authorization: `Bearer ${token}` } });
  if (!res.ok) throw new APIError(res.status, null);
  return URL.createObjectURL(await res.blob());
}
