// The inbox's entry point: sign-in state, which page this is (the list at
// /inbox, or a conversation at /conversation/{id}/{number}), the search box
// and the keyboard. body[data-state] says where the page is (signed-out,
// loading, ready), for people and for the browser tests.
import { signedIn, signOut, startSignIn, pageURL, SignInRequired } from './api.js';
import { ConversationList, clearQueryFeedback, queryString, readState } from './search.js';
import { renderNavigation } from './navigation.js';
import { ConversationPage } from './conversation.js';
import { searchSent } from './marks.js';

const navigationRefresh = 30000; // a hidden tab skips its turns
const conversationPath = /\/conversation\/([^/]+)\/[^/]+$/;

let list = null;
let conversation = null;

function showSignedOut() {
  document.body.dataset.state = 'signed-out';
  document.getElementById('signed-out').hidden = false;
  document.getElementById('app').hidden = true;
  document.getElementById('search').hidden = true;
  document.getElementById('sign-out').hidden = true;
}

// guarded runs the page's work, turning a lost sign-in into the sign-in.
async function guarded(work) {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SignInRequired) return showSignedOut();
    throw error;
  }
}

function wireSearch() {
  const form = document.getElementById('search');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = document.getElementById('query').value.trim();
    if (list) {
      searchSent();
      guarded(() => list.search(query));
      return;
    }
    location.assign(pageURL('inbox' + queryString({ ...readState(''), query })));
  });
  document.getElementById('query').addEventListener('input', clearQueryFeedback);
}

// typing tells whether a key goes to a field rather than to the shortcuts.
function typing(target) {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

function wireKeyboard() {
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'Escape' && typing(event.target)) {
      event.target.blur();
      return;
    }
    if (typing(event.target)) return;
    const act = {
      '/': () => document.getElementById('query').focus(),
      j: () => (list ?? conversation)?.move(1),
      k: () => (list ?? conversation)?.move(-1),
      r: () => conversation?.compose('reply'),
      n: () => conversation?.compose('note'),
    }[event.key];
    if (act) {
      event.preventDefault();
      act();
    }
  });
}

async function start() {
  document.getElementById('sign-in').addEventListener('click', (event) => {
    event.preventDefault();
    startSignIn();
  });
  document.getElementById('sign-out').addEventListener('click', () => {
    signOut();
    showSignedOut();
  });
  if (!signedIn()) return showSignedOut();
  document.getElementById('app').hidden = false;
  document.getElementById('search').hidden = false;
  document.getElementById('sign-out').hidden = false;
  wireSearch();
  wireKeyboard();
  const match = conversationPath.exec(location.pathname);
  const navigation = guarded(renderNavigation);
  setInterval(() => { if (!document.hidden) guarded(renderNavigation).catch(() => {}); }, navigationRefresh);
  if (match) {
    conversation = new ConversationPage(decodeURIComponent(match[1]));
    await guarded(() => conversation.start());
  } else {
    document.getElementById('list').hidden = false;
    document.getElementById('facets').hidden = false;
    list = new ConversationList({
      onViewSaved: () => guarded(renderNavigation),
    });
    window.addEventListener('popstate', () => guarded(() => list.popped()));
    await guarded(() => list.render());
  }
  await navigation;
  if (document.body.dataset.state !== 'signed-out') document.body.dataset.state = 'ready';
}

start();
