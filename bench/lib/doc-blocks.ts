/**
 * Figures the docs quote from a bench live between markers the bench writes
 * (`<!-- bench:NAME:start -->` … `<!-- bench:NAME:end -->`), so a doc can only say what the bench
 * printed: `--write` replaces what is between them, test/docs-figures.test.ts compares it. A block
 * may be a whole table or a few words inside a sentence; the markers are HTML comments, which
 * Markdown renders as nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export const repoRoot = new URL('../../', import.meta.url);

const start = (name: string) => `<!-- bench:${name}:start -->`;
const end = (name: string) => `<!-- bench:${name}:end -->`;

/** The text between a block's markers in `file` (relative to the repository root). */
export function readBlock(file: string, name: string): string {
  const text = readFileSync(new URL(file, repoRoot), 'utf8');
  const from = text.indexOf(start(name));
  const to = text.indexOf(end(name));
  if (from < 0 || to < from) throw new Error(`${file} has no bench:${name} block`);
  return text.slice(from + start(name).length, to);
}

/** Replaces the text between each block's markers in `file`; every block must be there already. */
export function writeBlocks(file: string, blocks: Record<string, string>): void {
  const url = new URL(file, repoRoot);
  let text = readFileSync(url, 'utf8');
  for (const [name, content] of Object.entries(blocks)) {
    const from = text.indexOf(start(name));
    const to = text.indexOf(end(name));
    if (from < 0 || to < from) throw new Error(`${file} has no bench:${name} block`);
    text = text.slice(0, from + start(name).length) + content + text.slice(to);
  }
  writeFileSync(url, text);
}

/** What the files hold in the blocks `docs` names, in the same shape (file → name → content). */
export function readBlocks(docs: Record<string, Record<string, string>>): Record<string, Record<string, string>> {
  return Object.fromEntries(
    Object.entries(docs).map(([file, blocks]) => [
      file,
      Object.fromEntries(Object.keys(blocks).map((name) => [name, readBlock(file, name)])),
    ]),
  );
}

/** The blocks of `docs` (file → name → content) that differ from what the files hold. */
export function staleBlocks(docs: Record<string, Record<string, string>>): string[] {
  const stale: string[] = [];
  for (const [file, blocks] of Object.entries(docs))
    for (const [name, content] of Object.entries(blocks))
      if (readBlock(file, name) !== content) stale.push(`${file} ${name}`);
  return stale;
}

/** Writes the blocks with `--write`; otherwise says which are out of date. */
export function writeOrCheck(docs: Record<string, Record<string, string>>, command: string): string {
  if (process.argv.includes('--write')) {
    for (const [file, blocks] of Object.entries(docs)) writeBlocks(file, blocks);
    return `docs: wrote ${Object.values(docs).reduce((n, b) => n + Object.keys(b).length, 0)} figure blocks`;
  }
  const stale = staleBlocks(docs);
  return stale.length
    ? `docs: OUT OF DATE (${stale.join(', ')}); run ${command} --write`
    : 'docs: the figures quoted in the docs match';
}

/** 12,345 */
export const fmt = (n: number) => n.toLocaleString('en-US');
