import { z } from 'zod';
import { defineTool, ToolError, type AnyTool } from '../../src/contract/tool.js';

/** Tools that exist only in tests: they exercise the loop without any product data. */
export const weatherTool = defineTool({
  name: 'get_weather',
  title: 'Checking the weather',
  description: 'Current weather for a city.',
  input: z.object({ city: z.string().min(1), units: z.enum(['c', 'f']).optional() }),
  async run({ city, units }, ctx) {
    if (city === 'Atlantis') throw new ToolError(`Unknown city "${city}". Use a real city name.`);
    ctx.state.tools.weather = { looked: true };
    return {
      content: `${city}: 18°${(units ?? 'c').toUpperCase()}, light rain`,
      blocks: [
        {
          type: 'fields',
          fields: [
            { label: 'City', value: city },
            { label: 'Weather', value: '18°, light rain' },
          ],
        },
      ],
      data: { lastCity: city },
    };
  },
});

export const clockTool = defineTool({
  name: 'get_time',
  title: 'Reading the clock',
  description: 'The current time in a timezone.',
  input: z.object({ tz: z.string() }),
  async run({ tz }, ctx) {
    return { content: `It is ${ctx.now().toISOString()} (${tz}).` };
  },
});

export const slowTool = defineTool({
  name: 'slow_lookup',
  title: 'Slow lookup',
  description: 'A lookup that takes a while.',
  input: z.object({ ms: z.number().int().min(0) }),
  timeoutMs: 200,
  async run({ ms }, ctx) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    ctx.log.debug('slow lookup done');
    return { content: `waited ${ms} ms` };
  },
});

export const brokenTool = defineTool({
  name: 'broken_lookup',
  title: 'Broken lookup',
  description: 'Always fails with an internal error.',
  input: z.object({}),
  async run() {
    throw new Error('connect ECONNREFUSED 10.0.0.1:5432 password=hunter2');
  },
});

export const emitTool = defineTool({
  name: 'emit_test_result',
  title: 'Emitting the result',
  description: 'Emit the final structured result.',
  input: z.object({ answer: z.string().min(1), score: z.number().min(0).max(10) }),
  terminal: true,
  async run({ answer, score }) {
    return { content: 'Result recorded.', text: `Final: ${answer} (${score}/10)`, data: { score } };
  },
});

/** Offered only once the thread has looked up the weather (exercises offer(state)). */
export const followUpTool = defineTool({
  name: 'forecast_tomorrow',
  title: 'Forecasting',
  description: 'Tomorrow’s forecast for the city already looked up.',
  input: z.object({}),
  offer: ({ state }) => (state.tools.weather as { looked?: boolean } | undefined)?.looked === true,
  async run() {
    return { content: 'Tomorrow: sunny' };
  },
});

export const testTools: AnyTool[] = [weatherTool, clockTool, slowTool, brokenTool, emitTool, followUpTool];
