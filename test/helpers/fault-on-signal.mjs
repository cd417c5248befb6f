// Fault injection for test/main.test.ts, preloaded with NODE_OPTIONS=--import: on SIGUSR2 the
// process throws from a timer (FAULT=rejection: rejects a promise nobody awaits), as a bug in a
// dependency would. Our code is not replaced; something escapes it.
process.on('SIGUSR2', () => {
  setImmediate(() => {
    if (process.env.FAULT === 'rejection') void Promise.reject(new Error('injected rejection'));
    else throw new Error('injected fault');
  });
});
