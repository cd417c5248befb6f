import { z } from 'zod';
import { defineTool } from '../../src/contract/tool.js';

/**
 * The approval tests' `write` tool: `write_note` changes something outside the conversation (it
 * pushes its text to `written`), so it waits for a person's OK by default.
 */
export function createNoteTool() {
  const written: string[] = [];
  const tool = defineTool({
    name: 'write_note',
    title: 'Writing a note',
    description: 'Writes a note somewhere outside the conversation.',
    effect: 'write',
    input: z.object({ text: z.string() }),
    async run({ text }) {
      written.push(text);
      return { content: `Note written: ${text}` };
    },
  });
  return { tool, written };
}
