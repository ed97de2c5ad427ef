// The dashboard's API client. The user's access token lives in this tab's
// session storage: the sign-in's hand-off page (handoff.js) puts it there,
// and it goes when the tab closes, when the user signs out, or when the API
// answers 401. Every figure on the page is an answer of these calls.

const tokenKey = 'parley.dashboard.token';
const returnKey = 'parley.dashboard.return';

// SignInRequired is thrown when there is no usable token.
export class SignInRequired extends Error {
  constructor() { super('sign-in required'); }
}

// APIError is an error answer, with the message of SPEC's error body.
export class APIError extends Error {
  constructor(status, body) {
    const detail = body?._embedded?.errors?.[0]?.message;
    super([body?.message ?? `HTTP ${status}`, detail].filter(Boolean).join(': '));
    this.status = status;
  }
}

export function signedIn() {
  return sessionStorage.getItem(tokenKey) !== null;
}

export function signOut() {
  sessionStorage.removeItem(tokenKey);
}

// startSignIn remembers the view (the query string) so the hand-off can
// come back to it, and goes to the sign-in.
export function startSignIn() {
  sessionStorage.setItem(returnKey, location.search);
  location.assign(new URL('reports/signin', document.baseURI));
}

// finishSignIn keeps the token the callback handed over and returns the
// dashboard's address with the view the user left.
export function finishSignIn(token) {
  sessionStorage.setItem(tokenKey, token);
  const back = sessionStorage.getItem(returnKey) ?? '';
  sessionStorage.removeItem(returnKey);
  return new URL('../reports' + (back.startsWith('?') ? back : ''), location.href);
}

// apiURL resolves an API path against the page, so Parley behind a proxy
// that moves it keeps working.
export function apiURL(path, params = {}) {
  const url = new URL(path, document.baseURI);
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  }
  return url;
}

// get calls the API with the user's token and answers the decoded body.
export async function get(path, params) {
  const token = sessionStorage.getItem(tokenKey);
  if (token === null) throw new SignInRequired();
  const res = await fetch(apiURL(path, params), {
    headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
  });
  if (res.status === 401) {
    signOut();
    throw new SignInRequired();
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new APIError(res.status, body);
  return body;
}

// every reads all the pages of a HAL list and answers its items.
export async function every(path, key, params = {}) {
  const items = [];
  for (let page = 1; ; page++) {
    const body = await get(path, { ...params, page });
    items.push(...(body._embedded?.[key] ?? []));
    if (!body.page || page >= body.page.totalPages) return items;
  }
}

// pooled runs tasks at most limit at a time, so a table of many users does
// not spend the company's rate limit in one burst.
export async function pooled(tasks, limit = 4) {
  const results = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]().then((value) => ({ value }), (error) => ({ error }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
