/** A tool message's text without the `<tool_output>` fence every result reaches the model in. */
export function unfence(content: unknown): string {
  const text = String(content);
  const m = /^<tool_output tool="[\w-]+"(?: status="error")?>\n([\s\S]*)\n<\/tool_output>$/.exec(text);
  if (!m) throw new Error(`not a fenced tool output: ${text.slice(0, 120)}`);
  return m[1]!;
}
