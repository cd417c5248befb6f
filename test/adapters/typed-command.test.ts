import { describe, expect, it } from 'vitest';
import { parseTypedCommand } from '../../src/adapters/typed-command.js';

describe('typed slash commands (HTTP, console)', () => {
  it('parses /ask and /quote like the platforms send them', () => {
    expect(parseTypedCommand('/ask what is new?')).toEqual({ name: 'ask', options: { question: 'what is new?' } });
    expect(parseTypedCommand('/quote CALC 3 boxes, 700×700×400mm')).toEqual({
      name: 'quote',
      options: { mode: 'calc', request: '3 boxes, 700×700×400mm' },
    });
    expect(parseTypedCommand('/quote price')).toEqual({ name: 'quote', options: { mode: 'price', request: '' } });
  });

  it('leaves other text alone', () => {
    expect(parseTypedCommand('what does /ask do?')).toBeUndefined();
    expect(parseTypedCommand('/askme')).toBeUndefined();
    expect(parseTypedCommand('/unknown thing')).toBeUndefined();
  });
});
