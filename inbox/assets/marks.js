// User Timing measures of the two waits an agent feels most: from the
// Enter that sends the search box's query to its results drawn
// ("inbox:search"), and from opening a conversation's page to its threads
// drawn ("inbox:open-conversation"). They are the browser's standard
// performance entries: the developer tools show them, and the benchmark's
// browser phase (cmd/parley-bench -browser) reads them.

export const searchMeasure = 'inbox:search';
export const openMeasure = 'inbox:open-conversation';

const searchStart = `${searchMeasure}:start`;

// afterPaint runs done once the browser has drawn what the page just
// changed: a task queued from the next animation frame runs after that
// frame's style, layout and paint.
function afterPaint(done) {
  requestAnimationFrame(() => setTimeout(done, 0));
}

// searchSent marks the keystroke that sends a search.
export function searchSent() {
  performance.clearMarks(searchStart);
  performance.mark(searchStart);
}

// searchDrawn measures the search sent last, if one is waiting, once its
// answer (results or error) is on the screen.
export function searchDrawn() {
  const [sent] = performance.getEntriesByName(searchStart, 'mark');
  if (!sent) return;
  performance.clearMarks(searchStart);
  afterPaint(() => performance.measure(searchMeasure, { start: sent.startTime, end: performance.now() }));
}

// conversationDrawn measures, on a conversation's first drawing, the time
// from the page's navigation (the click on its link) to its threads on
// the screen.
export function conversationDrawn() {
  afterPaint(() => performance.measure(openMeasure, { start: 0, end: performance.now() }));
}
