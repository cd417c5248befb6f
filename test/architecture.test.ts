/**
 * docs/architecture.md's layer table is the map of src/: every folder of src/ (and every file at
 * its root) has a row, and every row names something that exists. A folder added without its
 * row, or a row left behind by a move, fails here; .dependency-cruiser.cjs holds each row's rule.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** What the layer table's first column names: `src/<folder>/` and `src/<file>.ts`. */
function namedInLayerTable(): { folders: string[]; files: string[] } {
  const doc = readFileSync(`${root}docs/architecture.md`, 'utf8').split('\n');
  const header = doc.findIndex((line) => /^\| layer \| what it is \| its rule \|$/.test(line));
  expect(header, 'docs/architecture.md has its layer table').toBeGreaterThan(-1);
  const rows = [];
  for (const line of doc.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|')[1] ?? '');
  }
  const named = rows.flatMap((cell) => [...cell.matchAll(/`src\/([^`]+)`/g)].map((m) => m[1] ?? ''));
  return {
    folders: named.filter((n) => n.endsWith('/')).map((n) => n.slice(0, -1)),
    files: named.filter((n) => !n.endsWith('/')),
  };
}

function inSrc(): { folders: string[]; files: string[] } {
  const entries = readdirSync(`${root}src`, { withFileTypes: true });
  return {
    folders: entries.filter((e) => e.isDirectory()).map((e) => e.name),
    files: entries.filter((e) => e.isFile()).map((e) => e.name),
  };
}

describe("docs/architecture.md's layer table", () => {
  it('names every top-level folder of src/ and every file at its root', () => {
    const named = namedInLayerTable();
    const tree = inSrc();
    expect(tree.folders.filter((f) => !named.folders.includes(f))).toEqual([]);
    expect(tree.files.filter((f) => !named.files.includes(f))).toEqual([]);
  });

  it('names only folders and files that exist', () => {
    const named = namedInLayerTable();
    const tree = inSrc();
    expect(named.folders.filter((f) => !tree.folders.includes(f))).toEqual([]);
    expect(named.files.filter((f) => !tree.files.includes(f))).toEqual([]);
  });
});
