// Client error reporting: every uncaught error, unhandled rejection and
// console.error goes to the server's log (POST /api/client-log). Imported
// first, so its listeners are in place before any other module runs.

function postClientLog(text) {
  try {
    fetch('/api/client-log', {
      method: 'POST',
      body: String(text).slice(0, 16000),
      headers: { 'Content-Type': 'text/plain' },
      keepalive: true,
    }).catch(() => {});
  } catch (_) {
    // The logger itself must never throw.
  }
}

function describe(value) {
  if (value instanceof Error) return value.stack || `${value.name}: ${value.message}`;
  if (typeof value === 'string') return value;
  try { return JSON.stringify(value); } catch (_) { return String(value); }
}

window.addEventListener('error', (event) => {
  const where = event.filename ? ` (${event.filename}:${event.lineno}:${event.colno})` : '';
  const what = event.error ? describe(event.error) : event.message;
  postClientLog(`uncaught error: ${what}${where}`);
});

window.addEventListener('unhandledrejection', (event) => {
  postClientLog(`unhandled rejection: ${describe(event.reason)}`);
});

const originalConsoleError = console.error.bind(console);
console.error = (...args) => {
  postClientLog(`console.error: ${args.map(describe).join(' ')}`);
  originalConsoleError(...args);
};
