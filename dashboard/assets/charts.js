// Bar charts drawn with Chart.js (the vendored UMD build, window.Chart).
// Animation is off: a report is read, not watched, and a screenshot or a
// test sees the final figures at once. A chart whose bars drill down calls
// onBar(datasetIndex, index) when a bar is clicked.

const { Chart } = window;

export const colors = {
  current: '#2f6fde',
  previous: '#b9c8e8',
  line: '#e07b1f',
  email: '#2f6fde',
  chat: '#17a398',
  phone: '#8e5bd0',
  great: '#17803d',
  okay: '#d9a21b',
  notGood: '#b42318',
  weekdays: ['#2f6fde', '#17a398', '#8e5bd0', '#e07b1f', '#d9a21b', '#94a3b8', '#64748b'],
};

// barChart draws (or redraws) the chart of a canvas. datasets are Chart.js
// datasets; a dataset with type 'line' is drawn as a line over the bars.
export function barChart(canvas, { labels, datasets, stacked = false, onBar, tooltipTitle }) {
  Chart.getChart(canvas)?.destroy();
  return new Chart(canvas, {
    type: 'bar',
    data: { labels, datasets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'nearest', intersect: true },
      scales: {
        x: { stacked, grid: { display: false } },
        y: { stacked, beginAtZero: true, ticks: { precision: 0 } },
      },
      plugins: {
        legend: { position: 'bottom', labels: { boxWidth: 12 } },
        tooltip: tooltipTitle ? { callbacks: { title: (items) => tooltipTitle(items[0]) } } : {},
      },
      onHover: (event, elements) => {
        event.native.target.style.cursor = onBar && elements.length ? 'pointer' : 'default';
      },
      onClick: (event, elements) => {
        if (onBar && elements.length) onBar(elements[0].datasetIndex, elements[0].index);
      },
    },
  });
}
