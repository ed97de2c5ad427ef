// The dashboard's entry point: sign-in state, the view form, and loading
// every section for the chosen view. body[data-state] says where the page
// is (signed-out, loading, ready), for people and for the browser tests.
import { get, every, signedIn, signOut, startSignIn, SignInRequired } from './api.js';
import { wireDrillDown } from './drilldown.js';
import { el } from './format.js';
import * as sections from './sections.js';
import { readView, queryOf, preceding, isoDay, reportParams } from './view.js';

const form = document.getElementById('view');
let view = readView(location.search, new Date());

function showSignedOut() {
  document.body.dataset.state = 'signed-out';
  document.getElementById('signed-out').hidden = false;
  document.getElementById('dashboard').hidden = true;
  document.getElementById('sign-out').hidden = true;
}

function options(select, items, chosen) {
  select.replaceChildren(...items.map((item) =>
    el('option', { value: item.id, ...(chosen.includes(String(item.id)) ? { selected: '' } : {}) }, item.name)));
}

async function fillFilters() {
  const [mailboxes, tags] = await Promise.all([every('v2/mailboxes', 'mailboxes'), every('v2/tags', 'tags')]);
  options(form.elements.mailboxes, mailboxes, view.mailboxes);
  options(form.elements.tags, tags, view.tags);
}

function setForm() {
  for (const name of ['start', 'end', 'previousStart', 'previousEnd']) form.elements[name].value = isoDay(view[name]);
  form.elements.viewBy.value = view.viewBy;
  for (const [name, chosen] of [['mailboxes', view.mailboxes], ['tags', view.tags]]) {
    for (const o of form.elements[name].options) o.selected = chosen.includes(o.value);
  }
}

function formView() {
  const q = new URLSearchParams();
  for (const name of ['start', 'end', 'previousStart', 'previousEnd', 'viewBy']) q.set(name, form.elements[name].value);
  for (const name of ['mailboxes', 'tags']) {
    q.set(name, [...form.elements[name].selectedOptions].map((o) => o.value).join(','));
  }
  return readView(`?${q}`, new Date());
}

// section runs one section's work, showing its failure in its panel.
async function section(id, work) {
  const panel = document.getElementById(id);
  panel.querySelector(':scope > .error')?.remove();
  try {
    await work();
  } catch (error) {
    if (error instanceof SignInRequired) throw error;
    panel.append(el('p', { class: 'error', role: 'alert' }, error.message));
  }
}

async function render() {
  document.body.dataset.state = 'loading';
  document.getElementById('drilldown').hidden = true;
  const params = reportParams(view);
  const series = { ...params, viewBy: view.viewBy };
  const report = (path, p = params) => get(`v2/reports/${path}`, p);
  const cards = (name) => section('summary', async () => sections.summaryCards(name, await report(name)));
  const results = await Promise.allSettled([
    cards('conversations'),
    cards('company'),
    section('summary', async () => {
      const body = await report('productivity');
      sections.summaryCards('productivity', body);
      sections.distribution(view, 'chart-first-response', body.firstResponseTime, 'firstResponseTime', 'First response in');
      sections.distribution(view, 'chart-resolution', body.resolutionTime, 'resolutionTime', 'Resolved in');
    }),
    section('happiness', async () => {
      const body = await report('happiness');
      sections.summaryCards('happiness', body);
      sections.happiness(view, body);
    }),
    section('volume', async () => {
      const [created, received] = await Promise.all([report('conversations/new', series), report('conversations/received-messages', series)]);
      sections.volume(view, created, received);
    }),
    section('channels', async () => sections.channelVolume(view, await report('conversations/volume-by-channel', series))),
    section('busy', async () => sections.busyTimes(await report('conversations/busy-times'))),
    section('users', () => sections.users(view)),
  ]);
  if (results.some((r) => r.status === 'rejected' && r.reason instanceof SignInRequired)) return showSignedOut();
  document.body.dataset.state = 'ready';
}

function wireForm() {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    view = formView();
    history.pushState(null, '', queryOf(view));
    setForm();
    render();
  });
  document.getElementById('preceding').addEventListener('click', () => {
    const v = formView();
    const { previousStart, previousEnd } = preceding(v.start, v.end);
    form.elements.previousStart.value = isoDay(previousStart);
    form.elements.previousEnd.value = isoDay(previousEnd);
  });
  window.addEventListener('popstate', () => {
    view = readView(location.search, new Date());
    setForm();
    render();
  });
}

async function start() {
  wireDrillDown();
  document.getElementById('sign-in').addEventListener('click', (event) => {
    event.preventDefault();
    startSignIn();
  });
  document.getElementById('sign-out').addEventListener('click', () => {
    signOut();
    showSignedOut();
  });
  if (!signedIn()) return showSignedOut();
  document.getElementById('dashboard').hidden = false;
  document.getElementById('sign-out').hidden = false;
  try {
    await fillFilters();
  } catch (error) {
    if (error instanceof SignInRequired) return showSignedOut();
    const p = document.getElementById('view-error');
    p.textContent = error.message;
    p.hidden = false;
  }
  setForm();
  wireForm();
  return render();
}

start();
